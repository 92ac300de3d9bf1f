"""The hex moves card: the three Hex Grid Mode moves and the firing cone, drawn by code.

Each diagram is computed from the rules (sheets/hexmode.py) on a hex grid
(paper/hexgrid.py): the hexes, the route a plane takes, its facing at the start and at the
end (solid arrows, tip first), and the cone's hexes by range. Diagrams show flat-top
hexes with the plane facing up the card; the moves are the same turned any way.
Tags name each drawn item for the tests, which check on the drawn card that the moves end
where the rules say.
"""

from __future__ import annotations

import math

from shapely.geometry import box

from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets import hexmode
from squadron_cad.kits.squadron_leader.sheets.hexmode import LEFT, RIGHT, Step
from squadron_cad.kits.squadron_leader.sheets.style import body
from squadron_cad.paper.drawing import BLACK, Area, Drawing, Item, Label, Stroke, drawing
from squadron_cad.paper.hexgrid import Hex, HexGrid, distance
from squadron_cad.paper.layout import wrap
from squadron_cad.paper.sheet import Piece, PieceSheet

CARD_HEX_MM = 12.5  # across the flats, on the card
PANEL_MM = (84.0, 84.0)
TITLE_BAND_MM = 12.0
HEX_LINE = "#8a8a8a"
START_GREY = "#8a8a8a"
ROUTE_MM = 0.7
CONE_FILLS = {1: "#c8c8c8", 2: "#dcdcdc", 3: "#ececec"}
TEXT_MM = 2.9
UP = 1  # flat-top direction 1 faces +y

GRID = HexGrid(CARD_HEX_MM, "flat_top")
START = Step((0, 0), UP)


def arrow(cell: Hex, facing: int, fill: str, tag: str) -> Area:
    """A solid arrow in the hex, tip first, pointing at the side it faces."""
    cx, cy = GRID.centre(cell)
    heading = math.radians(GRID.direction_deg(facing))
    reach = CARD_HEX_MM * 0.36
    back, half = -CARD_HEX_MM * 0.18, CARD_HEX_MM * 0.22

    def at(along: float, side: float) -> tuple[float, float]:
        return (
            cx + along * math.cos(heading) - side * math.sin(heading),
            cy + along * math.sin(heading) + side * math.cos(heading),
        )

    return Area(((at(reach, 0), at(back, half), at(back, -half)),), fill, "print", tag=tag)


def hexes(cells: set[Hex], tag: str = "card-hex") -> list[Item]:
    return [
        Stroke(tuple(GRID.corners(cell)), 0.3, HEX_LINE, "print", closed=True, tag=tag)
        for cell in sorted(cells)
    ]


def around(cells: list[Hex]) -> set[Hex]:
    """The cells and their neighbours: the patch a diagram shows."""
    return {c for cell in cells for c in _disc(cell, 1)}


def _disc(centre: Hex, radius: int) -> list[Hex]:
    q0, r0 = centre
    return [
        (q0 + dq, r0 + dr)
        for dq in range(-radius, radius + 1)
        for dr in range(-radius, radius + 1)
        if distance((0, 0), (dq, dr)) <= radius
    ]


def route(steps: list[Step], tag: str, colour: str, dashed: bool) -> Stroke:
    """The centres a plane passes through, each once, in order."""
    cells: list[Hex] = []
    for step in steps:
        if not cells or cells[-1] != step.cell:
            cells.append(step.cell)
    points = tuple(GRID.centre(cell) for cell in cells)
    if len(points) == 1:
        points = points * 2
    dash = (1.6, 1.2) if dashed else ()
    return Stroke(points, ROUTE_MM, colour, "print", dash_mm=dash, tag=tag)


def move_panel(name: str, variants: list[list[Step]]) -> Drawing:
    cells = [step.cell for steps in variants for step in steps]
    items: list[Item] = hexes(around(cells))
    ends: list[Item] = []
    for number, steps in enumerate(variants):
        way = "left" if number == 0 else "right"
        colour = BLACK if number == 0 else "#4d4d4d"
        items.append(route(steps, f"route-{name}-{way}", colour, dashed=number > 0))
        end = steps[-1]
        ends.append(arrow(end.cell, end.facing, colour, f"facing-end-{name}-{way}"))
    # arrows over the routes, so the start's facing stays visible
    items.append(arrow(START.cell, START.facing, START_GREY, f"facing-start-{name}"))
    return drawing(items, ends)


def cone_panel() -> Drawing:
    by_range = hexmode.cone(GRID, START)
    shown = set(_disc(START.cell, 1)).union(*by_range.values())
    items: list[Item] = []
    for reach, cells in by_range.items():
        for cell in cells:
            ring = tuple(GRID.corners(cell))
            items.append(Area((ring,), CONE_FILLS[reach], "print", tag=f"cone-{reach}"))
    items += hexes(shown)
    for reach, cells in by_range.items():
        for cell in cells:
            x, y = GRID.centre(cell)
            items.append(
                Label(
                    str(reach),
                    (x, y - TEXT_MM * 0.36),
                    TEXT_MM * 1.2,
                    anchor="middle",
                    bold=True,
                    tag="cone-range",
                )
            )
    items.append(arrow(START.cell, START.facing, START_GREY, "facing-start-cone"))
    return drawing(items)


CAPTIONS = {
    "move1": "Move 1: two hexes forward. Facing does not change.",
    "move2": "Move 2: one hex forward, turn 60° left or right, one hex forward. Ends turned 60°.",
    "move3": "Move 3: turn 60°, one hex forward, turn another 60° the same way. Ends turned 120°.",
    "cone": "Firing cone: range 1 to 3 in hexes, counting the target's hex, not the "
    "attacker's: 1, 3 and 5 hexes.",
}


def panel(name: str, diagram: Drawing, origin: tuple[float, float]) -> Drawing:
    """The diagram centred in its panel above its caption; origin is the panel's
    bottom-left corner."""
    width, height = PANEL_MM
    lines = wrap(CAPTIONS[name], width - 6, TEXT_MM)
    text_height = len(lines) * TEXT_MM * 1.35 + 2
    x0, y0, x1, y1 = diagram.bounds()
    cx = origin[0] + width / 2 - (x0 + x1) / 2
    cy = origin[1] + text_height + (height - text_height) / 2 - (y0 + y1) / 2
    placed = diagram.moved(cx, cy)
    labels = [
        Label(
            line,
            (origin[0] + 3, origin[1] + text_height - 2 - (i + 1) * TEXT_MM * 1.35 + 1.2),
            TEXT_MM,
            tag=f"caption-{name}",
        )
        for i, line in enumerate(lines)
    ]
    return placed + drawing(labels)


def card(p: SquadronLeaderParams) -> Piece:
    del p  # the card is drawn in its own scale; the rules fix everything on it
    width, height = PANEL_MM
    outline = box(0, 0, 2 * width, 2 * height + TITLE_BAND_MM)
    diagrams = {
        "move1": move_panel("move1", [hexmode.move_1(START)]),
        "move2": move_panel("move2", [hexmode.move_2(START, LEFT), hexmode.move_2(START, RIGHT)]),
        "move3": move_panel("move3", [hexmode.move_3(START, LEFT), hexmode.move_3(START, RIGHT)]),
        "cone": cone_panel(),
    }
    origins = {
        "move1": (0.0, height),
        "move2": (width, height),
        "move3": (0.0, 0.0),
        "cone": (width, 0.0),
    }
    picture = drawing(body(outline, "moves-card", fill="#ffffff"))
    divider = Stroke(((width, 2), (width, 2 * height - 2)), 0.2, HEX_LINE, "print", tag="divider")
    middle = Stroke(((2, height), (2 * width - 2, height)), 0.2, HEX_LINE, "print", tag="divider")
    title = Label(
        "Hex Grid Mode. Grey arrow: the plane at the start; black: at the end; dashed: "
        "turning right",
        (3, 2 * height + 4.2),
        TEXT_MM,
        tag="card-title",
    )
    picture = picture + drawing(divider, middle, title)
    for name, diagram in diagrams.items():
        picture = picture + panel(name, diagram, origins[name])
    return Piece("hex_moves_card", "Hex moves card", picture, laser=False)


def moves_sheet(p: SquadronLeaderParams) -> PieceSheet:
    return PieceSheet("hex-moves", "Hex moves card", (card(p),))

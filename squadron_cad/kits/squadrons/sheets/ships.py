"""Each player's ships: a base counter per ship and a Command / Hit Points tracker per ship.

The base is the 3D base's square and engraving (parts/ship_base.py): the four zone lines
on the diagonals, the Fixed line forward, the ship's number in the rear zone (a bar under
a 6 or a 9), the player's mark in both side zones and the peg socket's spot at the centre.
The tracker is the 3D tracker card's rows and numerals (the stat card component's layout)
on one rectangle easy to cut, with a tab in front carrying the ship's number and the
player's mark; a pencil or a paper clip on a row's outer edge marks its value.
"""

from __future__ import annotations

from typing import Any

from shapely.ops import unary_union

from squadron_cad.geometry.marks import mark_shape, player_mark
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import ship_base
from squadron_cad.kits.squadrons.parts.tracker import tracker_layout
from squadron_cad.kits.squadrons.sheets.style import (
    bar,
    body,
    circle,
    ink,
    player_fill,
    player_name,
    turned,
    words,
)
from squadron_cad.paper.drawing import Area, Drawing, Stroke, drawing, rings_of
from squadron_cad.paper.sheet import Piece, PieceSheet

SLOT_FILL = "#9a9a9a"  # the 3D card's slot between rows: printed, not cut
TAB_PAD_MM = 1.5  # between a tracker's tab's edges and its number and mark
TAB_GAP_MM = 2.5  # between the number and the mark
TAB_LINE = "#555555"


def _number(p: SquadronsParams, number: int, centre: tuple[float, float]) -> Drawing:
    """The ship number centred on `centre`, and the bar under a 6 or a 9."""
    b = p.base
    drawn = words(str(number), (0, 0), b.numeral_height_mm, p.text.stroke_mm, "ship-number")
    underline = ship_base.numeral_bar_box(p, number)
    if underline is not None:
        drawn += drawing(ink(bar(*underline), "ship-number-bar"))
    return drawn.moved(*centre)


def _mark_recesses(p: SquadronsParams, player: int, centres: list[tuple[Any, Any]]) -> Any:
    """The recess round each flush mark, as the 3D base cuts it (the mark's outline grown
    by MARK_FRAME_MM, less the mark): a laser engraves what the printer leaves low."""
    name, size = player_mark(p, player), float(p.base.mark_size_mm)
    shapes = [mark_shape(name, size, (float(x), float(y))) for x, y in centres]
    return unary_union(
        [shape.buffer(constants.MARK_FRAME_MM).difference(shape) for shape in shapes]
    )


def ship_base_piece(p: SquadronsParams, player: int, number: int) -> Piece:
    b = p.base
    half = float(b.size_mm) / 2
    lines = [
        turned(bar(start, -float(width) / 2, end, float(width) / 2), angle)
        for start, end, width, angle in ship_base.engraved_lines(p)
    ]
    items: list[Any] = [
        *body(bar(-half, -half, half, half), "ship-base", fill=player_fill(p, player)),
        *ink(unary_union(lines[:-1]), "zone-line"),
        *ink(lines[-1], "fixed-line"),
        *ink(_mark_recesses(p, player, ship_base.mark_centres(p)), "player-mark"),
    ]
    if b.peg_socket:
        items += ink(circle(float(b.socket_diameter_mm)), "peg-socket")
    number_drawn = _number(p, number, (-float(p.numeral_centre_mm), 0.0))
    return Piece(
        f"ship_base_p{player + 1}_{number}",
        f"Ship {number}",
        drawing(items) + number_drawn,
        new_row=number == 1,
    )


def tab_width_mm(p: SquadronsParams) -> float:
    """The tracker's tab: the widest ship number and the mark, side by side."""
    return TAB_PAD_MM * 2 + TAB_GAP_MM + float(p.numeral_width_mm) + float(p.base.mark_size_mm)


def tracker_piece(p: SquadronsParams, player: int, number: int) -> Piece:
    layout = tracker_layout(p)
    d = layout.card
    length, height = float(layout.length), float(layout.height)
    tab = tab_width_mm(p)
    items: list[Any] = body(bar(-tab, 0, length, height), "tracker", fill=player_fill(p, player))
    for row in range(1, layout.rows):  # the 3D card's slots between its rows
        slot = bar(0, float(layout.row_bottom(row)) + d.row_width_mm,
                   length, float(layout.row_bottom(row - 1)))  # fmt: skip
        items.append(Area(rings_of(slot), SLOT_FILL, "print", tag="tracker-slot"))
    items.append(
        Stroke(
            ((0.0, 0.0), (0.0, height)), 0.2, TAB_LINE, "print", round_caps=False, tag="tab-line"
        )
    )
    stroke = p.text.stroke_mm
    marks = Drawing()
    for row, label in enumerate(d.labels):
        y = float(layout.row_bottom(row) + layout.numeral_centre_u)
        marks += words(label, (d.label_width_mm / 2, y), d.numeral_height_mm, stroke, "row-label")
        for value in layout.values:
            at = (float(layout.value_x(value)), y)
            marks += words(str(value), at, d.numeral_height_mm, stroke, "row-value")
    number_x = -tab + TAB_PAD_MM + float(p.numeral_width_mm) / 2  # centred in its slot
    mark_x = -TAB_PAD_MM - float(p.base.mark_size_mm) / 2
    items += ink(_mark_recesses(p, player, [(mark_x, height / 2)]), "player-mark")
    return Piece(
        f"tracker_p{player + 1}_{number}",
        f"Tracker, ship {number}",
        drawing(items) + marks + _number(p, number, (number_x, height / 2)),
        new_row=number == 1,
    )


def squadron_sheet(p: SquadronsParams, player: int) -> PieceSheet:
    """One player's squadron: a base and a tracker per ship, on pages of their own."""
    ships = range(1, p.base.per_player + 1)
    pieces = (
        *(ship_base_piece(p, player, number) for number in ships),
        *(tracker_piece(p, player, number) for number in ships),
    )
    who = player_name(p, player)
    mark = player_mark(p, player)
    labels = " and ".join(tracker_layout(p).card.labels)
    return PieceSheet(
        f"squadron-{player + 1}",
        f"{who}: ship bases and trackers",
        pieces,
        notes=(
            f"{who}: every piece carries the {mark} mark. Glue the page onto card (about "
            "1 mm) and cut along the black lines.",
            f"Ship bases, {float(p.base.size_mm):g} mm: the diagonals part the front, left, "
            "rear and right zones (90 degrees each); the line from the centre is the front "
            "(the Fixed line). Trackers: one per ship, with its number; rows "
            f"{labels} are Command and Hit Points: mark each value with a pencil or slide a "
            "paper clip along the row's outer edge (the grey band is the 3D card's slot: no "
            "need to cut it).",
        ),
    )

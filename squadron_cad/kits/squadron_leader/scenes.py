"""Squadron Leader's preview scenes: a stack seated in the template's notch, and the table.

Scenes are lists of STLs placed and coloured; the engine draws them (outputs/previews.py)
beside a picture of each part and of the packed box.
"""

from __future__ import annotations

from pathlib import Path

from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.outputs.picture_colours import NEUTRAL, player_colours
from squadron_cad.outputs.previews import Placed, View, accent_height, translation

STACK_VIEW = "assembled_stack"
KIT_VIEW = "kit"


def scenes(params: SquadronLeaderParams, stl_dir: Path) -> list[View | None]:
    """The table and one player's stack (None where a part they show is not built)."""
    return [kit_view(stl_dir, params), stack_view(stl_dir, params)]


def stack_items(
    stl_dir: Path, params: SquadronLeaderParams, x: float, y: float, colour: str
) -> list[Placed]:
    """A plane on its altitude tokens, centred on (x, y): pegs seat, faces touch."""
    height = params.token.height_mm
    tokens = constants.ALTITUDE_TOKENS_PER_STACK
    altitude = stl_dir / "altitude_token.stl"
    items = [Placed(altitude, colour, translation(x, y, level * height)) for level in range(tokens)]
    plane = stl_dir / "plane_token.stl"
    on_top = translation(x, y, tokens * height)
    items.append(Placed(plane, colour, on_top, accent_height(plane, params)))
    return items


def seating_template(stl_dir: Path) -> Path | None:
    """The template a stack is shown on: the all-in-one one, else the straight one."""
    for name in ("template_all", "template_straight"):
        if (stl_dir / f"{name}.stl").is_file():
            return stl_dir / f"{name}.stl"
    return None


def stack_view(stl_dir: Path, params: SquadronLeaderParams) -> View | None:
    """Player 1's stack seated in the template's start notch (tokens stand on the table)."""
    template = seating_template(stl_dir)
    needed = [stl_dir / "plane_token.stl", stl_dir / "altitude_token.stl"]
    if template is None or not all(path.is_file() for path in needed):
        return None
    notch_x = -float(params.notch_offset_mm)
    colour = player_colours(params)[0][1]
    items = [Placed(template, NEUTRAL), *stack_items(stl_dir, params, notch_x, 0.0, colour)]
    caption = "One player's plane on its four altitude tokens, seated in the start notch"
    return View(STACK_VIEW, tuple(items), caption)


def kit_view(stl_dir: Path, params: SquadronLeaderParams, name: str = KIT_VIEW) -> View | None:
    """The table: stacks in the start notch and at the move ends, dials, the joined ruler."""
    template = stl_dir / "template_all.stl"
    if stack_view(stl_dir, params) is None or not template.is_file():
        return None
    colours = [colour for _name, colour in player_colours(params)]
    items = [Placed(template, NEUTRAL)]
    ends = [path.beyond_end(params.notch_offset_mm) for path in move_paths.paths(params).values()]
    spots = [(-float(params.notch_offset_mm), 0.0)] + [(float(e.x), float(e.y)) for e in ends]
    for (x, y), colour in zip(spots, colours, strict=False):
        items += stack_items(stl_dir, params, x, y, colour)
    width = params.token.width_mm
    card = stl_dir / "stat_dial_card.stl"
    if card.is_file():  # a row of dials behind the template
        items += [
            Placed(card, colour, translation(-1.8 * width + i * 1.8 * width, 2 * width, 0.0))
            for i, colour in enumerate(colours)
        ]
    caption = "The kit on the table: a stack in the start notch, one at the end of a move"
    return View(name, tuple(items + _joined_ruler(stl_dir, params)), caption)


def _joined_ruler(stl_dir: Path, params: SquadronLeaderParams) -> list[Placed]:
    """The ruler sections end to end in front: each tab sits in the next one's slot."""
    sections = [stl_dir / f"range_ruler_{i}.stl" for i in (1, 2, 3)]
    if not all(path.is_file() for path in sections):
        return []
    length = float(params.template_length_mm)
    start, y = -1.5 * params.token.width_mm, -1.2 * params.token.width_mm
    return [
        Placed(path, NEUTRAL, translation(start + i * length, y, 0.0))
        for i, path in enumerate(sections)
    ]

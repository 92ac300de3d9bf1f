"""The stat dial: the stat card component (squadron_cad.components.stat_card) with a
player's mark flush in the card's label column, and its clip.

With the defaults: Health, Defense, Attack and Manoeuvrability rows, values 1-4 as on the
reference stat wheel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import difference, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.stat_card import shape
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.marks import flush_mark, player_mark
from squadron_cad.kits.squadron_leader.mark_room import token_mark_mm
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign


def dial_layout(p: SquadronLeaderParams) -> DialLayout:
    """The card with the player's mark (frame included) between its first two labels,
    which keep checks.min_mark_clearance_mm from it."""
    mark = token_mark_mm(p) + 2 * p.marks.frame_mm
    return DialLayout(p.stat_dial, p.text, mark, p.checks.min_mark_clearance_mm)


def card_mark_centre(p: SquadronLeaderParams) -> tuple[Number, Number]:
    """The player's mark: in the label column, between the first two rows' labels."""
    return shape.card_mark_centre(dial_layout(p))


def build_card(design: SquadronLeaderDesign) -> OpenSCADObject:
    """The representative card (player 1's): what the kit's checks measure."""
    return build_card_for(design, 0)


def build_card_for(design: SquadronLeaderDesign, player: int) -> OpenSCADObject:
    """Player `player`'s card (0-based): their mark flush in the label column."""
    p = design.params
    x, y = card_mark_centre(p)
    mark = translate([x, y, p.stat_dial.card_thickness_mm])(
        flush_mark(player_mark(p, player), token_mark_mm(p), p.marks.frame_mm, p.text.depth_mm)
    )
    return difference()(shape.card(dial_layout(p)), mark)


def build_clip(design: SquadronLeaderDesign) -> OpenSCADObject:
    return shape.clip(dial_layout(design.params))

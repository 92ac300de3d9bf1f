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
from squadron_cad.geometry.marks import flush_mark, player_mark
from squadron_cad.kits.squadron_leader.geometry.dial import card_mark_centre, dial_layout
from squadron_cad.kits.squadron_leader.mark_room import token_mark_mm

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign


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

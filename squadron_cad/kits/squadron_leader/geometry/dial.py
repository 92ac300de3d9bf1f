"""The stat dial's layout: the stat card component's (squadron_cad.components.stat_card),
with room for the player's mark in its label column. Plain numbers, no shapes: the design,
the stowing and the paper sheets read it; parts.stat_dial builds the card from it.
"""

from __future__ import annotations

from squadron_cad.components.stat_card import shape
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.geometry.expr import Number
from squadron_cad.kits.squadron_leader.mark_room import token_mark_mm
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams


def dial_layout(p: SquadronLeaderParams) -> DialLayout:
    """The card with the player's mark (frame included) between its first two labels,
    which keep checks.min_mark_clearance_mm from it."""
    mark = token_mark_mm(p) + 2 * p.marks.frame_mm
    return DialLayout(p.stat_dial, p.text, mark, p.checks.min_mark_clearance_mm)


def card_mark_centre(p: SquadronLeaderParams) -> tuple[Number, Number]:
    """The player's mark: in the label column, between the first two rows' labels."""
    return shape.card_mark_centre(dial_layout(p))

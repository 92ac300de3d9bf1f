"""Squadron Leader's derived design: computed once from the resolved parameters.

Builders, checks and outputs all read the same object; the box layout (the tin-fit
solver's answer, the slowest derivation) is solved at most once per design.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.fit.layout import Layout
from squadron_cad.kit import Purchase
from squadron_cad.kits.squadron_leader.geometry.dial import dial_layout
from squadron_cad.kits.squadron_leader.geometry.lid import check_title
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing.tin_fit import solve


@dataclass(frozen=True, eq=False)
class SquadronLeaderDesign:
    params: SquadronLeaderParams

    @cached_property
    def layout(self) -> Layout:
        """Every piece in its pocket; refuses (InputError) a tin too small or a long title."""
        layout = solve(self.params)
        check_title(self.params)  # after the fit: a tin too small says so first
        return layout

    @cached_property
    def dial(self) -> DialLayout:
        return dial_layout(self.params)


def purchases(p: SquadronLeaderParams) -> list[Purchase]:
    """What a player buys rather than prints, for the BOM: the dice (params.dice), and the
    optional playmat."""
    dice = p.dice
    wanted = []
    colours = {colour: n for colour, n in dice.colours.items() if n > 0}
    if colours:
        mix = ", ".join(f"{n} {colour}" for colour, n in colours.items())
        detail = f"{dice.size_mm:g} mm d{dice.sides}: {mix}; the box has a pocket for them"
        wanted.append(Purchase("dice", sum(colours.values()), detail))
    playmat = "any mat or cloth to fly over; not needed to play"
    return [*wanted, Purchase("playmat (optional)", None, playmat)]

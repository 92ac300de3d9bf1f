"""The Space Planes kit's derived design: computed once from the resolved parameters.

The box holds the deck of cards with the joker gauge lying on it (beside it when the deck
is sleeved), the cubeships and the plane dice seated in their holders, stowed as
`stowing` lays them out, under the engine's tray lid; a container too small is refused
naming the shortfall.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from squadron_cad.fit import simple
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.kit import Purchase
from squadron_cad.kits.space_planes import stowing
from squadron_cad.kits.space_planes.constants import BOX, LID
from squadron_cad.kits.space_planes.params import SpacePlanesParams


@dataclass(frozen=True, eq=False)
class SpacePlanesDesign:
    params: SpacePlanesParams

    @cached_property
    def box(self) -> BoxShape:
        return simple.tray_shape(self.params.tin, self.params.box)

    @cached_property
    def layout(self) -> Layout:
        p = self.params
        return simple.stow_in_tray(p.tin, p.box, stowing.units(p), BOX, lid_part=LID)


def purchases(p: SpacePlanesParams) -> list[Purchase]:
    c = p.card
    bought = [
        Purchase("deck of playing cards", 1,
                 f"{c.deck_cards} cards with two jokers, {c.short_mm:g} x {c.long_mm:g} mm"),
        Purchase("d6", p.ships,
                 f"{p.holder.die_size_mm:g} mm six-sided dice: a plane die for each cubeship"),
    ]  # fmt: skip
    if c.sleeved:
        size = f"{c.sleeve_short_mm:g} x {c.sleeve_long_mm:g} mm"
        bought.append(Purchase("card sleeves", c.deck_cards, f"{size}, one per card"))
    return bought

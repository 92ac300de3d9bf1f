"""The Squadrons kit's derived design: computed once from the resolved parameters.

The box holds one player's squadron (bases, trackers and clips) and the shared pieces
(ruler sections, movement gauge, pivot guide, objective and entry markers), stowed as
`stowing` lays them out; a container too small is refused naming the shortfall.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.fit import simple
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.kit import Purchase
from squadron_cad.kits.squadrons import stowing
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts.tracker import tracker_layout


@dataclass(frozen=True, eq=False)
class SquadronsDesign:
    params: SquadronsParams

    @cached_property
    def dial(self) -> DialLayout:
        return tracker_layout(self.params)

    @cached_property
    def box(self) -> BoxShape:
        return simple.tray_shape(self.params.tin, self.params.box)

    @cached_property
    def layout(self) -> Layout:
        """Every piece of player 1's squadron and the shared pieces, in pockets."""
        b = self.params.box
        return simple.stow(
            self.box,
            stowing.units(self),
            clearance=b.pocket_clearance_mm,
            divider=b.divider_mm,
            box_part="box",
            lid_part=None,
        )


def purchases(p: SquadronsParams) -> list[Purchase]:
    return [
        Purchase(
            "flight pegs",
            p.base.per_player * p.players if p.base.peg_socket else 0,
            f"{p.base.socket_diameter_mm - 0.2:g} mm pegs (or rods) for the bases' sockets",
        )
    ]

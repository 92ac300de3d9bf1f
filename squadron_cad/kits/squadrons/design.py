"""The Squadrons kit's derived design: computed once from the resolved parameters.

Two kinds of box: the kit's box, fitted to the container (the tin), holds the table's
pieces (ruler sections, movement gauge, pivot guide, the markers the missions need, the
mission tracker); each player's ship box, sized to what it holds, keeps one squadron
(bases, tracker cards and clips, the Squadron Leader's star). So 8 players print the box
and 8 ship boxes. Both are stowed as `stowing` lays them out; a container too small is
refused naming the shortfall.
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
        """The table's pieces in the kit's box, in pockets."""
        b = self.params.box
        return simple.stow(
            self.box,
            stowing.table_units(self),
            clearance=b.pocket_clearance_mm,
            divider=b.divider_mm,
            box_part="box",
            lid_part=None,
        )

    @cached_property
    def ship_box(self) -> BoxShape:
        return stowing.ship_box_shape(self)

    @cached_property
    def ship_layout(self) -> Layout:
        """One player's squadron in their ship box, in pockets."""
        b = self.params.box
        return simple.stow(
            self.ship_box,
            stowing.ship_units(self, self.ship_box.usable_depth),
            clearance=b.pocket_clearance_mm,
            divider=b.divider_mm,
            box_part="ship_box",
            lid_part=None,
        )

    @property
    def layouts(self) -> tuple[Layout, ...]:
        """Every box the kit prints: the engine proves each one's fit."""
        return (self.layout, self.ship_layout)


def purchases(p: SquadronsParams) -> list[Purchase]:
    return [
        Purchase(
            "flight pegs",
            p.base.per_player * p.players if p.base.peg_socket else 0,
            f"{p.base.socket_diameter_mm - 0.2:g} mm pegs (or rods) for the bases' sockets",
        )
    ]

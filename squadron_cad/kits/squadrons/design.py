"""The Squadrons kit's derived design: computed once from the resolved parameters.

Two kinds of box, each the engine's tray with its lid, fitted to a container: the kit's
box (in `tin`) holds the table's pieces (ruler sections, movement gauge, pivot guide, the
objectives the missions need, the mission tracker); each player's ship box (in
`ship_tin`) keeps one squadron (bases, tracker cards and clips, the Squadron Leader's marker,
the player's entry markers). So 8 players print the box and 8 ship boxes. Both are stowed
as `stowing` lays them out; a container too small is refused naming the shortfall.
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
        """The table's pieces in the kit's box, in pockets, under its lid."""
        p = self.params
        units = stowing.table_units(self)
        layout = simple.stow_in_tray(p.tin, p.box, units, "box", "box_lid")
        return stowing.round_notches(self, layout)

    @cached_property
    def ship_box(self) -> BoxShape:
        return simple.tray_shape(self.params.ship_tin, self.params.box)

    @cached_property
    def ship_layout(self) -> Layout:
        """One player's squadron in their ship box, in pockets, under its lid."""
        p = self.params
        units = stowing.ship_units(self, self.ship_box.usable_depth)
        layout = simple.stow_in_tray(p.ship_tin, p.box, units, "ship_box", "ship_box_lid")
        return stowing.round_notches(self, layout)

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

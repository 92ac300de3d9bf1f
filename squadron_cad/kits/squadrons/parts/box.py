"""The boxes: the engine's tray (fit.tray) of each of this kit's layouts (fit.simple): the
kit's box of the table's pieces, and a player's ship box of one squadron."""

from __future__ import annotations

from typing import Any

from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.tray import pocket_tray


def build(design: Any) -> OpenSCADObject:
    return pocket_tray(design.layout)


def build_ship_box(design: Any) -> OpenSCADObject:
    return pocket_tray(design.ship_layout)

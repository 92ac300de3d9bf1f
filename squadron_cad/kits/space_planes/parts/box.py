"""The box and its lid: the engine's tray (fit.tray) of this kit's layout (fit.simple), and
the tray's lid (fit.tray_lid), whose lip laps the box's tongue."""

from __future__ import annotations

from typing import Any

from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.tray import pocket_tray
from squadron_cad.fit.tray_lid import tray_lid


def build(design: Any) -> OpenSCADObject:
    return pocket_tray(design.layout, design.params.box.lid)


def build_lid(design: Any) -> OpenSCADObject:
    return tray_lid(design.layout.box, design.params.box.lid)

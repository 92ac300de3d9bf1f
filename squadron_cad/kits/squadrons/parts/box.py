"""The box: the engine's tray (fit.tray) of this kit's layout (fit.simple)."""

from __future__ import annotations

from typing import Any

from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.tray import pocket_tray


def build(design: Any) -> OpenSCADObject:
    return pocket_tray(design.layout)

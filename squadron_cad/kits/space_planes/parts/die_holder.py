"""The plane-die holder: a square tray the d6 sits in, its value up, that travels beside the
cube. The wall holds the die's lower part (holder.rim_height_mm), the rest stands proud to
be read and picked up.

Frame: [0, outer] x [0, outer], bed at z = 0; the die's pocket is centred.
"""

from __future__ import annotations

from typing import Any

from solid2 import cube, difference, translate
from solid2.core.object_base import OpenSCADObject


def build(design: Any) -> OpenSCADObject:
    h = design.params.holder
    pocket = h.die_size_mm + 2 * h.clearance_mm
    outer = pocket + 2 * h.wall_mm
    body = cube([outer, outer, h.floor_mm + h.rim_height_mm])
    cut = translate([h.wall_mm, h.wall_mm, h.floor_mm])(cube([pocket, pocket, h.rim_height_mm + 1]))
    return difference()(body, cut)

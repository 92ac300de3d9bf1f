"""The box: a rounded block fitted to the container, a pocket cut for each unit of the
layout (fit.simple), from the floor up."""

from __future__ import annotations

from typing import Any

from solid2 import cube, difference, linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle


def build(design: Any) -> OpenSCADObject:
    box, layout = design.box, design.layout
    body = linear_extrude(height=box.height)(rounded_rectangle(box.length, box.width, box.radius))
    cuts = []
    for pocket in layout.pockets:
        x0, y0, x1, y1 = pocket.bounds_2d
        cuts.append(
            translate([x0, y0, pocket.z_bottom])(
                cube([x1 - x0, y1 - y0, box.height - pocket.z_bottom + EPSILON_MM])
            )
        )
    return difference()(body, *cuts)

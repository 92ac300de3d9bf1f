"""A tray: a rounded block fitted to the container, a pocket cut for each unit of a layout
(fit.simple), straight down from the top to the pocket's floor: prints floor down with no
support."""

from __future__ import annotations

from solid2 import cube, difference, linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.layout import Layout
from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle


def pocket_tray(layout: Layout) -> OpenSCADObject:
    box = layout.box
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

"""Small shared helpers of this kit's parts: engraving 2D shapes into a top face."""

from __future__ import annotations

from solid2 import difference, linear_extrude, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM


def engrave(body: OpenSCADObject, top: Number, cuts: list[tuple[Number, list]]) -> OpenSCADObject:
    """Cut each (depth, 2D shapes) group into the top face at z = top."""
    solids = [
        translate([0, 0, top - depth])(linear_extrude(height=depth + EPSILON_MM)(union()(*shapes)))
        for depth, shapes in cuts
        if shapes
    ]
    return difference()(body, *solids)


def bar(x0: Number, y0: Number, x1: Number, y1: Number) -> OpenSCADObject:
    """An axis-aligned rectangle from (x0, y0) to (x1, y1)."""
    return translate([x0, y0])(square([x1 - x0, y1 - y0]))

"""Small shared helpers of this kit's parts."""

from __future__ import annotations

from solid2 import square, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number


def bar(x0: Number, y0: Number, x1: Number, y1: Number) -> OpenSCADObject:
    """An axis-aligned rectangle with corners (x0, y0) and (x1, y1), in either order."""
    (x0, x1), (y0, y1) = sorted((x0, x1)), sorted((y0, y1))
    return translate([x0, y0])(square([x1 - x0, y1 - y0]))

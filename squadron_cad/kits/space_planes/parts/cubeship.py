"""The cubeship: a cube printed on a face, a shallow panel recessed in each of its six faces
for a trimmed paper footprint, and an orientation key: each panel has one corner cut off,
always the corner towards the cube's key corner (the corner at +x +y +z), so a footprint
trimmed the same way goes in one way only. The ship's number is engraved in that corner of
the top face, outside the panel.

Edges and corners are rounded with cube.corner_radius_mm (small: the rules' moves are
corner to corner). The edges on the bed are cut at 45 degrees where the rounding would
overhang, tangent to it, so the cube prints without support.
"""

from __future__ import annotations

from typing import Any

from solid2 import (
    cube,
    cylinder,
    difference,
    hull,
    linear_extrude,
    multmatrix,
    polygon,
    sphere,
    translate,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text

FACETS = 24
ROOT2_LESS_1 = 2**0.5 - 1

# Each face: its centre (in units of the side), then its in-face axes u and v and its
# outward normal w, with u x v = w so no transform mirrors. u and v point towards the key
# corner, so the cut-off corner of every panel is the one nearest (side, side, side).
Face = tuple[tuple[float, float, float], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
FACES: tuple[Face, ...] = (
    ((0.5, 0.5, 1.0), (1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((0.5, 0.5, 0.0), (0, 1, 0), (1, 0, 0), (0, 0, -1)),
    ((1.0, 0.5, 0.5), (0, 1, 0), (0, 0, 1), (1, 0, 0)),
    ((0.0, 0.5, 0.5), (0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    ((0.5, 1.0, 0.5), (0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0.5, 0.0, 0.5), (1, 0, 0), (0, 0, 1), (0, -1, 0)),
)


def panel_outline(panel: Number, key: Number) -> OpenSCADObject:
    """The panel: a square centred on the origin, its (+u, +v) corner cut off by `key`."""
    h = panel / 2
    return polygon([[-h, -h], [h, -h], [h, h - key], [h - key, h], [-h, h]])


def panel_points(panel: float, key: float) -> list[tuple[float, float]]:
    """The same outline as numbers (for the footprint sheet and the checks)."""
    h = panel / 2
    return [(-h, -h), (h, -h), (h, h - key), (h - key, h), (-h, h)]


def rounded_cube(side: Number, radius: Number) -> OpenSCADObject:
    """A cube [0, side]^3, edges rounded; the bed's edges chamfered at 45 degrees."""
    if radius <= 0:
        return cube([side, side, side])
    corners = []
    far = side - radius
    foot = radius * ROOT2_LESS_1  # the 45-degree tangent meets the bed this far out
    for x in (radius, far):
        for y in (radius, far):
            corners.append(translate([x, y, far])(sphere(r=radius, _fn=FACETS)))
            corners.append(translate([x, y, radius])(sphere(r=radius, _fn=FACETS)))
            corners.append(translate([x, y, 0])(cylinder(r=foot, h=EPSILON_MM, _fn=FACETS)))
    return hull()(*corners)


def _recess(side: Number, panel: Number, key: Number, depth: Number, face: Any) -> Any:
    centre, u, v, w = face
    origin = [side * c for c in centre]
    matrix = [[u[i], v[i], w[i], origin[i]] for i in range(3)] + [[0, 0, 0, 1]]
    cut = translate([0, 0, -depth])(linear_extrude(height=depth + 1)(panel_outline(panel, key)))
    return multmatrix(m=matrix)(cut)


def build_cube(design: Any, number: int | None) -> OpenSCADObject:
    p = design.params
    c = p.cube
    side = c.side_mm
    cuts = [_recess(side, c.panel_mm, c.key_mm, c.panel_depth_mm, face) for face in FACES]
    if number is not None:
        depth, at = p.text.depth_mm, side - p.numeral_centre_mm
        digit = centred_text(str(number), c.numeral_height_mm, p.text.stroke_mm)
        cuts.append(translate([at, at, side - depth])(linear_extrude(height=depth + 1)(digit)))
    return difference()(rounded_cube(side, c.corner_radius_mm), *cuts)


def builder(number: int) -> Any:
    def build(design: Any) -> OpenSCADObject:
        return build_cube(design, number if design.params.cube.numbered else None)

    return build

"""The cubeship: a cube printed on a face, each face recessed for a printed footprint that
covers it (the rules: "stick them to your cubes, trim to fit, maintain orientation"): the
recess is the face less its rounded edge and a rim, `cube.recess_depth_mm` deep.

The orientation key: in each recess's key corner (the corner towards the cube's key
corner, +x +y +z) a key stands up to the face, and the footprint has that corner cut off
(the sheet draws it so): it goes in one way only. On the top face the key is the player's
mark (a second-colour volume on the plates), elsewhere a square as wide across its corners
(its sides level or upright on every face, so it prints without overhang).

Edges and corners are rounded with cube.corner_radius_mm (small: the rules' moves are
corner to corner). The edges on the bed are cut at 45 degrees where the rounding would
overhang, tangent to it, so the cube prints without support; the bed face's recess is
bridged (checks.max_bridge_mm).
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
    sphere,
    square,
    translate,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.marks import mark_2d, mark_shape, player_mark
from squadron_cad.geometry.shapes import EPSILON_MM
from squadron_cad.kits.space_planes.params import KEY_GAP_MM

FACETS = 24
ROOT2_LESS_1 = 2**0.5 - 1
TOP = 0  # FACES[TOP]: the face printed up, where the player's mark is the key

# Each face: its centre (in units of the side), then its in-face axes u and v and its
# outward normal w, with u x v = w so no transform mirrors. u and v point towards the key
# corner, so every recess's key corner is the one nearest (side, side, side).
Face = tuple[tuple[float, float, float], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
FACES: tuple[Face, ...] = (
    ((0.5, 0.5, 1.0), (1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((0.5, 0.5, 0.0), (0, 1, 0), (1, 0, 0), (0, 0, -1)),
    ((1.0, 0.5, 0.5), (0, 1, 0), (0, 0, 1), (1, 0, 0)),
    ((0.0, 0.5, 0.5), (0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    ((0.5, 1.0, 0.5), (0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0.5, 0.0, 0.5), (1, 0, 0), (0, 0, 1), (0, -1, 0)),
)


def key_offset(c: Any) -> float:
    """The key's centre from the face's centre, along u and along v."""
    return c.footprint_mm / 2 - c.key_centre_mm


def footprint_points(footprint: float, cut: float) -> list[tuple[float, float]]:
    """The printed footprint, centred: the recess's square with its key corner (+u, +v) cut
    off by `cut` (for the sheet and the checks)."""
    h = footprint / 2
    return [(-h, -h), (h, -h), (h, h - cut), (h - cut, h), (-h, h)]


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


def _key(c: Any, mark: str | None) -> OpenSCADObject:
    """The key in face coordinates: the mark, or the square, at the key corner."""
    at = key_offset(c)
    if mark is not None:
        return translate([at, at])(mark_2d(mark, c.mark_mm))  # type: ignore[arg-type]
    q = c.key_square_mm
    return translate([at - q / 2, at - q / 2])(square([q, q]))


def _recess(c: Any, face: Face, mark: str | None) -> OpenSCADObject:
    centre, u, v, w = face
    side, depth = c.side_mm, c.recess_depth_mm
    origin = [side * k for k in centre]
    matrix = [[u[i], v[i], w[i], origin[i]] for i in range(3)] + [[0, 0, 0, 1]]
    outline = difference()(square([c.footprint_mm, c.footprint_mm], center=True), _key(c, mark))
    cut = translate([0, 0, -depth])(linear_extrude(height=depth + 1)(outline))
    return multmatrix(m=matrix)(cut)


def build_cube(design: Any, player: int) -> OpenSCADObject:
    """Player `player`'s cubeship (0-based): their mark is the top face's key."""
    p = design.params
    c = p.cube
    mark = player_mark(p, player)
    cuts = [_recess(c, face, mark if index == TOP else None) for index, face in enumerate(FACES)]
    return difference()(rounded_cube(c.side_mm, c.corner_radius_mm), *cuts)


def build(design: Any) -> OpenSCADObject:
    """The representative cubeship (player 1's), read by the checks and the preview."""
    return build_cube(design, 0)


def mark_outline(p: Any, player: int) -> list[list[tuple[float, float]]]:
    """The top face's mark as modelled (x, y), grown halfway across the slot round it: the
    marks' second-colour volume keeps to it (the rim around stays the body's colour)."""
    c = p.cube
    at = c.side_mm / 2 + key_offset(c)
    shape = mark_shape(player_mark(p, player), c.mark_mm, (at, at))
    grown = shape.buffer(KEY_GAP_MM / 2)
    return [[(float(x), float(y)) for x, y in grown.exterior.coords[:-1]]]

"""Shared shapes as solidpython2 objects: octagons, arcs, chevrons, our stroke text."""

from __future__ import annotations

from solid2 import circle, cylinder, polyhedron, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.constants import OCTAGON_CORNER_OFFSET_DEG
from squadron_cad.geometry import scad_lib as lib
from squadron_cad.geometry.expr import Number, cos_deg
from squadron_cad.geometry.glyphs import layout_text

EPSILON_MM = 0.01  # overlap that keeps booleans free of coincident faces


def octagon(width: Number) -> OpenSCADObject:
    return lib.ModuleCall(lib.OCTAGON, width=width)


def octagon_across_flats(across_flats: Number) -> OpenSCADObject:
    return octagon(across_flats / cos_deg(OCTAGON_CORNER_OFFSET_DEG))


def chamfered_prism(height: Number, chamfer: Number, shape: OpenSCADObject) -> OpenSCADObject:
    return lib.ModuleCall(lib.CHAMFERED_PRISM, height=height, chamfer=chamfer)(shape)


def ring_segment(
    r_inner: Number, r_outer: Number, start_deg: Number, end_deg: Number
) -> OpenSCADObject:
    return lib.ModuleCall(
        lib.RING_SEGMENT, r_inner=r_inner, r_outer=r_outer, start_deg=start_deg, end_deg=end_deg
    )


def arc_line(radius: Number, width: Number, start_deg: Number, end_deg: Number) -> OpenSCADObject:
    return lib.ModuleCall(lib.ARC_LINE, r=radius, width=width, start_deg=start_deg, end_deg=end_deg)


def rounded_rectangle(length: Number, width: Number, radius: Number) -> OpenSCADObject:
    return lib.ModuleCall(lib.ROUNDED_RECTANGLE, size=[length, width], radius=radius)


def socket(
    diameter: Number, tip_diameter: Number, depth: Number, chamfer: Number, facets: int
) -> OpenSCADObject:
    return lib.ModuleCall(
        lib.SOCKET,
        diameter=diameter,
        tip_diameter=tip_diameter,
        depth=depth,
        chamfer=chamfer,
        facets=facets,
    )


def tapered_peg(
    diameter: Number, tip_diameter: Number, height: Number, facets: int
) -> OpenSCADObject:
    """A peg standing on z = 0, sunk by EPSILON so its union with the body is clean."""
    return translate([0, 0, -EPSILON_MM])(
        cylinder(h=height + EPSILON_MM, d1=diameter, d2=tip_diameter, _fn=facets)
    )


def chevron(width: Number, length: Number, stroke: Number) -> OpenSCADObject:
    """A V pointing +x, `width` across and `length` along, centred on the origin.

    Drawn as two strokes of the given width with rounded ends, like our letters.
    """
    tip, back = length / 2 - stroke / 2, -length / 2 + stroke / 2
    arm = width / 2 - stroke / 2
    return lib.ModuleCall(
        lib.STROKES, paths=[[[back, arm], [tip, 0], [back, -arm]]], height=1, width=stroke
    )


def text(text: str, height: Number, stroke: Number) -> tuple[OpenSCADObject, Number]:
    """Our stroke text with its baseline on y = 0 and its left ink edge at x = 0.

    Returns the 2D object and its width in mm (ink extent, strokes included).
    """
    strokes, width_em = layout_text(text)
    paths = [[[round(x, 4), round(y, 4)] for x, y in stroke_path] for stroke_path in strokes]
    shape = translate([stroke / 2, stroke / 2])(
        lib.ModuleCall(lib.STROKES, paths=paths, height=height - stroke, width=stroke)
    )
    return shape, width_em * (height - stroke) + stroke


def centred_text(text_value: str, height: Number, stroke: Number) -> OpenSCADObject:
    """Stroke text centred on the origin (its ink box, stroke ends included)."""
    shape, width = text(text_value, height, stroke)
    return translate([-width / 2, -height / 2])(shape)


def dot(diameter: Number, facets: int = 16) -> OpenSCADObject:
    return circle(d=diameter, _fn=facets)


def v_prism(length: Number, half_base: Number, height: Number) -> OpenSCADObject:
    """Triangular prism along +x: base on z = 0 across y = +-half_base, apex at z = height."""
    points = [
        [0, -half_base, 0],
        [0, half_base, 0],
        [0, 0, height],
        [length, -half_base, 0],
        [length, half_base, 0],
        [length, 0, height],
    ]
    # Clockwise seen from outside, OpenSCAD's rule: CGAL mends a reversed polyhedron
    # silently, the Manifold backend keeps it inside out.
    faces = [[0, 1, 2], [3, 5, 4], [0, 3, 4, 1], [1, 4, 5, 2], [0, 2, 5, 3]]
    return polyhedron(points=points, faces=faces)

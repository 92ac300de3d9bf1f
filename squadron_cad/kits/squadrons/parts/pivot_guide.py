"""The pivot guide: a cup, an annular sector round the base's centre that the base's two
front corners rest against. Its inner arc runs half a base diagonal and the clearance from
the centre, so pushing the guide against both front corners sets it; while the base turns
about its centre its corners stay on a circle inside that arc: it never touches the guide,
at any angle. Engraved: two rays at 45 degrees either side of the forward axis (where the
front corners sit before the pivot; after a 45-degree pivot the base's Fixed line points
along one of them), a centre mark on the forward axis (after the most a Vehicle may pivot
in one action, the opposite front corner has reached it), 45 beside each ray, and the
Advance's 180-degree pivot (a U-turn arrow and 180).

Frame: the base's centre at the origin, forward along +x; the cup spans CUP_SPAN_DEG either
side of +x, from the inner arc (radius `pivot_cup_radius_mm`) to `pivot.radius_mm`; bed at
z = 0.
"""

from __future__ import annotations

from typing import Any

from solid2 import linear_extrude, polygon, rotate, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import cos_deg, sin_deg
from squadron_cad.geometry.shapes import arc_line, centred_text
from squadron_cad.kits.squadrons import constants as C
from squadron_cad.kits.squadrons.parts.common import bar, engrave

CUP_SPAN_DEG = 65  # the cup's reach either side of the forward axis: past the corners at 45
ARC_STEP_DEG = 2.5  # facet of both arcs; CUP_SPAN_DEG and the 45-degree limit are multiples
CENTRE_MARK_MM = 12  # length of the mark on the forward axis (the rays run the cup's depth)


def _arc(radius: Any, start: float, end: float) -> list[list[Any]]:
    """Vertices on a circle from start to end degrees, one every ARC_STEP_DEG."""
    steps = round(abs(end - start) / ARC_STEP_DEG)
    angles = [start + (end - start) * k / steps for k in range(steps + 1)]
    return [[radius * cos_deg(a), radius * sin_deg(a)] for a in angles]


def outline_points(inner: Any, radius: Any) -> list[list[Any]]:
    """The cup: the outer arc on `radius`, then the inner arc drawn round `inner`.

    The inner arc's facets are tangent to the circle of radius `inner` (their vertices sit
    just outside it), one facet touching it at every multiple of ARC_STEP_DEG: the front
    corners' rays at 45 degrees among them. So no part of the cup comes nearer the centre
    than `inner`, and the gap at a front corner is exactly the clearance.
    """
    span = CUP_SPAN_DEG
    outer = _arc(radius, -span, span)
    half = ARC_STEP_DEG / 2
    steps = round(2 * span / ARC_STEP_DEG)
    corner = inner / cos_deg(half)  # a vertex between two tangent points
    between = [
        [corner * cos_deg(a), corner * sin_deg(a)]
        for a in (span - half - ARC_STEP_DEG * k for k in range(steps))
    ]
    ends = [[inner * cos_deg(a), inner * sin_deg(a)] for a in (span, -span)]
    return [*outer, ends[0], *between, ends[1]]


def build(design: Any) -> OpenSCADObject:
    p = design.params
    g = p.pivot
    inner, radius = p.pivot_cup_radius_mm, g.radius_mm
    body = linear_extrude(height=g.thickness_mm)(polygon(outline_points(inner, radius)))
    w = g.line_width_mm
    start = inner + 1
    limit = C.PIVOT_LIMIT_DEG
    lines = [
        *(rotate([0, 0, side * limit])(bar(start, -w / 2, radius - 2, w / 2)) for side in (1, -1)),
        bar(start, -w / 2, start + CENTRE_MARK_MM, w / 2),  # the centre mark: the limit
    ]
    h = g.numeral_height_mm
    mid = (inner + radius) / 2
    # 45 beside each ray, on its outer side (towards the cup's ends), reading along it.
    marks = [
        rotate([0, 0, side * limit])(
            translate([mid, side * (h / 2 + 2.5)])(centred_text("45", h, p.text.stroke_mm))
        )
        for side in (1, -1)
    ]
    # The Advance between the centre mark and the -45 ray, reading outward along the
    # bisector: a U-turn (half circle and arrow head) and 180, smaller where the band is
    # too narrow for them.
    h = p.advance_numeral_height_mm
    u_r = h * 0.7
    u_x = inner + 4 + u_r
    advance = [
        translate([u_x, 0])(arc_line(u_r, w, 90, 270)),
        translate([u_x, u_r])(polygon([[0, -w * 1.8], [w * 2.2, 0], [0, w * 1.8]])),
        translate([u_x + u_r + 3 + h, 0])(centred_text("180", h, p.text.stroke_mm)),
    ]
    marks.append(rotate([0, 0, -limit / 2])(*advance))
    depth = p.text.depth_mm
    return engrave(body, g.thickness_mm, [(depth, lines), (depth, marks)])

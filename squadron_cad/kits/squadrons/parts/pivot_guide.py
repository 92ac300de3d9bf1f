"""The pivot guide: a wedge laid against a base's front edge whose two long edges run
through the base's centre at 45 degrees either side of the forward axis, the most a
Vehicle may pivot in one action. Engraved: the forward axis, the pivot's arc, 45 at both
limits, and the Advance's 180-degree pivot (a U-turn arrow and 180).

Frame: the base's centre at the origin, forward along +x; the guide's notch edge (where
the base's front edge rests) at x = half a base plus the clearance; bed at z = 0.
"""

from __future__ import annotations

from typing import Any

from solid2 import linear_extrude, polygon, rotate, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import cos_deg, sin_deg
from squadron_cad.geometry.shapes import arc_line, centred_text
from squadron_cad.kits.squadrons import constants as C
from squadron_cad.kits.squadrons.parts.common import bar, engrave

ARC_STEPS = 36  # facets of the outer arc (even: one vertex on the forward axis)


def outline_points(notch: Any, radius: Any) -> list[list[Any]]:
    """The wedge: the notch edge at x = notch, the 45-degree edges, the outer arc."""
    limit = C.PIVOT_LIMIT_DEG
    arc = [
        [radius * cos_deg(a), radius * sin_deg(a)]
        for a in (-limit + 2 * limit * k / ARC_STEPS for k in range(ARC_STEPS + 1))
    ]
    return [[notch, -notch], *arc, [notch, notch]]


def build(design: Any) -> OpenSCADObject:
    p = design.params
    g = p.pivot
    notch, radius = p.pivot_notch_mm, g.radius_mm
    body = linear_extrude(height=g.thickness_mm)(polygon(outline_points(notch, radius)))
    w = g.line_width_mm
    inner = notch + 2
    lines = [
        bar(inner, -w / 2, radius - 2, w / 2),  # the forward axis
        arc_line(radius - 6, w, -C.PIVOT_LIMIT_DEG + 8, C.PIVOT_LIMIT_DEG - 8),
    ]
    h = g.numeral_height_mm
    mid = (notch + radius) / 2
    # 45 along each limit, turned to read along the edge, set in from it.
    marks = [
        rotate([0, 0, side * C.PIVOT_LIMIT_DEG])(
            translate([mid + 4, -side * (h / 2 + 2.5)])(centred_text("45", h, p.text.stroke_mm))
        )
        for side in (1, -1)
    ]
    # The Advance: a U-turn (half circle and arrow head) beside 180.
    u_r = h * 0.7
    u_x, u_y = notch + 4 + u_r, -(u_r + 1.8 * w + 1.5)
    marks.append(translate([u_x, u_y])(arc_line(u_r, w, 90, 270)))
    marks.append(translate([u_x, u_y + u_r])(polygon([[0, -w * 1.8], [w * 2.2, 0], [0, w * 1.8]])))
    marks.append(translate([u_x + u_r + 3 + h, u_y])(centred_text("180", h, p.text.stroke_mm)))
    depth = p.text.depth_mm
    return engrave(body, g.thickness_mm, [(depth, lines), (depth, marks)])

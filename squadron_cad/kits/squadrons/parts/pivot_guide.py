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

from dataclasses import dataclass
from typing import Any

from solid2 import linear_extrude, polygon, rotate, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import cos_deg, sin_deg
from squadron_cad.geometry.shapes import arc_line, centred_text
from squadron_cad.kits.squadrons import constants
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


def guide_lines(p: Any) -> list[tuple[float, Any, Any]]:
    """(angle, from radius, to radius) of the engraved bars: the two rays at the pivot
    limit, running the cup's depth, and the centre mark on the forward axis (the limit)."""
    inner, radius = p.pivot_cup_radius_mm, p.pivot.radius_mm
    start = inner + 1
    limit = constants.PIVOT_LIMIT_DEG
    rays = [(side * limit, start, radius - 2) for side in (1, -1)]
    return [*rays, (0, start, start + CENTRE_MARK_MM)]


def limit_numerals(p: Any) -> list[tuple[float, tuple[Any, Any]]]:
    """(turn, centre before the turn) of the 45 beside each ray, on its outer side (towards
    the cup's ends), reading along it."""
    h = p.pivot.numeral_height_mm
    mid = (p.pivot_cup_radius_mm + p.pivot.radius_mm) / 2
    return [(side * constants.PIVOT_LIMIT_DEG, (mid, side * (h / 2 + 2.5))) for side in (1, -1)]


@dataclass(frozen=True)
class AdvanceMark:
    """The Advance's U-turn and 180, laid out along +x, then turned by `turn_deg`."""

    turn_deg: float
    u_centre: tuple[Any, Any]
    u_radius: Any
    arrow_at: tuple[Any, Any]  # the arrow head's base centre, at the half circle's top end
    arrow: list[list[Any]]  # the arrow head, about arrow_at
    numeral_centre: tuple[Any, Any]
    numeral_height: Any


def advance_mark(p: Any) -> AdvanceMark:
    """Between the centre mark and the -45 ray, reading outward along the bisector; smaller
    where the band is too narrow (p.advance_numeral_height_mm)."""
    w = p.pivot.line_width_mm
    h = p.advance_numeral_height_mm
    u_r = h * 0.7
    u_x = p.pivot_cup_radius_mm + 4 + u_r
    return AdvanceMark(
        -constants.PIVOT_LIMIT_DEG / 2,
        (u_x, 0),
        u_r,
        (u_x, u_r),
        [[0, -w * 1.8], [w * 2.2, 0], [0, w * 1.8]],
        (u_x + u_r + 3 + h, 0),
        h,
    )


def _bar(angle: float, start: Any, end: Any, width: Any) -> OpenSCADObject:
    line = bar(start, -width / 2, end, width / 2)
    return rotate([0, 0, angle])(line) if angle else line  # the forward one as modelled


def build(design: Any) -> OpenSCADObject:
    p = design.params
    g = p.pivot
    inner, radius = p.pivot_cup_radius_mm, g.radius_mm
    body = linear_extrude(height=g.thickness_mm)(polygon(outline_points(inner, radius)))
    w = g.line_width_mm
    lines = [_bar(angle, start, end, w) for angle, start, end in guide_lines(p)]
    h = g.numeral_height_mm
    marks = [
        rotate([0, 0, turn])(translate(list(at))(centred_text("45", h, p.text.stroke_mm)))
        for turn, at in limit_numerals(p)
    ]
    a = advance_mark(p)
    advance = [
        translate(list(a.u_centre))(arc_line(a.u_radius, w, 90, 270)),
        translate(list(a.arrow_at))(polygon(a.arrow)),
        translate(list(a.numeral_centre))(centred_text("180", a.numeral_height, p.text.stroke_mm)),
    ]
    marks.append(rotate([0, 0, a.turn_deg])(*advance))
    depth = p.text.depth_mm
    return engrave(body, g.thickness_mm, [(depth, lines), (depth, marks)])

"""The flat parts' outlines in 2D (shapely), from the same code that places the 3D parts.

Every size and position comes from the shared sources the 3D builders read: the move
paths (geometry/move_paths.py: radii, poses, notch offset, chevron poses), the all-in-one
template's chevron centres, the ruler's joint points and the stat dial's layout. The few
OpenSCAD modules they call are drawn here with the same definitions: the octagon
(`circle(d, $fn=8)` turned 22.5 deg), the ring segment, our stroke font, `offset(delta)`
as a mitred buffer. Arcs are drawn true here; OpenSCAD facets them (at most 0.04 mm
inside the circle at final quality).
"""

from __future__ import annotations

import math

from shapely import affinity
from shapely.geometry import LineString, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from squadron_cad.components.ruler_joint.shape import tab_points
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.geometry.dial import dial_layout
from squadron_cad.kits.squadron_leader.geometry.icons import silhouette_union
from squadron_cad.kits.squadron_leader.geometry.move_paths import MovePath, Pose
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import range_ruler, template_all
from squadron_cad.paper.drawing import arc_points
from squadron_cad.paper.fonts import stroke_text_lines

MITRE = 2  # shapely's join_style for OpenSCAD's offset(delta=...)


def placed(shape: BaseGeometry, pose: Pose) -> BaseGeometry:
    turned = affinity.rotate(shape, float(pose.heading_deg), origin=(0, 0))
    return affinity.translate(turned, float(pose.x), float(pose.y))


def octagon(width: float) -> Polygon:
    """The token's octagon, `width` across the corners, flats facing the axes."""
    radius = width / 2
    return Polygon(
        [
            (
                radius * math.cos(math.radians(constants.OCTAGON_CORNER_OFFSET_DEG + 45 * i)),
                radius * math.sin(math.radians(constants.OCTAGON_CORNER_OFFSET_DEG + 45 * i)),
            )
            for i in range(constants.OCTAGON_SIDES)
        ]
    )


def ring_segment(r_inner: float, r_outer: float, start_deg: float, end_deg: float) -> Polygon:
    outer = arc_points((0, 0), r_outer, start_deg, end_deg)
    inner = arc_points((0, 0), r_inner, start_deg, end_deg)
    return Polygon(outer + inner[::-1])


def path_outline(path: MovePath) -> Polygon:
    """A move path's band: MovePath.outline() without OpenSCAD."""
    if not path.is_curved:
        return box(0, -float(path.width) / 2, float(path.straight_length), float(path.width) / 2)
    band = ring_segment(
        float(path.inner_radius),
        float(path.inner_radius + path.width),
        -90,
        -90 + float(path.turn_deg),
    )
    return affinity.translate(band, 0, float(path.centre_radius))


def notch(p: SquadronLeaderParams) -> BaseGeometry:
    shape = octagon(p.token.width_mm)
    clearance = p.templates.notch_clearance_mm
    return shape.buffer(clearance, join_style=MITRE) if clearance else shape


def start_notch(p: SquadronLeaderParams) -> BaseGeometry:
    return placed(notch(p), Pose(-float(p.notch_offset_mm), 0, 0))


def end_notch(p: SquadronLeaderParams, path: MovePath) -> BaseGeometry:
    return placed(notch(p), path.beyond_end(float(p.notch_offset_mm)))


def strokes_shape(lines: list[list[tuple[float, float]]], width: float) -> BaseGeometry:
    """Round-capped strokes as one region (OpenSCAD hulls octagons; the caps differ by
    under 4 % of the stroke width)."""
    return unary_union([LineString(line).buffer(width / 2, quad_segs=8) for line in lines])


def chevron_lines(p: SquadronLeaderParams) -> list[list[tuple[float, float]]]:
    """shapes.chevron's centre line: a V pointing +x, centred on the origin."""
    t = p.templates
    tip, back = (
        t.chevron_length_mm / 2 - t.chevron_stroke_mm / 2,
        -t.chevron_length_mm / 2 + (t.chevron_stroke_mm / 2),
    )
    arm = t.chevron_width_mm / 2 - t.chevron_stroke_mm / 2
    return [[(back, arm), (tip, 0.0), (back, -arm)]]


def chevrons(p: SquadronLeaderParams, path: MovePath, centre: float) -> BaseGeometry:
    mark = strokes_shape(chevron_lines(p), p.templates.chevron_stroke_mm)
    return unary_union([placed(mark, pose) for pose in move_paths.chevron_poses(p, path, centre)])


def single_template(p: SquadronLeaderParams, kind: str) -> tuple[BaseGeometry, BaseGeometry]:
    """(outline with notches, chevron holes) of the straight, bank or turn template."""
    path = move_paths.path(p, kind)
    body = path_outline(path).difference(start_notch(p)).difference(end_notch(p, path))
    holes = chevrons(p, path, float(path.length) / 2).intersection(body)
    return body, holes


def fused_template(p: SquadronLeaderParams) -> tuple[BaseGeometry, BaseGeometry]:
    """(outline, engraved marks) of the all-in-one template: template_all.build in 2D."""
    paths = list(move_paths.paths(p).values())
    body = unary_union([path_outline(path) for path in paths]).difference(start_notch(p))
    for path in paths:
        body = body.difference(end_notch(p, path))
    width = p.templates.guide_groove_width_mm
    grooves = []
    for path in paths:
        if not path.is_curved:
            continue
        for radius in (float(path.inner_radius), float(path.inner_radius + path.width)):
            band = ring_segment(
                radius - width / 2, radius + width / 2, -90, -90 + float(path.turn_deg)
            )
            grooves.append(affinity.translate(band, 0, float(path.centre_radius)))
    inside = body.buffer(-template_all.GROOVE_EDGE_WALL_MM, join_style=MITRE)
    marks = unary_union(grooves).intersection(inside)
    chevron_marks = [
        chevrons(p, path, float(template_all.chevron_centre(p, path))) for path in paths
    ]
    return body, unary_union([marks, *chevron_marks])


def ruler_section(p: SquadronLeaderParams, index: int) -> tuple[BaseGeometry, BaseGeometry]:
    """(outline with its dovetails, range marks) of ruler section 1, 2 or 3."""
    length, width = float(p.template_length_mm), float(p.ruler_width_mm)
    outline: BaseGeometry = box(0, -width / 2, length, width / 2)
    has_tab, has_slot = range_ruler.section_joints(index)
    marks = []
    if has_tab:
        outline = outline.union(Polygon(tab_points(p.ruler, length)))
        marks.append(_ruler_mark(p, length))
    if has_slot:
        slot = Polygon(tab_points(p.ruler, 0)).buffer(p.ruler.joint_clearance_mm, join_style=MITRE)
        outline = outline.difference(slot)
        marks.append(_ruler_mark(p, 0))
    return outline, unary_union(marks).intersection(outline) if marks else Polygon()


def _ruler_mark(p: SquadronLeaderParams, x: float) -> Polygon:
    half = p.ruler.mark_width_mm / 2
    width = float(p.ruler_width_mm) + 2
    return box(x - half, -width / 2, x + half, width / 2)


def ruler_numeral(p: SquadronLeaderParams, index: int) -> list[list[tuple[float, float]]]:
    """The section's numeral, centred half-way along it, as on the 3D part."""
    lines = stroke_text_lines(str(index), p.ruler.numeral_height_mm, p.text.stroke_mm)
    mid = float(p.template_length_mm) / 2
    return [[(x + mid, y) for x, y in line] for line in lines]


def stat_card(p: SquadronLeaderParams) -> BaseGeometry:
    """stat_dial.card_outline in 2D: the label spine and one finger per row."""
    layout = dial_layout(p)
    d = p.stat_dial
    fingers = [
        box(
            0,
            float(layout.row_bottom(row)),
            float(layout.length),
            float(layout.row_bottom(row)) + d.row_width_mm,
        )
        for row in range(layout.rows)
    ]
    return unary_union([box(0, 0, d.label_width_mm, float(layout.height)), *fingers])


def stat_card_text(p: SquadronLeaderParams) -> list[tuple[str, float, float]]:
    """(text, centre x, centre y) of every label and numeral, where the 3D card engraves it."""
    layout = dial_layout(p)
    d = p.stat_dial
    marks = []
    for row, label in enumerate(d.labels):
        centre_y = float(layout.row_bottom(row) + layout.numeral_centre_u)
        marks.append((label, d.label_width_mm / 2, float(layout.label_centre_y(row))))
        marks += [(str(value), float(layout.value_x(value)), centre_y) for value in layout.values]
    return marks


def silhouette(length: float, span: float) -> BaseGeometry:
    """Our plane silhouette (geometry/icons.py), nose at +x, scaled like the token's."""
    return affinity.scale(silhouette_union(), length, span, origin=(0, 0))

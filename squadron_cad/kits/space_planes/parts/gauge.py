"""The joker gauge: a rigid, card-sized plate with a low fence along one long edge (y = 0)
and one short edge (x = 0), flush with the card's edges, so that a cube on the table slides
along a tall face.

Frame: x along the long edge from the pivot corner, y along the short edge, bed at z = 0.
A long move slides the cube from the pivot corner until its leading corner meets the far
corner: its trailing face ends at x = long - side, its leading face started at x = side.
Those two end points are notched into the long fence's top and run on across the plate as
lines; the short edge is marked the same way. The distances are engraved as numbers, and
each corner of the card carries a bracket. The long edge is straight over its whole
length: the range line.
"""

from __future__ import annotations

from typing import Any

from solid2 import cube, difference, linear_extrude, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.space_planes.parts.common import bar

CORNER_INSET_MM = 1.5  # a corner bracket's corner, this far inside the open plate
BRACKET_MM = 4.0  # length of a bracket's legs


def end_points(edge: float, side: float) -> tuple[float, float]:
    """Where a move's marks lie along an edge of this length: side and edge - side."""
    return side, edge - side


def _bracket(x: Any, y: Any, sx: int, sy: int, width: Any) -> OpenSCADObject:
    """An L with its corner at (x, y), legs running in the directions sx, sy."""
    leg_x = bar(x, y, x + sx * BRACKET_MM, y + sy * width)
    leg_y = bar(x, y, x + sx * width, y + sy * BRACKET_MM)
    return union()(leg_x, leg_y)


def build(design: Any) -> OpenSCADObject:
    p = design.params
    g, card, side = p.gauge, p.card, p.cube.side_mm
    length, width, t, fh, fw = card.long_mm, card.short_mm, g.thickness_mm, g.fence_height_mm, \
        g.fence_width_mm  # fmt: skip
    mw, md, ml = g.mark_width_mm, g.mark_depth_mm, g.mark_length_mm
    body = union()(
        cube([length, width, t]),
        cube([length, fw, fh]),
        cube([fw, width, fh]),
    )
    fence_top, plate = [], []
    for x in end_points(length, side):
        fence_top.append(bar(x - mw / 2, -1, x + mw / 2, fw + 1))
        plate.append(bar(x - mw / 2, fw - EPSILON_MM, x + mw / 2, fw + ml))
    for y in end_points(width, side):
        fence_top.append(bar(-1, y - mw / 2, fw + 1, y + mw / 2))
        plate.append(bar(fw - EPSILON_MM, y - mw / 2, fw + ml, y + mw / 2))
    inner, c = fw + CORNER_INSET_MM, CORNER_INSET_MM
    plate += [
        _bracket(inner, inner, 1, 1, mw),
        _bracket(length - c, inner, -1, 1, mw),
        _bracket(inner, width - c, 1, -1, mw),
        _bracket(length - c, width - c, -1, -1, mw),
    ]
    h, stroke = g.numeral_height_mm, p.text.stroke_mm
    centre = p.label_centre_mm
    words = [
        translate([length / 2, centre])(centred_text(p.long_label, h, stroke)),
        translate([centre, width / 2])(rotate(90)(centred_text(p.short_label, h, stroke))),
    ]
    text_depth = p.text.depth_mm
    cuts = [
        translate([0, 0, fh - md])(linear_extrude(height=md + 1)(union()(*fence_top))),
        translate([0, 0, t - md])(linear_extrude(height=md + EPSILON_MM)(union()(*plate))),
        translate([0, 0, t - text_depth])(
            linear_extrude(height=text_depth + EPSILON_MM)(union()(*words))
        ),
    ]
    return difference()(body, *cuts)

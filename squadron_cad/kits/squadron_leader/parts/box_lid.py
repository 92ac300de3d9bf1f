"""The box lid: a cap that closes the box and, turned over, is a dice tray.

It has the box's outline: a top `box.lid_thickness_mm` thick and a skirt of the box's
wall thickness rising `box.lid_tray_depth_mm` above it (the tray's depth, at least 6 mm:
half a rolled 16 mm die). Closed, it lies upside down on the box, its skirt standing on
the box's wall and continuing it; the skirt's last `box.lid_lip_mm` keeps only its outer
`box.rim_mm`, a lip that laps the box's tongue (the inner rest of its wall) with
`box.lid_clearance_mm` per side, so the lid cannot slide off. The tin's own lid closes
`box.tin_clearance_mm` above it. A finger slot through the top near one end lifts it;
the title is engraved in our stroke font into the top's outer face, centred on the rest
(on two lines when one is too long for a small lid).

Printed as a tray: top on the bed, skirt up, no overhang; the title is cut into the bed
face, mirrored, so it reads right way round when the lid is closed.

Frame: centred on the origin, top's outer face on z = 0, skirt up, the finger slot
towards +x (towards +y when the tin is given wider than it is long). Closed on the box it
is turned half a turn about x (`closed_pose`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import circle, difference, hull, linear_extrude, mirror, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number, smax
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, rounded_rectangle
from squadron_cad.kits.squadron_leader.geometry.lid import (
    LINE_PITCH,
    SLOT_WIDTH_MM,
    box_outer,
    landscape,
    lid_outline,
    slot_centre_x,
    title_centre_x,
    title_lines,
)
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

SLOT_LENGTH_MM = 20.0
SLOT_FACETS = 24  # the slot's round ends; a coarse curve is plenty at 9 mm


def lid_height(p: SquadronLeaderParams) -> Number:
    """The lid as built: its top plus the tray's depth."""
    return p.box.lid_thickness_mm + p.box.lid_tray_depth_mm


def tongue_outline(
    p: SquadronLeaderParams, outer: tuple[Number, Number, Number]
) -> tuple[Number, Number, Number]:
    """The box's tongue for a box of this outside (length, width, corner radius): less the
    lid's lip and the lid clearance on each side (box.py cuts it; the tolerance coupons
    use it on a small box)."""
    length, width, radius = outer
    inset = p.box.rim_mm + p.box.lid_clearance_mm
    return length - 2 * inset, width - 2 * inset, smax(radius - inset, 0)


def title(p: SquadronLeaderParams) -> OpenSCADObject:
    """The title's lines, centred on the title area."""
    lines = title_lines(p)
    height = p.box.title_height_mm
    shapes = []
    for index, line in enumerate(lines):
        offset_y = height * (LINE_PITCH * ((len(lines) - 1) / 2 - index))
        shape = centred_text(line, height, p.text.stroke_mm)
        shapes.append(translate([0, offset_y])(shape) if len(lines) > 1 else shape)
    return translate([title_centre_x(p), 0])(union()(*shapes))


def finger_slot(p: SquadronLeaderParams) -> OpenSCADObject:
    half = (SLOT_LENGTH_MM - SLOT_WIDTH_MM) / 2
    end = circle(d=SLOT_WIDTH_MM, _fn=SLOT_FACETS)
    return translate([slot_centre_x(p), 0])(
        hull()(translate([0, -half])(end), translate([0, half])(end))
    )


def _inner(p: SquadronLeaderParams) -> OpenSCADObject:
    """The tray's inside: the box's inside outline (the skirt is as thick as its wall)."""
    length, width, radius = box_outer(p)
    wall = p.box.wall_mm
    return rounded_rectangle(length - 2 * wall, width - 2 * wall, smax(radius - wall, 0))


def _lip_inside(p: SquadronLeaderParams) -> OpenSCADObject:
    """Inside the lip: all but the skirt's outer `box.rim_mm`."""
    length, width, radius = box_outer(p)
    rim = p.box.rim_mm
    return rounded_rectangle(length - 2 * rim, width - 2 * rim, smax(radius - rim, 0))


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    length, width, radius = lid_outline(p)
    thickness = p.box.lid_thickness_mm
    height = lid_height(p)
    lip = p.box.lid_lip_mm
    shell = linear_extrude(height=height)(rounded_rectangle(length, width, radius))
    tray = translate([0, 0, thickness])(linear_extrude(height=height)(_inner(p)))
    lip_cut = translate([0, 0, height - lip])(linear_extrude(height=lip + 1)(_lip_inside(p)))
    slot = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=thickness + 2 * EPSILON_MM)(finger_slot(p))
    )
    marks = [slot]
    if title_lines(p):
        depth = p.text.depth_mm
        # Cut into the bed face, mirrored: closed (turned over about x) it reads right.
        marks.append(
            translate([0, 0, -EPSILON_MM])(
                linear_extrude(height=depth + EPSILON_MM)(mirror([0, 1, 0])(title(p)))
            )
        )
    if landscape(p)[2]:
        marks = [rotate([0, 0, 90])(cut) for cut in marks]
    return difference()(shell, tray, lip_cut, *marks)

"""The joint's solids: the tab a section carries at its far end and the slot cut into the
next section's near end, in the section's frame (x along the ruler, y across it centred on
0, the bed at z = 0)."""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt

from solid2 import difference, linear_extrude, mirror, polygon, rotate, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.ruler_joint.params import SectionedRulerParams
from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM

SQRT2 = sqrt(2)


@dataclass(frozen=True)
class JointShape:
    """A ruler joint's tab, all in mm: a neck, a wider head with square shoulders (the
    pull bears on them, so the joint cannot stretch), and a snap ridge along each side of
    the neck at mid-height that clicks into a groove in the slot's cheeks (a deliberate
    push lifts a section off; nothing else does). The tab drops into its slot from above."""

    neck_width: Number
    head_width: Number
    neck_length: Number
    head_length: Number
    thickness: Number
    snap: Number  # how far the ridge stands out from the neck, per side

    @property
    def length(self) -> Number:
        return self.neck_length + self.head_length


def joint_shape(r: SectionedRulerParams) -> JointShape:
    return JointShape(
        neck_width=r.tab_width_mm,
        head_width=r.tab_tip_width_mm,
        neck_length=r.tab_length_mm / 2,
        head_length=r.tab_length_mm / 2,
        thickness=r.thickness_mm,
        snap=r.joint_snap_mm,
    )


def _ridges(shape: JointShape, root_x: Number, x0: Number, x1: Number, grow: Number):
    """The V snap ridges (45 degree faces, printable flat) along x0..x1 on both sides of
    the neck, grown by `grow` at right angles to their faces (the groove is a ridge grown
    by the clearance)."""
    half, mid = shape.neck_width / 2, shape.thickness / 2
    apex = half + shape.snap + grow * SQRT2
    base = half - EPSILON_MM - grow  # sunk into the neck (or the neck's own clearance)
    reach = apex - base
    points = [[base, mid - reach], [apex, mid], [base, mid + reach]]
    ridge = translate([root_x + x0, 0, 0])(
        rotate([90, 0, 90])(linear_extrude(height=x1 - x0)(polygon(points)))
    )
    return union()(ridge, mirror([0, 1, 0])(ridge))


def tab_points(r: SectionedRulerParams, root_x: Number) -> list[list[Number]]:
    """The tab's outline seen from above (neck, then the wider head), for flat drawings."""
    shape = joint_shape(r)
    neck, head = shape.neck_width / 2, shape.head_width / 2
    start, waist, end = root_x - EPSILON_MM, root_x + shape.neck_length, root_x + shape.length
    return [[start, -neck], [waist, -neck], [waist, -head], [end, -head],
            [end, head], [waist, head], [waist, neck], [start, neck]]  # fmt: skip


def joint_tab(shape: JointShape, root_x: Number = 0) -> OpenSCADObject:
    """The tab as a solid standing on z = 0, its root at root_x, reaching along +x.
    (It starts EPSILON behind root_x so its union with the body is clean.)"""
    neck, head = shape.neck_width / 2, shape.head_width / 2
    outline = union()(
        translate([root_x - EPSILON_MM, -neck])(square([shape.neck_length + 2 * EPSILON_MM,
                                                       2 * neck])),
        translate([root_x + shape.neck_length, -head])(square([shape.head_length, 2 * head])),
    )  # fmt: skip
    body = linear_extrude(height=shape.thickness)(outline)
    return union()(body, _ridges(shape, root_x, 0, shape.neck_length, 0))


def joint_slot(
    shape: JointShape, clearance: Number, axial_clearance: Number, root_x: Number = 0
) -> OpenSCADObject:
    """What a slot cuts from the section whose shoulder is at root_x: the tab grown by
    `clearance` at its sides and tip, and by `axial_clearance` only where its head's
    shoulders bear (that sets the joint's pull play); the grooves take the snap ridges
    with `clearance` all round. Cut through the section's whole thickness."""
    neck, head = shape.neck_width / 2 + clearance, shape.head_width / 2 + clearance
    head_start = shape.neck_length - axial_clearance
    head_end = shape.length + clearance
    outline = union()(
        translate([root_x - 1, -neck])(square([head_start + 1 + EPSILON_MM, 2 * neck])),
        translate([root_x + head_start, -head])(square([head_end - head_start, 2 * head])),
    )
    body = translate([0, 0, -1])(linear_extrude(height=shape.thickness + 2)(outline))
    return union()(body, _ridges(shape, root_x, -1, head_start + EPSILON_MM, clearance))


def jointed_section(
    outline: OpenSCADObject,
    r: SectionedRulerParams,
    shape: JointShape,
    length: Number,
    tab: bool,
    slot: bool,
) -> OpenSCADObject:
    """A section: its outline (x from 0 to `length`) as thick as the ruler, with the tab at
    its far end when `tab` and the slot cut into its near end when `slot`, with the
    ruler's clearances. `shape` is joint_shape(r), read by the caller where its part reads
    it (a part's .scad declares the parameters in the order they are first read)."""
    body = linear_extrude(height=r.thickness_mm)(outline)
    if tab:
        body = union()(body, joint_tab(shape, length))
    if slot:
        body = difference()(
            body, joint_slot(shape, r.joint_clearance_mm, r.joint_axial_clearance_mm)
        )
    return body

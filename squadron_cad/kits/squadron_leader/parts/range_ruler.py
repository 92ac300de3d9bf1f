"""The range ruler: one piece, or three sections joined by snap joints to fit the box.

Three straight template lengths long; the thirds are ranges 1, 2 and 3 from the firing
plane (at x = 0). A section joint sits exactly on a range boundary, so the seam is the mark.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt
from typing import TYPE_CHECKING

from solid2 import (
    difference,
    linear_extrude,
    mirror,
    polygon,
    rotate,
    square,
    translate,
    union,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadron_leader import constants as C
from squadron_cad.kits.squadron_leader.params import KitParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronDesign

SECTIONS = C.RULER_LENGTH_TEMPLATES
SQRT2 = sqrt(2)


def _strip(length: Number, width: Number) -> OpenSCADObject:
    return translate([0, -width / 2])(square([length, width]))


def _mark(x: Number, p: KitParams) -> OpenSCADObject:
    """A range mark across the ruler, centred on x."""
    width = p.ruler_width_mm + 2
    return translate([x - p.ruler.mark_width_mm / 2, -width / 2])(
        square([p.ruler.mark_width_mm, width])
    )


def _numeral(index: int, centre_x: Number, p: KitParams) -> OpenSCADObject:
    return translate([centre_x, 0])(
        centred_text(str(index), p.ruler.numeral_height_mm, p.text.stroke_mm)
    )


def _engrave(body: OpenSCADObject, marks: list, numerals: list, p: KitParams) -> OpenSCADObject:
    top = p.ruler.thickness_mm
    cuts = []
    if marks:
        cuts.append(
            translate([0, 0, top - p.ruler.mark_depth_mm])(
                linear_extrude(height=p.ruler.mark_depth_mm + EPSILON_MM)(union()(*marks))
            )
        )
    cuts.append(
        translate([0, 0, top - p.text.depth_mm])(
            linear_extrude(height=p.text.depth_mm + EPSILON_MM)(union()(*numerals))
        )
    )
    return difference()(body, *cuts)


def build_one_piece(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    third = p.template_length_mm
    body = linear_extrude(height=p.ruler.thickness_mm)(_strip(p.ruler_length_mm, p.ruler_width_mm))
    marks = [_mark(third * i, p) for i in range(1, SECTIONS)]
    numerals = [_numeral(i + 1, third * (i + 0.5), p) for i in range(SECTIONS)]
    return _engrave(body, marks, numerals, p)


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


def joint_shape(p: KitParams) -> JointShape:
    r = p.ruler
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


def tab_points(p: KitParams, root_x: Number) -> list[list[Number]]:
    """The tab's outline seen from above (neck, then the wider head), for flat drawings."""
    shape = joint_shape(p)
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


def section_joints(index: int) -> tuple[bool, bool]:
    """Does section `index` (1..3) carry a tab at its far end, a slot at its near end?"""
    return index < SECTIONS, index > 1


def build_section(p: KitParams, index: int) -> OpenSCADObject:
    """Section 1, 2 or 3 in its own frame, x from 0 to one template length."""
    length = p.template_length_mm
    shape = joint_shape(p)
    body = linear_extrude(height=p.ruler.thickness_mm)(_strip(length, p.ruler_width_mm))
    marks = []
    has_tab, has_slot = section_joints(index)
    if has_tab:
        body = union()(body, joint_tab(shape, length))
        marks.append(_mark(length, p))
    if has_slot:
        r = p.ruler
        body = difference()(body, joint_slot(shape, r.joint_clearance_mm,
                                             r.joint_axial_clearance_mm))  # fmt: skip
        marks.append(_mark(0, p))
    return _engrave(body, marks, [_numeral(index, length / 2, p)], p)


def build_section_1(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 1)


def build_section_2(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 2)


def build_section_3(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 3)

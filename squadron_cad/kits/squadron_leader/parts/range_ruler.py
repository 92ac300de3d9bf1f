"""The range ruler: one piece, or three sections joined by snap joints to fit the box.

Three straight template lengths long; the thirds are ranges 1, 2 and 3 from the firing
plane (at x = 0). A section joint sits exactly on a range boundary, so the seam is the mark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import difference, linear_extrude, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.ruler_joint.shape import joint_shape, jointed_section
from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

SECTIONS = constants.RULER_LENGTH_TEMPLATES


def _strip(length: Number, width: Number) -> OpenSCADObject:
    return translate([0, -width / 2])(square([length, width]))


def _mark(x: Number, p: SquadronLeaderParams) -> OpenSCADObject:
    """A range mark across the ruler, centred on x."""
    width = p.ruler_width_mm + 2
    return translate([x - p.ruler.mark_width_mm / 2, -width / 2])(
        square([p.ruler.mark_width_mm, width])
    )


def _numeral(index: int, centre_x: Number, p: SquadronLeaderParams) -> OpenSCADObject:
    return translate([centre_x, 0])(
        centred_text(str(index), p.ruler.numeral_height_mm, p.text.stroke_mm)
    )


def _engrave(
    body: OpenSCADObject, marks: list, numerals: list, p: SquadronLeaderParams
) -> OpenSCADObject:
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


def build_one_piece(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    third = p.template_length_mm
    body = linear_extrude(height=p.ruler.thickness_mm)(_strip(p.ruler_length_mm, p.ruler_width_mm))
    marks = [_mark(third * i, p) for i in range(1, SECTIONS)]
    numerals = [_numeral(i + 1, third * (i + 0.5), p) for i in range(SECTIONS)]
    return _engrave(body, marks, numerals, p)


def section_joints(index: int) -> tuple[bool, bool]:
    """Does section `index` (1..3) carry a tab at its far end, a slot at its near end?"""
    return index < SECTIONS, index > 1


def build_section(p: SquadronLeaderParams, index: int) -> OpenSCADObject:
    """Section 1, 2 or 3 in its own frame, x from 0 to one template length."""
    length = p.template_length_mm
    has_tab, has_slot = section_joints(index)
    shape = joint_shape(p.ruler)
    # The marks are drawn where the .scad has always declared what they read: the tab's
    # before the slot's clearances, the slot's after them.
    tab_mark = [_mark(length, p)] if has_tab else []
    body = jointed_section(_strip(length, p.ruler_width_mm), p.ruler, shape, length, has_tab,
                           has_slot)  # fmt: skip
    slot_mark = [_mark(0, p)] if has_slot else []
    return _engrave(body, tab_mark + slot_mark, [_numeral(index, length / 2, p)], p)


def build_section_1(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 1)


def build_section_2(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 2)


def build_section_3(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_section(p, 3)

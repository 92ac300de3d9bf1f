"""The sectioned ruler's joint as a tolerance coupon (`squadron-cad tolerance`), for any kit
whose ruler is the ruler joint component.

Each step is a thin stub of a section with the real slot at its near end (the joint's
own geometry, only its side clearance set to the step's value) and its value in raised
numerals; the mate is a stub ending in the real tab. Both are cut to the bottom
JOINT_THICKNESS_MM (the outline the side clearance acts on, under the snap ridges), so the
plate prints in minutes. A step is measured as the ruler's joints are: butted at the
shoulders, moved sideways until it meets the tab.

A kit opts in with `joint_coupon(ruler_of, width_of, "ruler")` in its coupons (ruler_of:
its design -> its ruler section; width_of: -> the ruler's width; "ruler": the section).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trimesh
from solid2 import cube, difference, intersection, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.coupon_label import LABEL_HEIGHT_MM, label
from squadron_cad.components.ruler_joint.measure import measure_joint
from squadron_cad.components.ruler_joint.params import SectionedRulerParams
from squadron_cad.components.ruler_joint.shape import JointShape, joint_shape, joint_slot, joint_tab
from squadron_cad.geometry.expr import Number
from squadron_cad.kit import Coupon

JOINT_THICKNESS_MM = 0.8  # a ruler stub: the joint is an extruded outline
JOINT_BODY_MM = 3.0  # stub behind the tab's shoulder
JOINT_MARGIN_MM = 0.6  # stub between the slot's end and the label, and after it

RulerOf = Callable[[Any], SectionedRulerParams]  # design -> its ruler section
WidthOf = Callable[[Any], Number]  # design -> the ruler's width


def slot_stub_length(r: SectionedRulerParams) -> Number:
    return r.tab_length_mm + r.joint_clearance_mm + 2 * JOINT_MARGIN_MM + LABEL_HEIGHT_MM


def joint_slab(shape: JointShape, body: OpenSCADObject) -> OpenSCADObject:
    """The bottom JOINT_THICKNESS_MM of a joint solid: the outline the side clearance acts on,
    under the snap ridges at mid-height (they hold the real joint down; the coupon tests the
    side fit)."""
    slab = translate([-50, -50, 0])(cube([100, 100, JOINT_THICKNESS_MM]))
    return intersection()(body, slab) if shape.thickness > JOINT_THICKNESS_MM else body


def slot_step(
    r: SectionedRulerParams, width: Number, stroke: Number, value: float
) -> OpenSCADObject:
    """A ruler stub with the real slot at its near end (x = 0), as on every section but the
    first."""
    shape = joint_shape(r)
    length = slot_stub_length(r)
    stub = translate([0, -width / 2, 0])(cube([length, width, JOINT_THICKNESS_MM]))
    slot = joint_slot(shape, value, r.joint_axial_clearance_mm)
    at = length - JOINT_MARGIN_MM - LABEL_HEIGHT_MM / 2
    numerals = translate([at, 0, 0])(rotate([0, 0, 90])(label(value, stroke, JOINT_THICKNESS_MM)))
    return union()(difference()(stub, slot), numerals)


def tab_mate(r: SectionedRulerParams, width: Number) -> OpenSCADObject:
    """A ruler stub ending in the real tab (shoulder at x = 0), as on every section but the
    last."""
    shape = joint_shape(r)
    stub = translate([-JOINT_BODY_MM, -width / 2, 0])(
        cube([JOINT_BODY_MM, width, JOINT_THICKNESS_MM])
    )
    return union()(stub, joint_slab(shape, joint_tab(shape, 0)))


def measure_slot(_design: Any, step: trimesh.Trimesh, mate: trimesh.Trimesh) -> float:
    """Tab to slot wall, per side, with the shoulders butted: how far the slot moves
    sideways before it meets the tab (the ruler's own measure)."""
    return measure_joint(mate, step, ("left", "right")).lateral_mm


def joint_coupon(ruler_of: RulerOf, width_of: WidthOf, section: str = "ruler") -> Coupon:
    """The joint's fit, keyed on `<section>.joint_clearance_mm`, checked against
    checks.ruler_joint_fit."""

    def step(design: Any, value: float) -> OpenSCADObject:
        return slot_step(ruler_of(design), width_of(design), design.params.text.stroke_mm, value)

    def mate(design: Any) -> OpenSCADObject:
        return tab_mate(ruler_of(design), width_of(design))

    return Coupon(
        fit="joint",
        key=f"{section}.joint_clearance_mm",
        title="range ruler joint, tab in slot (per side)",
        step=step,
        mate=mate,
        measure=measure_slot,
        fit_range="checks.ruler_joint_fit",
        how="slide the tab into each slot from above: choose the tightest that seats by hand",
    )

"""A tray lid's fit as a tolerance coupon (`squadron-cad tolerance`), for any kit whose box
is the engine's tray with a lid (TrayParams.lid, fit.tray_lid).

The lid's lip laps the box's tongue with `lid.clearance_mm` per side. Each step is the
tongue of a small box (the real rule: the box's outline less the lip and the step's
clearance, with the box's own corner radius) as a thin plate carrying its value in raised
numerals; the mate is the lip: a frame whose rebate is the box's outline less the lip's
thickness, over a ledge the plate rests on. A step is measured as it sits in the mate:
plate edge to rebate wall, per side.

A kit opts in with `lid_coupon(tray_of, "box")` in its coupons (tray_of: its design ->
its tin and tray parameters, "box": the tray's section); a kit whose box and lid are its own
builds the same coupon from its sizes with `lid_fit_coupon`, `tongue_plate` and `lip_frame`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trimesh
from solid2 import difference, linear_extrude, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks import meshgeo
from squadron_cad.checks.fits import signed_gap
from squadron_cad.components import coupon_label
from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle
from squadron_cad.kit import Coupon
from squadron_cad.params import TinParams, TrayParams

TrayOf = Callable[[Any], tuple[TinParams, TrayParams]]  # design -> its tin and its tray
Outline = tuple[Number, Number, Number]  # a rounded rectangle: length, width, corner radius

SMALL_BOX_MM = (9.0, 6.4)  # the small box top: room for a ".25" label inside its tongue
SMALL_RADIUS_MM = 2.4  # at most the box's own corner radius
PLATE_MM = 0.6  # the tongue plate's thickness
LEDGE_MM = 0.6  # the frame's floor the plate rests on


def small_box(tin: TinParams, tray: TrayParams) -> tuple[float, float, float]:
    """The small box's outside: its length, width and the box's corner radius (capped)."""
    radius = max(tin.corner_radius_mm - tray.tin_clearance_mm, tray.wall_mm)
    return SMALL_BOX_MM[0], SMALL_BOX_MM[1], min(radius, SMALL_RADIUS_MM)


def _inset(size: Outline, inset: Number) -> OpenSCADObject:
    length, width, radius = size
    return rounded_rectangle(length - 2 * inset, width - 2 * inset, max(radius - inset, 0.0))


def tongue_plate(size: Outline, inset: Number, value: float, stroke: Number) -> OpenSCADObject:
    """A step: the small box's tongue (its outline less `inset`: the lid's lip and the
    step's clearance) as a thin plate carrying the step's value."""
    plate = linear_extrude(height=PLATE_MM)(_inset(size, inset))
    return union()(plate, coupon_label.label(value, stroke, PLATE_MM))


def lip_frame(size: Outline, wall: Number, rim: Number) -> OpenSCADObject:
    """The mate: the lid's lip on the small box, a frame whose rebate is the outline less
    the lip's thickness `rim`, over a ledge (the box's inside, `wall` in, left open)."""
    height = LEDGE_MM + PLATE_MM
    body = linear_extrude(height=height)(_inset(size, 0.0))
    opening = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=height + 2 * EPSILON_MM)(_inset(size, wall))
    )
    rebate = translate([0, 0, LEDGE_MM])(
        linear_extrude(height=PLATE_MM + EPSILON_MM)(_inset(size, rim))
    )
    return difference()(body, opening, rebate)


def plate_gap(_design: Any, step_mesh: trimesh.Trimesh, mate_mesh: trimesh.Trimesh) -> float:
    """Plate edge to rebate wall, per side, the plate resting on the ledge."""
    plate = meshgeo.section(step_mesh, PLATE_MM / 2)
    frame = meshgeo.section(mate_mesh, LEDGE_MM + PLATE_MM / 2)
    return signed_gap(plate, frame)


def lid_fit_coupon(
    key: str,
    step: Callable[[Any, float], OpenSCADObject],
    mate: Callable[[Any], OpenSCADObject],
) -> Coupon:
    """The lid's fit keyed on `key` (the lid's clearance), checked against checks.lid_fit:
    `step(design, value)` a tongue_plate, `mate(design)` a lip_frame."""
    return Coupon(
        fit="lid",
        key=key,
        title="lid's lip over the box's tongue (per side)",
        step=step,
        mate=mate,
        measure=plate_gap,
        fit_range="checks.lid_fit",
        how="drop the lip frame over each tongue plate: the tightest that drops on and lifts off",
    )


def _lid(tray: TrayParams) -> Any:
    if tray.lid is None:
        raise ValueError("the tray has no lid: its kit declares a lid coupon it cannot cut")
    return tray.lid


def lid_coupon(tray_of: TrayOf, section: str = "box") -> Coupon:
    """The engine's tray lid's fit, keyed on `<section>.lid.clearance_mm`."""

    def step(design: Any, value: float) -> OpenSCADObject:
        tin, tray = tray_of(design)
        size = small_box(tin, tray)
        return tongue_plate(size, _lid(tray).rim_mm + value, value, design.params.text.stroke_mm)

    def mate(design: Any) -> OpenSCADObject:
        tin, tray = tray_of(design)
        return lip_frame(small_box(tin, tray), tray.wall_mm, _lid(tray).rim_mm)

    return lid_fit_coupon(f"{section}.lid.clearance_mm", step, mate)

"""Space Planes' fits as tolerance coupons (`squadron-cad tolerance --kit space-planes`).

- holder: the plane die in its holder. Each step is the holder's own pocket (the die's
  size and the step's clearance, its wall) as a low frame with a tab carrying the value in
  raised numerals; the mate is the die's footprint, a square plug of holder.die_size_mm,
  which stands in for the die (try your own die in the frames too).
- lid: the engine's tray lid coupon (components.tray_lid): the lid's lip over the box's
  tongue.

Frames: a step placed as built sits round its mate as built (both centred on the origin,
on the bed), so its clearance is measured between the two meshes as rendered.
"""

from __future__ import annotations

from typing import Any

import trimesh
from solid2 import cube, difference, linear_extrude, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks import meshgeo
from squadron_cad.checks.fits import signed_gap
from squadron_cad.components.coupon_label import LABEL_HEIGHT_MM, LABEL_RAISE_MM, label_text
from squadron_cad.components.tray_lid.coupon import lid_coupon
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kit import Coupon

FRAME_HEIGHT_MM = 1.2  # a low slice of the holder's wall: the seat's clearance is its own
PLUG_HEIGHT_MM = 2.0  # the die's footprint, taller than the frame: it goes in and lifts out
TAB_MM = (5.6, 4.2)  # the tab beside a frame that carries its value (along x, y)
PROBE_MM = 0.6  # sections are taken this far above the bed


def _centred(length: float, width: float, height: float) -> OpenSCADObject:
    return translate([-length / 2, -width / 2, 0])(cube([length, width, height]))


def holder_step(design: Any, value: float) -> OpenSCADObject:
    """The holder's pocket at `value` per side, in a frame of the holder's wall, and a tab
    on its +x side with the value in raised numerals."""
    p = design.params
    h = p.holder
    pocket = h.die_size_mm + 2 * value
    outer = pocket + 2 * h.wall_mm
    frame = difference()(
        _centred(outer, outer, FRAME_HEIGHT_MM),
        translate([0, 0, -EPSILON_MM])(_centred(pocket, pocket, FRAME_HEIGHT_MM + 1)),
    )
    length, width = TAB_MM
    at = outer / 2 + length / 2 - EPSILON_MM
    tab = translate([at, 0, 0])(_centred(length + 2 * EPSILON_MM, width, FRAME_HEIGHT_MM))
    text = centred_text(label_text(value), LABEL_HEIGHT_MM, p.text.stroke_mm)
    numerals = translate([at, 0, FRAME_HEIGHT_MM - EPSILON_MM])(
        linear_extrude(height=LABEL_RAISE_MM + EPSILON_MM)(text)
    )
    return union()(frame, tab, numerals)


def die_plug(design: Any) -> OpenSCADObject:
    """The plane die's footprint, a square plug holder.die_size_mm across."""
    size = design.params.holder.die_size_mm
    return _centred(size, size, PLUG_HEIGHT_MM)


def measure_holder(_design: Any, step: trimesh.Trimesh, mate: trimesh.Trimesh) -> float:
    """Plug to frame, per side, the plug seated in the frame."""
    return signed_gap(meshgeo.section(mate, PROBE_MM), meshgeo.section(step, PROBE_MM))


def _tray(design: Any) -> tuple[Any, Any]:
    return design.params.tin, design.params.box


COUPONS = (
    Coupon(
        fit="holder",
        key="holder.clearance_mm",
        title="plane die in its holder (per side)",
        step=holder_step,
        mate=die_plug,
        measure=measure_holder,
        fit_range="checks.holder_fit",
        how="drop your plane die (or the plug) into each frame: the tightest it drops into "
        "and lifts out of freely",
    ),
    lid_coupon(_tray, "box"),
)

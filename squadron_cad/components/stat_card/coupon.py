"""The stat card's clip as a tolerance coupon (`squadron-cad tolerance`), for any kit whose
card and clips are the stat card component.

Each step is a short slice of the clip's own profile (clip_profile, only the running
clearance set to the step's value), with a flat label tag on its back; the window and the
detent bump are left off: the coupon tests the gap the clip slides with. The mate is a
stub of one card finger, as thick and as wide as the card's rows. A step is measured
between its jaws, away from the tag: the opening less the card's thickness, halved.

A kit opts in with `clip_coupon(layout_of, "stat_dial")` in its coupons (layout_of: its
design -> the card's DialLayout; "stat_dial": the card's section).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shapely
import trimesh
from solid2 import cube, linear_extrude, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks import meshgeo
from squadron_cad.components.coupon_label import label
from squadron_cad.components.stat_card.shape import DialLayout, clip_profile, clip_shape
from squadron_cad.geometry.shapes import EPSILON_MM
from squadron_cad.kit import Coupon

CLIP_WIDTH_MM = 1.2  # a slice of the clip's profile (no window, no bump): the sliding gap
# The label tag on a clip's back (along u, w, z), as high as the slice: its numerals stand
# on the coupon's top face, where the plate's picture draws them darker.
CLIP_TAG_MM = (5.0, 3.2, CLIP_WIDTH_MM)
CARD_STUB_MM = 6.0  # the card finger the clips are tried on

LayoutOf = Callable[[Any], DialLayout]  # design -> its card's layout


def clip_step(layout: DialLayout, stroke: Any, value: float) -> OpenSCADObject:
    """A short slice of the clip's own profile, with a flat label tag on its back (away
    from the card)."""
    d = layout.card
    spine_outer = -value - d.clip_spine_thickness_mm
    middle = d.card_thickness_mm / 2
    length, width, height = CLIP_TAG_MM
    tag = translate([spine_outer - length, middle - width / 2, 0])(
        cube([length + EPSILON_MM, width, height])
    )
    numerals = translate([spine_outer - length / 2, middle, 0])(label(value, stroke, height))
    profile = clip_profile(clip_shape(layout), value)
    return union()(linear_extrude(height=CLIP_WIDTH_MM)(profile), tag, numerals)


def card_mate(layout: DialLayout) -> OpenSCADObject:
    """A stub of one card finger, as thick and as wide as the card's rows."""
    d = layout.card
    return cube([CARD_STUB_MM, d.row_width_mm, d.card_thickness_mm])


def measure_clip(layout: DialLayout, step: trimesh.Trimesh, mate: trimesh.Trimesh) -> float:
    """The clip's opening between its jaws (away from the window and the bump) less the
    card's thickness, halved: the running gap on each face the clip slides with."""
    across = shapely.LineString([(layout.jaw_length / 2, -1e3), (layout.jaw_length / 2, 1e3)])
    jaws = meshgeo.section(step, CLIP_WIDTH_MM / 2).intersection(across)
    spans = sorted(shapely.get_coordinates(jaws)[:, 1].tolist())
    if len(spans) < 4:
        return float("nan")
    opening = spans[2] - spans[1]
    return (opening - float(mate.extents[2])) / 2


def clip_coupon(layout_of: LayoutOf, section: str = "stat_dial") -> Coupon:
    """The clip's running fit, keyed on `<section>.clip_clearance_mm`, checked against
    checks.clip_fit."""

    def step(design: Any, value: float) -> OpenSCADObject:
        return clip_step(layout_of(design), design.params.text.stroke_mm, value)

    def mate(design: Any) -> OpenSCADObject:
        return card_mate(layout_of(design))

    def measure(design: Any, step_mesh: trimesh.Trimesh, mate_mesh: trimesh.Trimesh) -> float:
        return measure_clip(layout_of(design), step_mesh, mate_mesh)

    return Coupon(
        fit="clip",
        key=f"{section}.clip_clearance_mm",
        title="stat clip on its card (per side)",
        step=step,
        mate=mate,
        measure=measure,
        fit_range="checks.clip_fit",
        how="slide each clip along the card stub: choose the tightest that slides freely",
    )

"""The clip on its card, measured between the meshes: a clip on every row at every value.

The only overlap is the detent bump in its groove, and hanging on its top jaw the clip
rests there unsprung; the running gaps on every jaw face match the clearance; between
values the jaws spread by the grip, and the jaw's bending strain stays under what PLA
takes repeatedly; the window frames the numeral.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import manifold3d
import numpy as np
import shapely
import trimesh
from shapely.geometry import MultiPolygon, Polygon, box

from squadron_cad.checks import memo, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import OVERLAP_EPS_MM3, FitLimits, overlap_finding
from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.geometry import frames

GRIP_STEPS = 10  # bisection steps when measuring the detent grip (0.001 mm)
DETENT_INTERFERENCE_MM = (0.10, 0.20)  # a click that holds without binding
# Allowable strain for a snap flexed many times. Bayer MaterialScience's "Snap-Fit Joints
# for Plastics" gives permissible short-term strains for one brief deflection and says to
# use about 60 % of them when the joint is worked often. No resin maker lists PLA there;
# PLA yields at about 2.5 % (datasheets give 2-3 %; PETG's give 4-6 %, so PLA governs):
# 60 % of it is 1.5 %, and we keep a third of that back for FDM's layers and voids.
CLIP_STRAIN_MAX = 0.010


def clip_on_card(layout: DialLayout, row: int, value: float) -> np.ndarray:
    """Clip frame (u across the finger, w through the card, along the row) -> card frame."""
    d = layout.card
    matrix = np.zeros((4, 4))
    matrix[0, 2] = matrix[1, 0] = matrix[2, 1] = matrix[3, 3] = 1.0
    matrix[0, 3] = float(layout.value_x(value)) - d.clip_width_mm / 2
    matrix[1, 3] = float(layout.row_bottom(row))
    return matrix


def bump_box(layout: DialLayout, row: int, value: int) -> manifold3d.Manifold:
    """Where the detent may overlap the card: around the bump, through the card's bottom."""
    d = layout.card
    u0, u1 = (float(u) for u in layout.bump_u)
    x = float(layout.value_x(value))
    y = float(layout.row_bottom(row))
    reach = float(layout.bump_height) + 0.5
    size = [reach * 2 + 1.0, u1 - u0 + 1.0, reach + 0.5]
    corner = [x - size[0] / 2, y + u0 - 0.5, -float(d.clip_clearance_mm) - 0.25]
    return manifold3d.Manifold.cube(size).translate(corner)


@dataclass(frozen=True)
class DialMeasure:
    placements: int
    stray_overlap_mm3: float  # overlap outside the detent bumps, worst placement
    unseated: list[tuple[int, int]]  # (row, value) where the resting clip's bump binds
    interference_mm: float  # how far the jaws spread to pass between two values (least)
    below_gap_mm: float
    edge_gap_mm: float
    top_gap_mm: float
    window_margin_mm: float  # least margin of a numeral inside the clip's window
    jaw_thickness_mm: float  # the lower jaw, where it bends
    jaw_span_mm: float  # from the spine's inner face to the middle of the bump

    @property
    def strain(self) -> float:
        """Bending strain at the lower jaw's root when the bump passes between values.
        The jaw is a cantilever from the spine loaded at the bump: a tip deflection d
        over a length L strains a rectangular section of thickness t by 1.5 t d / L^2
        (Bayer MaterialScience, "Snap-Fit Joints for Plastics", straight cantilever).
        Conservative: all of the spread is put on the lower jaw, none on the spine or the
        top jaw."""
        return 1.5 * self.jaw_thickness_mm * self.interference_mm / self.jaw_span_mm**2


def _grip(card: manifold3d.Manifold, clip: manifold3d.Manifold, thickness: float) -> float:
    """How far the clip's lower jaw must drop before its bump leaves the card."""
    lower_jaw = meshgeo.slab(clip, -10.0, thickness / 2)  # the top jaw rests on the card
    low, high = 0.0, 2.0
    for _ in range(GRIP_STEPS + 2):
        mid = (low + high) / 2
        dropped = meshgeo.placed(lower_jaw, frames.translate(z=-mid))
        if meshgeo.overlap_volume(card, dropped) > OVERLAP_EPS_MM3 * 1e-2:
            low = mid
        else:
            high = mid
    return high


def _jaw_dimensions(clip: trimesh.Trimesh, layout: DialLayout) -> tuple[float, float]:
    """(thickness, span) of the lower jaw, in the clip's own frame (u, w, along the row):
    thickness where it bends, beside the spine; span from the spine's inner face to the
    middle of the bump, both read off the clip's section through the bump."""
    d = layout.card
    profile = meshgeo.section(clip, float(d.clip_width_mm) / 2)
    low_w = float(clip.bounds[0][1])
    mid_card = float(d.card_thickness_mm) / 2
    spine = profile.intersection(shapely.LineString([(-1e3, mid_card), (1e3, mid_card)]))
    spine_inner = float(spine.bounds[2])
    root = profile.intersection(
        shapely.LineString([(spine_inner + 0.3, low_w - 1), (spine_inner + 0.3, mid_card)])
    )
    thickness = float(root.bounds[3] - root.bounds[1])
    above_jaw = low_w + thickness + 0.05
    rise = profile.intersection(box(spine_inner + 0.01, above_jaw, 1e3, mid_card))
    bump_middle = (rise.bounds[0] + rise.bounds[2]) / 2
    return thickness, float(bump_middle - spine_inner)


def _cross_section(solid: manifold3d.Manifold, x: float) -> MultiPolygon:
    """The section at x, as polygons in (y, z)."""
    turn = np.array([[0.0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]])  # x -> z
    return meshgeo.section(meshgeo.placed(solid, turn), x)


def _sliding_gaps(
    card: manifold3d.Manifold, clip: manifold3d.Manifold, layout: DialLayout, row: int, x: float
) -> tuple[float, float, float]:
    """Gaps below the card, beside the finger's edge, and above (the top jaw's contact)."""
    finger = _cross_section(card, x)
    c_shape = _cross_section(clip, x)
    edge_y = float(layout.row_bottom(row))
    thickness = float(layout.card.card_thickness_mm)
    # Each face alone, across from the card's face it runs along: the jaws inside the
    # finger's edge, the spine beside the card's thickness (not the corners between, whose
    # distance to the card's edge is a diagonal, shorter than neither gap).
    below = c_shape.intersection(box(edge_y + 0.01, -1e3, 1e3, thickness / 2))
    beside = c_shape.intersection(box(-1e3, 0.01, edge_y, thickness - 0.01))
    above = c_shape.intersection(box(edge_y + 0.01, thickness / 2, 1e3, 1e3))
    return finger.distance(below), finger.distance(beside), finger.distance(above)


def _window_margin(
    engraved: MultiPolygon, clip: manifold3d.Manifold, layout: DialLayout, row: int, value: int
) -> float:
    """How far inside the clip's window the numeral's ink stays (negative: covered)."""
    d = layout.card
    top_face = float(d.card_thickness_mm) + float(d.clip_clearance_mm)
    jaw = meshgeo.section(clip, top_face + float(d.clip_jaw_thickness_mm) / 2)
    windows = [Polygon(ring) for p in meshgeo.polygons(jaw) for ring in p.interiors]
    ink = _numeral(engraved, layout, row, value)
    if not windows or ink.is_empty:
        return -math.inf
    window = max(windows, key=lambda w: w.intersection(ink).area)
    if not ink.within(window):
        return -float(ink.difference(window).area)
    return float(window.exterior.distance(ink))


def _numeral(engraved: MultiPolygon, layout: DialLayout, row: int, value: int) -> MultiPolygon:
    """The numeral's ink: what the engraving removed around the value's position."""
    d = layout.card
    x = float(layout.value_x(value))
    y = float(layout.row_bottom(row))
    cell = box(x - float(d.clip_width_mm) / 2, y, x + float(d.clip_width_mm) / 2,
               y + float(d.row_width_mm))  # fmt: skip
    ink = cell.buffer(-0.01).difference(engraved)
    return MultiPolygon([g for g in meshgeo.polygons(ink) if g.area > 1e-3])  # drop slivers


def measure_dial(layout: DialLayout, card: trimesh.Trimesh, clip: trimesh.Trimesh) -> DialMeasure:
    card_solid, clip_solid = meshgeo.solid_of(card), meshgeo.solid_of(clip)
    thickness = float(layout.card.card_thickness_mm)
    engraved = meshgeo.section(card, thickness - float(layout.text.depth_mm) / 2)
    # The running gaps, beside the bump, on the clip as modelled (centred on the finger).
    row, value = 0, layout.values[0]
    placed = meshgeo.placed(clip_solid, clip_on_card(layout, row, value))
    side_x = float(layout.value_x(value)) + float(layout.card.clip_width_mm) / 2 - 0.3
    below, edge, top = _sliding_gaps(card_solid, placed, layout, row, side_x)
    # At rest in a detent the clip hangs on its top jaw: dropped by the top gap.
    rest = frames.translate(z=-top)
    stray, unseated, margins = 0.0, [], []
    for row in range(layout.rows):
        for value in layout.values:
            placed = meshgeo.placed(clip_solid, clip_on_card(layout, row, value))
            both = meshgeo.overlap(card_solid, placed)
            stray = max(stray, float((both - bump_box(layout, row, value)).volume()))
            resting = meshgeo.placed(placed, rest)
            if meshgeo.overlap_volume(card_solid, resting) > OVERLAP_EPS_MM3:
                unseated.append((row, value))
            margins.append(_window_margin(engraved, placed, layout, row, value))
    # Between two values the bump rides on the card: the jaws spread past the top gap.
    spreads = []
    for value in list(layout.values)[:-1]:
        between = clip_on_card(layout, 0, value + 0.5)
        spreads.append(_grip(card_solid, meshgeo.placed(clip_solid, between), thickness) - top)
    jaw_thickness, jaw_span = _jaw_dimensions(clip, layout)
    return DialMeasure(
        layout.rows * len(layout.values),
        stray,
        unseated,
        min(spreads) if spreads else math.nan,
        below,
        edge,
        top,
        min(margins),
        jaw_thickness,
        jaw_span,
    )


def remembered_dial(
    layout: DialLayout, card: trimesh.Trimesh, clip: trimesh.Trimesh
) -> DialMeasure:
    """measure_dial, kept between builds by the meshes and the card's own parameters."""
    read = f"{layout.card.model_dump_json()}|{layout.text.model_dump_json()}"
    inputs = f"{memo.mesh_digest(card)}|{memo.mesh_digest(clip)}|{read}"
    value = memo.remember("dial", inputs, lambda: asdict(measure_dial(layout, card, clip)))
    unseated = [(int(row), int(value_)) for row, value_ in value["unseated"]]  # JSON: lists
    return DialMeasure(**{**value, "unseated": unseated})


def dial_findings(
    card: StatCardParams, limits: FitLimits, dial: DialMeasure, name: str
) -> list[Finding]:
    """The clip on its card against the parameters; `limits` are the kit's for the clip."""
    stray = "clip and card (besides the detent)"
    gaps = [
        limits.finding(name, f"clip_gap_{where}", gap, card.clip_clearance_mm)
        for where, gap in (("below", dial.below_gap_mm), ("edge", dial.edge_gap_mm),
                           ("top", dial.top_gap_mm))
    ]  # fmt: skip
    return [
        overlap_finding(name, "clip_rubs", dial.stray_overlap_mm3, stray),
        *gaps,
        _seat_finding(dial, name),
        _interference_finding(card, limits.tolerance_mm, dial, name),
        _strain_finding(dial, name),
        _window_finding(dial, name),
    ]


def _seat_finding(dial: DialMeasure, name: str) -> Finding:
    ok = not dial.unseated
    return Finding(
        name,
        "detent_seats",
        f"{dial.placements - len(dial.unseated)} of {dial.placements} positions",
        "the clip rests in every detent unsprung (its bump fits its groove)",
        verdict(ok),
        "" if ok else f"the bump binds in its groove at (row, value) {dial.unseated}",
    )


def _interference_finding(
    card: StatCardParams, tol: float, dial: DialMeasure, name: str
) -> Finding:
    low, high = DETENT_INTERFERENCE_MM
    grip = card.grip_mm
    measured = dial.interference_mm
    ok = low - 1e-3 <= measured <= high + 1e-3 and abs(measured - grip) <= tol
    return Finding(
        name,
        "detent_interference",
        round(measured, 3),
        f"{grip:g} mm (stat_dial.grip_mm), within {low:g}-{high:g} mm",
        verdict(ok),
        "" if ok else f"the jaws spread {measured:.3f} mm between values",
    )


def _strain_finding(dial: DialMeasure, name: str) -> Finding:
    strain = dial.strain
    ok = strain <= CLIP_STRAIN_MAX
    return Finding(
        name,
        "clip_jaw_strain",
        f"{strain * 100:.2f} % (1.5 t d / L^2: t {dial.jaw_thickness_mm:.2f}, "
        f"d {dial.interference_mm:.3f}, L {dial.jaw_span_mm:.2f} mm)",
        f"at most {CLIP_STRAIN_MAX * 100:g} % (PLA flexed often: 60 % of its ~2.5 % yield "
        f"strain, per Bayer's snap-fit guide, less an FDM margin; PETG takes more)",
        verdict(ok),
        "" if ok else "the jaw bends past what PLA takes repeatedly: it will crack or creep",
    )


def _window_finding(dial: DialMeasure, name: str) -> Finding:
    ok = dial.window_margin_mm >= 0
    return Finding(
        name,
        "window_frames_numeral",
        round(dial.window_margin_mm, 3),
        ">= 0 mm: every numeral inside the clip's window",
        verdict(ok),
        "" if ok else "the clip's window hides part of a numeral",
    )

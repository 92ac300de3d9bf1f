"""The clip on its card, measured between the meshes: a clip on every row at every value.

The only overlap is the detent bump in its groove, and hanging on its top jaw the clip
rests there unsprung; the running gaps on every jaw face match the clearance; between
values the jaws spread by the grip, and the jaw's bending strain stays under what PLA
takes repeatedly; so does the strain of the two rails the window leaves in the top jaw;
the window frames the numeral.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import manifold3d
import numpy as np
import shapely
import trimesh
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from squadron_cad.checks import memo, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import OVERLAP_EPS_MM3, FitLimits, overlap_finding
from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.geometry import frames

GRIP_STEPS = 10  # bisection steps when measuring the detent grip (0.001 mm)
BEAM_SAMPLES = 400  # sections along a jaw when integrating its bending
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
    rails: RailMeasure | None = None  # the top jaw beside its window

    @property
    def strain(self) -> float:
        """Bending strain at the lower jaw's root when the bump passes between values.
        The jaw is a cantilever from the spine loaded at the bump: a tip deflection d
        over a length L strains a rectangular section of thickness t by 1.5 t d / L^2
        (Bayer MaterialScience, "Snap-Fit Joints for Plastics", straight cantilever).
        Conservative: all of the spread is put on the lower jaw, none on the spine or the
        top jaw."""
        return 1.5 * self.jaw_thickness_mm * self.interference_mm / self.jaw_span_mm**2


@dataclass(frozen=True)
class RailMeasure:
    """The two rails the window leaves in the top jaw, read off the clip's mesh, and their
    bending strain when the jaws spread between values."""

    width_mm: float  # the narrower rail, along the row
    thickness_mm: float  # through the card's thickness
    strain: float  # the top jaw's peak strain: at the rails' root, or the jaw's own
    at_mm: float  # where it peaks, from the spine's inner face


def beam_strain(
    positions: np.ndarray,
    widths: np.ndarray,
    thicknesses: np.ndarray,
    load_at: float,
    deflection: float,
) -> tuple[float, float]:
    """Peak bending strain, and where, of a cantilever from position 0 (its root) whose
    rectangular section (width, thickness) varies along it, deflected by `deflection` where
    the load bears (`load_at`). Euler-Bernoulli: M = P (a - s); the deflection there is
    P integral (a - s)^2 / E I ds; the strain at s is M (t / 2) / E I. For a constant
    section this is 1.5 t d / a^2, the Bayer guide's straight cantilever."""
    inside = positions <= load_at
    s, b, t = positions[inside], widths[inside], thicknesses[inside]
    inertia = b * t**3 / 12
    compliance = float(np.trapezoid((load_at - s) ** 2 / inertia, s))
    strains = deflection * (load_at - s) * (t / 2) / inertia / compliance
    peak = int(np.argmax(strains))
    return float(strains[peak]), float(s[peak])  # fmt: skip


def _jaw_plane(solid: manifold3d.Manifold, w: float) -> MultiPolygon:
    """The clip's section across its jaws at w (through the card's thickness), as polygons
    in (u, -along the row): the plane a jaw's width is read in."""
    turn = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])  # y -> z
    return meshgeo.section(meshgeo.placed(solid, turn), w)


def _chord(section: BaseGeometry, u: float) -> float:
    """How much material the line across `section` at u crosses."""
    return float(section.intersection(shapely.LineString([(u, -1e3), (u, 1e3)])).length)


def measure_rails(
    clip: trimesh.Trimesh, layout: DialLayout, span: float, spread: float
) -> RailMeasure | None:
    """The top jaw as a cantilever from the spine's inner face, loaded over the bump (the
    card between them), all of the spread put on it (the lower jaw's measure turned round):
    its width along the row and its thickness read at each step across the finger from the
    clip's mesh, so the window's rails count as what they are."""
    d = layout.card
    top_face = float(d.card_thickness_mm) + float(d.clip_clearance_mm)
    plane = _jaw_plane(meshgeo.solid_of(clip), top_face + float(d.clip_jaw_thickness_mm) / 2)
    windows = [Polygon(ring) for p in meshgeo.polygons(plane) for ring in p.interiors]
    if not windows:
        return None
    window = max(windows, key=lambda w: w.area)
    middle = (window.bounds[0] + window.bounds[2]) / 2
    across = plane.intersection(shapely.LineString([(middle, -1e3), (middle, 1e3)]))
    outer, inner = across.bounds, window.bounds
    rail = min(inner[1] - outer[1], outer[3] - inner[3])
    # The profile through a rail (u, w): the jaw's thickness at each u.
    rail_middle = float(clip.bounds[0][2]) + rail / 2
    jaw = meshgeo.section(clip, rail_middle).intersection(box(-1e3, top_face - 0.01, 1e3, 1e3))
    root = -float(d.clip_clearance_mm)  # the spine's inner face
    positions = (np.arange(BEAM_SAMPLES) + 0.5) * span / BEAM_SAMPLES  # off the spine's face
    widths = np.array([_chord(plane, root + s) for s in positions])
    thicknesses = np.array([_chord(jaw, root + s) for s in positions])
    if (widths <= 0).any() or (thicknesses <= 0).any():
        return None
    strain, at = beam_strain(positions, widths, thicknesses, span, spread)
    return RailMeasure(rail, _chord(jaw, middle), strain, at)


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
    interference = min(spreads) if spreads else math.nan
    return DialMeasure(
        layout.rows * len(layout.values),
        stray,
        unseated,
        interference,
        below,
        edge,
        top,
        min(margins),
        jaw_thickness,
        jaw_span,
        measure_rails(clip, layout, jaw_span, interference),
    )


def remembered_dial(
    layout: DialLayout, card: trimesh.Trimesh, clip: trimesh.Trimesh
) -> DialMeasure:
    """measure_dial, kept between builds by the meshes and the card's own parameters."""
    read = f"{layout.card.model_dump_json()}|{layout.text.model_dump_json()}"
    inputs = f"{memo.mesh_digest(card)}|{memo.mesh_digest(clip)}|{read}"
    value = memo.remember("dial", inputs, lambda: asdict(measure_dial(layout, card, clip)))
    unseated = [(int(row), int(value_)) for row, value_ in value["unseated"]]  # JSON: lists
    rails = None if value.get("rails") is None else RailMeasure(**value["rails"])
    return DialMeasure(**{**value, "unseated": unseated, "rails": rails})


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
        _rail_finding(dial, name),
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


def _rail_finding(dial: DialMeasure, name: str) -> Finding:
    rails = dial.rails
    ok = rails is not None and rails.strain <= CLIP_STRAIN_MAX
    measured = (
        "no window found in the top jaw" if rails is None
        else f"{rails.strain * 100:.2f} % at {rails.at_mm:.2f} mm from the spine (rails "
        f"{rails.width_mm:.2f} x {rails.thickness_mm:.2f} mm, d {dial.interference_mm:.3f}, "
        f"L {dial.jaw_span_mm:.2f} mm)"
    )  # fmt: skip
    return Finding(
        name,
        "clip_rail_strain",
        measured,
        f"at most {CLIP_STRAIN_MAX * 100:g} %, the jaw's limit: the top jaw, its window's two "
        "rails included, bent by the whole spread",
        verdict(ok),
        "" if ok else "the rails beside the window bend past what PLA takes repeatedly",
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

"""Clearances between parts that meet, measured between their meshes placed together.

- stacking: a token on an altitude token at every 45 degree turn: it seats flat (no
  overlap at the pitch), the pegs clear the socket walls by the fit and the sockets are
  deeper than the pegs stand;
- ruler joint: sections butted shoulder to shoulder: no overlap; then the second moved
  along each axis both ways until it collides: it stretches at most its axial clearance
  under pull, moves sideways by the joint clearance, and a snap stops it lifting off;
- stat dial: a clip on every row at every value: the only overlap is the detent bump in
  its groove, and hanging on its top jaw it rests there unsprung; the running gaps on every
  jaw face match the clearance; between values the jaws spread by the grip, and the jaw's
  bending strain stays under what PLA takes repeatedly; the window frames the numeral;
- box: every piece in its pocket and the lid in its rebate (poses from the tin-fit solver).

A gap is measured in sections (mm per side); overlap is an exact boolean volume (mm3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass

import manifold3d
import numpy as np
import shapely
import trimesh
from shapely import affinity
from shapely.geometry import MultiPolygon, Polygon, box

from squadron_cad.checks import fits, memo, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import (
    OVERLAP_EPS_MM3,
    fit_finding,
    overlap_finding,
    signed_gap,
)
from squadron_cad.fit.layout import Layout
from squadron_cad.geometry import frames
from squadron_cad.kits.squadron_leader.params import KitParams
from squadron_cad.kits.squadron_leader.parts.stat_dial import DialLayout

SEAT_PROBE_MM = 0.02  # lowered this much, a seated token must collide
TURNS_DEG = tuple(range(0, 360, 45))
GAP_LEVELS = 3  # sections through the pegs
MIN_TRAY_DEPTH_MM = 6.0  # the least rim for a dice tray
GRIP_STEPS = 10  # bisection steps when measuring the detent grip (0.001 mm)


@dataclass(frozen=True)
class StackMeasure:
    """A token seated on an altitude token: what the invariants reuse."""

    upper: str
    pitch_mm: float  # height the upper token rests at
    seats: dict[int, bool]  # per turn: no overlap at the pitch, contact just below
    radial_gap_mm: float  # pegs to socket walls, per side, least over all turns
    tip_gap_mm: float  # socket depth minus peg height


# ---- shared measures ------------------------------------------------------------------------


# ---- stacking ----------------------------------------------------------------------------


def _clear_at(lower: manifold3d.Manifold, upper: manifold3d.Manifold, z: float) -> bool:
    at = meshgeo.placed(upper, frames.translate(z=z))
    return meshgeo.overlap_volume(lower, at) <= OVERLAP_EPS_MM3


def _peg_gap(lower: trimesh.Trimesh, upper: trimesh.Trimesh, pitch: float, turn: int) -> float:
    """Least horizontal gap between the pegs and the upper token's socket walls."""
    peg_top = float(lower.bounds[1][2])
    gaps = []
    for i in range(GAP_LEVELS):
        z = pitch + (peg_top - pitch) * (i + 0.5) / GAP_LEVELS
        pegs = meshgeo.section(lower, z)  # above the top face only the pegs remain
        walls = affinity.rotate(meshgeo.section(upper, z - pitch), turn, origin=(0, 0))
        if pegs.is_empty or walls.is_empty:
            continue
        gaps.append(signed_gap(pegs, walls))
    return min(gaps) if gaps else math.nan


def _socket_depth(upper: trimesh.Trimesh, pegs: MultiPolygon) -> float:
    """Depth of the sockets over the pegs: their highest ceiling above the pegs' footprint."""
    down = (upper.face_normals[:, 2] < -0.999) & (upper.triangles_center[:, 2] > 1e-3)
    centres = upper.triangles_center[down]
    over = shapely.contains_xy(pegs.buffer(0.5), centres[:, 0], centres[:, 1])
    return float(centres[over, 2].max()) if over.any() else 0.0


def measure_stack(lower: trimesh.Trimesh, upper: trimesh.Trimesh, name: str) -> StackMeasure:
    pitch = meshgeo.top_face_z(lower)
    # Only the lower's top and the upper's underside can meet: smaller booleans.
    low_solid = meshgeo.slab(meshgeo.solid_of(lower), pitch - 1.0, pitch + 10.0)
    up_solid = meshgeo.slab(meshgeo.solid_of(upper), -1.0, float(lower.bounds[1][2]) - pitch + 1)
    # Seated flat: it touches the face below (turning does not change that) ...
    touches = not _clear_at(low_solid, up_solid, pitch - SEAT_PROBE_MM)
    seats = {}
    gaps = []
    for turn in TURNS_DEG:
        turned = meshgeo.placed(up_solid, frames.rotate_z(turn))
        seats[turn] = touches and _clear_at(low_solid, turned, pitch)  # ... and clears it
        gaps.append(_peg_gap(lower, upper, pitch, turn))
    peg_height = float(lower.bounds[1][2]) - pitch
    pegs = meshgeo.section(lower, pitch + 0.05)  # at turn 0 the sockets sit over the pegs
    return StackMeasure(name, pitch, seats, min(gaps), _socket_depth(upper, pegs) - peg_height)


def stack_findings(params: KitParams, stack: StackMeasure) -> list[Finding]:
    s, limits = params.stacking, params.checks
    name = f"altitude_token+{stack.upper}"
    unseated = [turn for turn, ok in stack.seats.items() if not ok]
    seat = Finding(
        name,
        "stack_seats",
        f"seats flat at {stack.pitch_mm:.3f} mm at {8 - len(unseated)} of 8 turns",
        f"seats flat at {params.token.height_mm:g} mm at every 45 deg turn",
        verdict(not unseated and abs(stack.pitch_mm - params.token.height_mm) < 1e-3),
        "" if not unseated else f"does not seat flat when turned {unseated} deg",
    )
    designed_tip = s.socket_extra_depth_mm
    tip = Finding(
        name,
        "stack_tip_gap",
        round(stack.tip_gap_mm, 4),
        f"{designed_tip:g} mm (stacking.socket_extra_depth_mm)",
        verdict(stack.tip_gap_mm > 0 and abs(stack.tip_gap_mm - designed_tip) <= 0.01 + 1e-9),
        "" if stack.tip_gap_mm > 0 else "the pegs bottom out in the sockets: faces cannot seat",
    )
    radial = fit_finding(
        name,
        "stack_peg_gap",
        stack.radial_gap_mm,
        s.peg_socket_clearance_mm / 2,
        limits.stack_fit,
        "stack_fit",
        limits.fit_tolerance_mm,
    )
    return [seat, tip, radial]


# ---- ruler joint -------------------------------------------------------------------------


def body_end_x(mesh: trimesh.Trimesh, at_end: Callable[[np.ndarray], float]) -> float:
    """Where a section's full-width body ends (its shoulder), not its tab."""
    half = float(np.abs(mesh.vertices[:, 1]).max())
    edge = mesh.vertices[np.abs(np.abs(mesh.vertices[:, 1]) - half) < 1e-3]
    return at_end(edge[:, 0])


JOINT_REGION_MM = 12.0  # either side of the shoulder: all of a joint, none of the marks
PLAY_STEP_MM = 0.05  # coarse steps when moving a section until it collides ...
PLAY_BISECTIONS = 10  # ... then halved this often (0.05 um)
PLAY_LIMIT_MM = 2.0  # moved this far without collision, it is free (inf)
PLAY_CONTACT_MM3 = 1e-4  # overlap that counts as a collision when measuring play
DIRECTIONS = {
    "pull": (1, 0, 0),
    "push": (-1, 0, 0),
    "left": (0, 1, 0),
    "right": (0, -1, 0),
    "up": (0, 0, 1),
    "down": (0, 0, -1),
}
JOINT_LIFT_MAX_MM = 0.5  # a section stopped within this, up and down, is held by a snap


def _around(solid: manifold3d.Manifold, x: float) -> manifold3d.Manifold:
    low, high = meshgeo.bounds_of(solid)
    size = [2 * JOINT_REGION_MM, high[1] - low[1] + 2, high[2] - low[2] + 2]
    cutter = manifold3d.Manifold.cube(size).translate([x - JOINT_REGION_MM, low[1] - 1, low[2] - 1])
    return solid ^ cutter


def travel(
    fixed: manifold3d.Manifold, moving: manifold3d.Manifold, direction: tuple[float, ...]
) -> float:
    """How far `moving` goes along `direction` before it collides with `fixed` (inf: free
    for PLAY_LIMIT_MM). Coarse steps find the first collision, bisection refines it."""
    step = np.asarray(direction, dtype=float)

    def hits(distance: float) -> bool:
        moved = meshgeo.placed(moving, frames.translate(*(step * distance)))
        return meshgeo.overlap_volume(fixed, moved) > PLAY_CONTACT_MM3

    free = 0.0
    for k in range(1, round(PLAY_LIMIT_MM / PLAY_STEP_MM) + 1):
        if hits(k * PLAY_STEP_MM):
            low, high = free, k * PLAY_STEP_MM
            for _ in range(PLAY_BISECTIONS):
                mid = (low + high) / 2
                low, high = (low, mid) if hits(mid) else (mid, high)
            return low
        free = k * PLAY_STEP_MM
    return math.inf


@dataclass(frozen=True)
class JointMeasure:
    offset_mm: float  # where the second section sits when its shoulder meets the first's
    overlap_mm3: float
    play_mm: dict[str, float]  # how far the second section moves each way before it collides

    @property
    def lateral_mm(self) -> float:
        return max(self.play_mm["left"], self.play_mm["right"])

    @property
    def lift_mm(self) -> float:
        return max(self.play_mm["up"], self.play_mm["down"])


def measure_joint(
    first: trimesh.Trimesh, second: trimesh.Trimesh, directions: Iterable[str] = DIRECTIONS
) -> JointMeasure:
    """Sections butted shoulder to shoulder, then the second moved along each axis, both
    ways, until it collides with the first: the joint's play, measured on the meshes."""
    shoulder = body_end_x(first, np.max)
    offset = shoulder - body_end_x(second, np.min)
    fixed = _around(meshgeo.solid_of(first), shoulder)
    moving = _around(meshgeo.placed(meshgeo.solid_of(second), frames.translate(x=offset)), shoulder)
    overlap = meshgeo.overlap_volume(fixed, moving)
    play = {name: travel(fixed, moving, DIRECTIONS[name]) for name in directions}
    return JointMeasure(offset, overlap, play)


def joint_pull_max_mm(sections: int) -> float:
    """The most one joint may stretch: the issue's 0.2 mm over the whole ruler."""
    return RULER_STRETCH_MAX_MM / max(sections - 1, 1)


RULER_STRETCH_MAX_MM = 0.2  # assembled ruler, pulled: within this of 3 template lengths


def joint_findings(params: KitParams, joint: JointMeasure, name: str) -> list[Finding]:
    limits, ruler = params.checks, params.ruler
    pull, push = joint.play_mm["pull"], joint.play_mm["push"]
    pull_max = joint_pull_max_mm(3)
    pull_ok = pull <= pull_max + 1e-3 and abs(pull - ruler.joint_axial_clearance_mm) <= (
        limits.fit_tolerance_mm
    )
    up, down = joint.play_mm["up"], joint.play_mm["down"]
    lift_ok = max(up, down) <= JOINT_LIFT_MAX_MM
    return [
        overlap_finding(name, "joint_overlap", joint.overlap_mm3, "tab and slot"),
        Finding(
            name,
            "joint_pull_play",
            round(pull, 4) if math.isfinite(pull) else "free",
            f"{float(ruler.joint_axial_clearance_mm):.3f} mm "
            f"(ruler.joint_axial_clearance_mm), at most {pull_max:g} mm "
            f"(the assembled ruler within {RULER_STRETCH_MAX_MM:g} mm under pull); "
            f"push {round(push, 4)} mm",
            verdict(pull_ok),
            "" if pull_ok else f"the joint stretches {pull:.3f} mm before it bites",
        ),
        fit_finding(
            name,
            "joint_side_play",
            joint.lateral_mm,
            ruler.joint_clearance_mm,
            limits.ruler_joint_fit,
            "ruler_joint_fit",
            limits.fit_tolerance_mm,
        ),
        Finding(
            name,
            "joint_lift_play",
            f"up {_mm(up)}, down {_mm(down)}",
            f"stopped within {JOINT_LIFT_MAX_MM:g} mm both ways (a snap holds the sections)",
            verdict(lift_ok),
            "" if lift_ok else "the sections lift apart with nothing to stop them",
        ),
    ]


def _mm(value: float) -> str:
    return f"{value:.3f} mm" if math.isfinite(value) else "free"


# ---- stat dial ---------------------------------------------------------------------------


def clip_on_card(layout: DialLayout, row: int, value: int) -> np.ndarray:
    """Clip frame (u across the finger, w through the card, along the row) -> card frame."""
    d = layout.p.stat_dial
    matrix = np.zeros((4, 4))
    matrix[0, 2] = matrix[1, 0] = matrix[2, 1] = matrix[3, 3] = 1.0
    matrix[0, 3] = float(layout.value_x(value)) - d.clip_width_mm / 2
    matrix[1, 3] = float(layout.row_bottom(row))
    return matrix


def bump_box(layout: DialLayout, row: int, value: int) -> manifold3d.Manifold:
    """Where the detent may overlap the card: around the bump, through the card's bottom."""
    d = layout.p.stat_dial
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


# Allowable strain for a snap flexed many times. Bayer MaterialScience's "Snap-Fit Joints
# for Plastics" gives permissible short-term strains for one brief deflection and says to
# use about 60 % of them when the joint is worked often. No resin maker lists PLA there;
# PLA yields at about 2.5 % (datasheets give 2-3 %; PETG's give 4-6 %, so PLA governs):
# 60 % of it is 1.5 %, and we keep a third of that back for FDM's layers and voids.
CLIP_STRAIN_MAX = 0.010


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
    d = layout.p.stat_dial
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
    thickness = float(layout.p.stat_dial.card_thickness_mm)
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
    d = layout.p.stat_dial
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
    d = layout.p.stat_dial
    x = float(layout.value_x(value))
    y = float(layout.row_bottom(row))
    cell = box(x - float(d.clip_width_mm) / 2, y, x + float(d.clip_width_mm) / 2,
               y + float(d.row_width_mm))  # fmt: skip
    ink = cell.buffer(-0.01).difference(engraved)
    return MultiPolygon([g for g in meshgeo.polygons(ink) if g.area > 1e-3])  # drop slivers


def measure_dial(params: KitParams, card: trimesh.Trimesh, clip: trimesh.Trimesh) -> DialMeasure:
    layout = DialLayout(params)
    card_solid, clip_solid = meshgeo.solid_of(card), meshgeo.solid_of(clip)
    thickness = float(params.stat_dial.card_thickness_mm)
    engraved = meshgeo.section(card, thickness - float(params.text.depth_mm) / 2)
    # The running gaps, beside the bump, on the clip as modelled (centred on the finger).
    row, value = 0, layout.values[0]
    placed = meshgeo.placed(clip_solid, clip_on_card(layout, row, value))
    side_x = float(layout.value_x(value)) + float(params.stat_dial.clip_width_mm) / 2 - 0.3
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
        between = clip_on_card(layout, 0, value + 0.5)  # type: ignore[arg-type]
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


def dial_findings(params: KitParams, dial: DialMeasure) -> list[Finding]:
    d, limits = params.stat_dial, params.checks
    name = "stat_dial_card+stat_dial_clip"
    tol = limits.fit_tolerance_mm
    stray = "clip and card (besides the detent)"
    gaps = [
        fit_finding(name, f"clip_gap_{where}", gap, d.clip_clearance_mm, limits.clip_fit,
                    "clip_fit", tol)
        for where, gap in (("below", dial.below_gap_mm), ("edge", dial.edge_gap_mm),
                           ("top", dial.top_gap_mm))
    ]  # fmt: skip
    return [
        overlap_finding(name, "clip_rubs", dial.stray_overlap_mm3, stray),
        *gaps,
        _seat_finding(dial, name),
        _interference_finding(params, dial, name),
        _strain_finding(dial, name),
        _window_finding(dial, name),
    ]


DETENT_INTERFERENCE_MM = (0.10, 0.20)  # a click that holds without binding (issue 19)


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


def _interference_finding(params: KitParams, dial: DialMeasure, name: str) -> Finding:
    low, high = DETENT_INTERFERENCE_MM
    grip = params.stat_dial.grip_mm
    tol = params.checks.fit_tolerance_mm
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


# ---- box -------------------------------------------------------------------------------------


def lid_findings(
    params: KitParams, meshes: Mapping[str, trimesh.Trimesh], layout: Layout | None
) -> list[Finding]:
    """The lid closed on the box, and turned over as a dice tray (the pieces in their
    pockets are the engine's fit proof: squadron_cad.checks.fits.stowed_findings)."""
    found = tray_findings(params, meshes["box_lid"]) if "box_lid" in meshes else []
    if "box" not in meshes or "box_lid" not in meshes or layout is None:
        return found
    box_solid = meshgeo.solid_of(meshes["box"])
    lid = meshgeo.placed(meshgeo.solid_of(meshes["box_lid"]), np.asarray(layout.lid_pose))
    found.append(closed_finding(params, box_solid, lid))
    volume = meshgeo.overlap_volume(box_solid, lid)
    if volume > OVERLAP_EPS_MM3:
        overlap = overlap_finding("box+box_lid", "lid_overlap", volume, "the lid and the box")
        return [*found, overlap]
    limits = params.checks
    # The lip laps the box's tongue: the gap between them, at the lip's mid-height.
    # Measured along the straight sides: at the corners both outlines are facets.
    z = float(meshgeo.bounds_of(lid)[0][2]) + params.box.lid_lip_mm / 2
    (x0, y0, _), (x1, y1, _) = meshgeo.bounds_of(lid)
    r = float(layout.box.radius)
    sides = box(x0 + r, -1e3, x1 - r, 1e3).union(box(-1e3, y0 + r, 1e3, y1 - r))
    gap = signed_gap(
        meshgeo.section(lid, z).intersection(sides),
        meshgeo.section(box_solid, z).intersection(sides),
    )
    designed = params.box.lid_clearance_mm
    return [
        *found,
        fit_finding(
            "box+box_lid",
            "lid_gap",
            gap,
            designed,
            limits.lid_fit,
            "lid_fit",
            limits.fit_tolerance_mm,
        ),
    ]


def tray_depth(lid: trimesh.Trimesh) -> float:
    """The lid turned over as a tray (as printed): its rim's top above its floor."""
    return float(lid.bounds[1][2]) - meshgeo.top_face_z(lid)


def tray_findings(params: KitParams, lid: trimesh.Trimesh) -> list[Finding]:
    depth = tray_depth(lid)
    wanted = params.box.lid_tray_depth_mm
    least = max(MIN_TRAY_DEPTH_MM, wanted - params.checks.fit_tolerance_mm)
    ok = depth >= least
    return [
        Finding(
            "box_lid",
            "lid_tray_depth",
            round(depth, 3),
            f">= {least:g} mm (box.lid_tray_depth_mm {wanted:g}; at least "
            f"{MIN_TRAY_DEPTH_MM:g} keeps a rolled die in)",
            verdict(ok),
            "" if ok else f"turned over, the lid is a tray only {depth:.2f} mm deep",
        )
    ]


def closed_finding(
    params: KitParams, box_solid: manifold3d.Manifold, lid: manifold3d.Manifold
) -> Finding:
    """Box and closed lid inside the tin, with the tin clearance all round and on top."""
    (bx0, by0, _), (bx1, by1, _) = meshgeo.bounds_of(box_solid)
    (lx0, ly0, _), (lx1, ly1, lz1) = meshgeo.bounds_of(lid)
    tin, clearance = params.tin, params.box.tin_clearance_mm
    length = max(bx1, lx1) - min(bx0, lx0)
    width = max(by1, ly1) - min(by0, ly0)
    height = max(float(lz1), float(meshgeo.bounds_of(box_solid)[1][2]))
    room = (
        tin.inner_length_mm - 2 * clearance,
        tin.inner_width_mm - 2 * clearance,
        tin.inner_depth_mm - clearance,
    )
    sizes = (length, width, height)
    ok = all(size <= limit + 1e-3 for size, limit in zip(sizes, room, strict=True))
    return Finding(
        "box+box_lid",
        "closed_in_tin",
        f"{length:.2f} x {width:.2f} x {height:.2f} mm",
        f"at most {room[0]:g} x {room[1]:g} x {room[2]:g} mm (the tin less "
        f"box.tin_clearance_mm {clearance:g})",
        verdict(ok),
        "" if ok else "the closed box does not fit its tin",
    )


def die_mesh(params: KitParams) -> trimesh.Trimesh:
    """A die as it rests, in the frame items.part_bounds gives it: a d6 is a cube; a d8 is
    an octahedron dice.size_mm point to point, on a face, a corner towards +x."""
    size = float(params.dice.size_mm)
    if params.dice.sides != 8:
        return trimesh.creation.box(
            extents=(size, size, size), transform=frames.translate(z=size / 2)
        )
    half = size / 2
    points = np.array(
        [[half, 0, 0], [-half, 0, 0], [0, half, 0], [0, -half, 0], [0, 0, half], [0, 0, -half]]
    )
    octahedron = trimesh.convex.convex_hull(points)
    down = trimesh.geometry.align_vectors(np.ones(3) / math.sqrt(3), [0, 0, -1])
    octahedron.apply_transform(down)
    corner = octahedron.vertices[np.argmax(octahedron.vertices[:, 2])]  # a top corner
    turn = -math.atan2(corner[1], corner[0]) + math.pi  # the bottom face's corner to +x
    octahedron.apply_transform(trimesh.transformations.rotation_matrix(turn, [0, 0, 1]))
    low, high = octahedron.bounds
    octahedron.apply_transform(
        frames.translate(-(low[0] + high[0]) / 2, -(low[1] + high[1]) / 2, -low[2])
    )
    return octahedron


def dice_findings(
    params: KitParams, box_mesh: trimesh.Trimesh, layout: Layout | None
) -> list[Finding]:
    """Every die (its real shape: a d8 is no cube) clear of the box and of the other dice,
    with the pocket clearance beside it (the engine's fit proof skips bought pieces)."""
    if layout is None:
        return []
    dice = [q for q in layout.placements if q.part == "die"]
    if not dice:
        return []
    die = meshgeo.solid_of(die_mesh(params))
    box_solid = meshgeo.solid_of(box_mesh)
    placed = [meshgeo.placed(die, np.asarray(q.transform, dtype=float)) for q in dice]
    overlap = max(meshgeo.overlap_volume(box_solid, d) for d in placed)
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            overlap = max(overlap, meshgeo.overlap_volume(a, b))
    gaps = [fits.side_gap(box_solid, d) for d in placed]
    fit = params.checks.pocket_fit
    tol = params.checks.fit_tolerance_mm
    least = min(gaps)
    ok = overlap <= OVERLAP_EPS_MM3 and least >= fit.min_mm - tol
    name = f"box+{len(dice)} d{params.dice.sides} dice"
    return [
        Finding(
            name,
            "die_in_pocket",
            f"least gap {least:.3f} mm, overlap {overlap:.3f} mm3",
            f"no overlap; at least {fit.min_mm:g} mm beside each die (checks.pocket_fit)",
            verdict(ok),
            "" if ok else f"a d{params.dice.sides} does not sit clear in its pocket",
        )
    ]


def all_findings(
    params: KitParams,
    meshes: dict[str, trimesh.Trimesh],
    stacks: Iterable[StackMeasure],
    layout: Layout | None,
) -> list[Finding]:
    """Every clearance finding the meshes allow (missing parts are skipped)."""
    findings: list[Finding] = []
    for stack in stacks:
        findings += stack_findings(params, stack)
    for first, second in (("range_ruler_1", "range_ruler_2"), ("range_ruler_2", "range_ruler_3")):
        if first in meshes and second in meshes:
            joint = remembered_joint(meshes[first], meshes[second])
            findings += joint_findings(params, joint, f"{first}+{second}")
    if "stat_dial_card" in meshes and "stat_dial_clip" in meshes:
        dial = remembered_dial(params, meshes["stat_dial_card"], meshes["stat_dial_clip"])
        findings += dial_findings(params, dial)
    if "box" in meshes:
        findings += dice_findings(params, meshes["box"], layout)
    return findings + lid_findings(params, meshes, layout)


# ---- kept between builds ----------------------------------------------------------------
# A joint and a dial depend on their meshes (and the dial on the parameters it reads), not
# on the tin: a tin change, the change a maker makes most, does not measure them again.

DIAL_IGNORES = frozenset({"tin", "box", "slicer", "printer", "previews", "plates", "paper"})


def remembered_joint(first: trimesh.Trimesh, second: trimesh.Trimesh) -> JointMeasure:
    inputs = f"{memo.mesh_digest(first)}|{memo.mesh_digest(second)}"
    value = memo.remember("joint", inputs, lambda: asdict(measure_joint(first, second)))
    return JointMeasure(**value)


def remembered_dial(params: KitParams, card: trimesh.Trimesh, clip: trimesh.Trimesh) -> DialMeasure:
    read = params.model_dump_json(exclude=set(DIAL_IGNORES))
    inputs = f"{memo.mesh_digest(card)}|{memo.mesh_digest(clip)}|{read}"
    value = memo.remember("dial", inputs, lambda: asdict(measure_dial(params, card, clip)))
    unseated = [(int(row), int(value_)) for row, value_ in value["unseated"]]  # JSON: lists
    return DialMeasure(**{**value, "unseated": unseated})

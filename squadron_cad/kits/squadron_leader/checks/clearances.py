"""Clearances between parts that meet, measured between their meshes placed together.

- stacking: a token on an altitude token at every 45 degree turn: it seats flat (no
  overlap at the pitch), the pegs clear the socket walls by the fit and the sockets are
  deeper than the pegs stand;
- ruler joint and stat dial: the components' measures (squadron_cad.components), against
  this kit's fit ranges;
- box: every piece in its pocket and the lid in its rebate (poses from the tin-fit solver).

A gap is measured in sections (mm per side); overlap is an exact boolean volume (mm3).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import manifold3d
import numpy as np
import shapely
import trimesh
from shapely import affinity
from shapely.geometry import MultiPolygon, box

from squadron_cad.checks import fits, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import (
    OVERLAP_EPS_MM3,
    FitLimits,
    fit_finding,
    overlap_finding,
    signed_gap,
)
from squadron_cad.components.ruler_joint.measure import joint_findings, remembered_joint
from squadron_cad.components.stat_card.measure import dial_findings, remembered_dial
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.fit.layout import Layout
from squadron_cad.geometry import frames
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

SECTIONS = constants.RULER_LENGTH_TEMPLATES  # the ruler's sections, 2 joints
DIAL_PAIR = "stat_dial_card+stat_dial_clip"

SEAT_PROBE_MM = 0.02  # lowered this much, a seated token must collide
TURNS_DEG = tuple(range(0, 360, 45))
GAP_LEVELS = 3  # sections through the pegs
MIN_TRAY_DEPTH_MM = 6.0  # the least rim for a dice tray


@dataclass(frozen=True)
class StackMeasure:
    """A token seated on an altitude token: what the invariants reuse."""

    upper: str
    pitch_mm: float  # height the upper token rests at
    seats: dict[int, bool]  # per turn: no overlap at the pitch, contact just below
    radial_gap_mm: float  # pegs to socket walls, per side, least over all turns
    tip_gap_mm: float  # socket depth minus peg height


# ---- stacking ----------------------------------------------------------------------------


def _clear_at(lower: manifold3d.Manifold, upper: manifold3d.Manifold, z: float) -> bool:
    at = meshgeo.placed(upper, frames.translate(z=z))
    return meshgeo.overlap_volume(lower, at) <= OVERLAP_EPS_MM3


def _gap_levels(
    lower: trimesh.Trimesh, upper: trimesh.Trimesh, pitch: float
) -> list[tuple[MultiPolygon, MultiPolygon]]:
    """The pegs and the upper token's socket walls, sectioned at GAP_LEVELS heights through
    the pegs (once for every turn: turning the walls does not change their section)."""
    peg_top = float(lower.bounds[1][2])
    levels = []
    for i in range(GAP_LEVELS):
        z = pitch + (peg_top - pitch) * (i + 0.5) / GAP_LEVELS
        pegs = meshgeo.section(lower, z)  # above the top face only the pegs remain
        walls = meshgeo.section(upper, z - pitch)
        if not pegs.is_empty and not walls.is_empty:
            levels.append((pegs, walls))
    return levels


def _peg_gap(levels: list[tuple[MultiPolygon, MultiPolygon]], turn: int) -> float:
    """Least horizontal gap between the pegs and the socket walls turned by `turn`."""
    gaps = [signed_gap(pegs, affinity.rotate(walls, turn, origin=(0, 0))) for pegs, walls in levels]
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
    levels = _gap_levels(lower, upper, pitch)
    for turn in TURNS_DEG:
        turned = meshgeo.placed(up_solid, frames.rotate_z(turn))
        seats[turn] = touches and _clear_at(low_solid, turned, pitch)  # ... and clears it
        gaps.append(_peg_gap(levels, turn))
    peg_height = float(lower.bounds[1][2]) - pitch
    pegs = meshgeo.section(lower, pitch + 0.05)  # at turn 0 the sockets sit over the pegs
    return StackMeasure(name, pitch, seats, min(gaps), _socket_depth(upper, pegs) - peg_height)


def stack_findings(params: SquadronLeaderParams, stack: StackMeasure) -> list[Finding]:
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


# ---- ruler joint and stat dial: the components' measures, with this kit's limits ----------


def joint_limits(params: SquadronLeaderParams) -> FitLimits:
    limits = params.checks
    return FitLimits(limits.ruler_joint_fit, "ruler_joint_fit", limits.fit_tolerance_mm)


def clip_limits(params: SquadronLeaderParams) -> FitLimits:
    return FitLimits(params.checks.clip_fit, "clip_fit", params.checks.fit_tolerance_mm)


def dial_layout(params: SquadronLeaderParams) -> DialLayout:
    return DialLayout(params.stat_dial, params.text)


# ---- box -------------------------------------------------------------------------------------


def lid_findings(
    params: SquadronLeaderParams, meshes: Mapping[str, trimesh.Trimesh], layout: Layout | None
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


def tray_findings(params: SquadronLeaderParams, lid: trimesh.Trimesh) -> list[Finding]:
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
    params: SquadronLeaderParams, box_solid: manifold3d.Manifold, lid: manifold3d.Manifold
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


def die_mesh(params: SquadronLeaderParams) -> trimesh.Trimesh:
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
    params: SquadronLeaderParams, box_mesh: trimesh.Trimesh, layout: Layout | None
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
    params: SquadronLeaderParams,
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
            name = f"{first}+{second}"
            findings += joint_findings(params.ruler, joint_limits(params), joint, name, SECTIONS)
    if "stat_dial_card" in meshes and "stat_dial_clip" in meshes:
        card, clip = meshes["stat_dial_card"], meshes["stat_dial_clip"]
        dial = remembered_dial(dial_layout(params), card, clip)
        findings += dial_findings(params.stat_dial, clip_limits(params), dial, DIAL_PAIR)
    if "box" in meshes:
        findings += dice_findings(params, meshes["box"], layout)
    return findings + lid_findings(params, meshes, layout)

"""The joint measured on the meshes: two sections butted shoulder to shoulder, then the
second moved along each axis both ways until it collides with the first. It stretches at
most its axial clearance under pull, moves sideways by the joint clearance, and a snap
stops it lifting off."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

import manifold3d
import numpy as np
import trimesh

from squadron_cad.checks import memo, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import FitLimits, overlap_finding
from squadron_cad.components.ruler_joint.params import SectionedRulerParams
from squadron_cad.geometry import frames

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
RULER_STRETCH_MAX_MM = 0.2  # assembled ruler, pulled: within this of its length


def body_end_x(mesh: trimesh.Trimesh, at_end: Callable[[np.ndarray], float]) -> float:
    """Where a section's full-width body ends (its shoulder), not its tab."""
    half = float(np.abs(mesh.vertices[:, 1]).max())
    edge = mesh.vertices[np.abs(np.abs(mesh.vertices[:, 1]) - half) < 1e-3]
    return at_end(edge[:, 0])


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


def remembered_joint(first: trimesh.Trimesh, second: trimesh.Trimesh) -> JointMeasure:
    """measure_joint, kept between builds by the two meshes' content (a change that leaves
    the ruler alone, another tin, measures it no more)."""
    inputs = f"{memo.mesh_digest(first)}|{memo.mesh_digest(second)}"
    value = memo.remember("joint", inputs, lambda: asdict(measure_joint(first, second)))
    return JointMeasure(**value)


def joint_pull_max_mm(sections: int) -> float:
    """The most one joint may stretch: RULER_STRETCH_MAX_MM over the whole ruler."""
    return RULER_STRETCH_MAX_MM / max(sections - 1, 1)


def joint_findings(
    ruler: SectionedRulerParams, limits: FitLimits, joint: JointMeasure, name: str, sections: int
) -> list[Finding]:
    """The joint's overlap, pull, side and lift play against the parameters; `limits` are
    the kit's for its joints' side play, `sections` how many the assembled ruler has."""
    pull, push = joint.play_mm["pull"], joint.play_mm["push"]
    pull_max = joint_pull_max_mm(sections)
    pull_ok = pull <= pull_max + 1e-3 and abs(pull - ruler.joint_axial_clearance_mm) <= (
        limits.tolerance_mm
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
        limits.finding(name, "joint_side_play", joint.lateral_mm, ruler.joint_clearance_mm),
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

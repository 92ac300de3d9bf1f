"""The one model of what fits the print bed: a part fits if some turn about z puts its
footprint (its convex hull, not a box around it) inside the bed less a margin. The mesh
check, the slicer and the plates all ask here, so they never disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import trimesh
from scipy.spatial import ConvexHull, QhullError

TURN_STEP_DEG = 0.25  # the sweep's resolution; a 1 m part moves under 2.2 mm per step
PREFERRED_DEG = (0.0, 90.0)  # square to the bed first: plates pack rows, slicers centre


@dataclass(frozen=True)
class Bed:
    length_mm: float
    width_mm: float
    height_mm: float
    margin_mm: float = 0.0

    @property
    def usable(self) -> tuple[float, float]:
        return self.length_mm - 2 * self.margin_mm, self.width_mm - 2 * self.margin_mm

    def describe(self) -> str:
        return f"{self.length_mm:g} x {self.width_mm:g} x {self.height_mm:g} mm"


@dataclass(frozen=True)
class Placement:
    """How a part lies on the bed: its turn about z and the footprint's size so turned."""

    fits: bool
    turn_deg: float
    size_mm: tuple[float, float]  # x, y of the turned footprint
    height_mm: float


def footprint(mesh: trimesh.Trimesh) -> np.ndarray:
    """The xy corners of the part's convex hull (what touches or overhangs the bed)."""
    points = np.asarray(mesh.vertices[:, :2], dtype=float)
    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):  # flat or degenerate: its points are the footprint
        return points
    return points[hull.vertices]


def turned_size(points: np.ndarray, turn_deg: float) -> tuple[float, float]:
    angle = math.radians(turn_deg)
    c, s = math.cos(angle), math.sin(angle)
    x = points[:, 0] * c - points[:, 1] * s
    y = points[:, 0] * s + points[:, 1] * c
    return float(x.max() - x.min()), float(y.max() - y.min())


def place(points: np.ndarray, height_mm: float, bed: Bed) -> Placement:
    """The first turn that fits (square turns first, then the smallest turn), or the
    best miss (the smallest overshoot) when none does."""
    length, width = bed.usable
    turns = [*PREFERRED_DEG, *np.arange(TURN_STEP_DEG, 180.0, TURN_STEP_DEG)]
    best: tuple[float, float, tuple[float, float]] | None = None
    for turn in sorted(turns, key=lambda t: (t not in PREFERRED_DEG, min(t, 180 - t))):
        size = turned_size(points, float(turn))
        over = max(size[0] - length, size[1] - width, 0.0)
        if over <= 1e-9 and height_mm <= bed.height_mm + 1e-9:
            return Placement(True, float(turn), size, height_mm)
        if best is None or over < best[0]:
            best = (over, float(turn), size)
    assert best is not None
    return Placement(False, best[1], best[2], height_mm)


def place_mesh(mesh: trimesh.Trimesh, bed: Bed) -> Placement:
    return place(footprint(mesh), float(mesh.extents[2]), bed)

"""The one model of what fits the print bed: a part fits if some turn about z puts its
footprint (its convex hull, not a box around it) inside the bed less a margin. The mesh
check, the slicer and the plates all ask here, so they never disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # light: `fit` places a box's outline without the meshing stack
    import trimesh

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
    from scipy.spatial import ConvexHull, QhullError

    points = np.asarray(mesh.vertices[:, :2], dtype=float)
    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):  # flat or degenerate: its points are the footprint
        return points
    return points[hull.vertices]


def turned_sizes(points: np.ndarray, turns_deg: np.ndarray) -> np.ndarray:
    """The footprint's x and y extent at each turn about z (one row per turn)."""
    angles = np.radians(np.asarray(turns_deg, dtype=float))[:, None]
    x = points[None, :, 0] * np.cos(angles) - points[None, :, 1] * np.sin(angles)
    y = points[None, :, 0] * np.sin(angles) + points[None, :, 1] * np.cos(angles)
    return np.stack([np.ptp(x, axis=1), np.ptp(y, axis=1)], axis=1)


def turned_size(points: np.ndarray, turn_deg: float) -> tuple[float, float]:
    size = turned_sizes(points, np.array([turn_deg]))[0]
    return float(size[0]), float(size[1])


def place(points: np.ndarray, height_mm: float, bed: Bed) -> Placement:
    """Square on when it fits (0 then 90 deg: plates pack rows); else the turn leaving the
    most room on the tighter side, which keeps a slicer's skirt and brim on the bed too;
    else the best miss (the smallest overshoot)."""
    length, width = bed.usable
    tall = height_mm > bed.height_mm + 1e-9
    for turn in PREFERRED_DEG:
        size = turned_size(points, turn)
        if not tall and size[0] <= length + 1e-9 and size[1] <= width + 1e-9:
            return Placement(True, turn, size, height_mm)
    sweep = np.arange(0.0, 180.0, TURN_STEP_DEG)
    sizes = turned_sizes(points, sweep)
    room = np.minimum(length - sizes[:, 0], width - sizes[:, 1])  # negative: overshoot
    # Ties (a rectangle's mirror turns) go to the smallest turn: np.argmax takes the first.
    best = int(np.argmax(np.round(room, 6)))
    size = (float(sizes[best, 0]), float(sizes[best, 1]))
    return Placement(bool(room[best] >= -1e-9) and not tall, float(sweep[best]), size, height_mm)


def place_mesh(mesh: trimesh.Trimesh, bed: Bed) -> Placement:
    return place(footprint(mesh), float(mesh.extents[2]), bed)

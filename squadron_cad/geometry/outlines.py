"""A centred rounded rectangle (a tin's inside, a box's outline) as numbers: how far points
lie inside it, and its outline as a polygon. Plain numpy: the stowers, the checks and the
pre-render rules all measure against the same outline."""

from __future__ import annotations

import math

import numpy as np


def clearance_inside(
    points: np.ndarray, length: float, width: float, radius: float
) -> np.ndarray | float:
    """Smallest distance from any point to the outline of a centred rounded rectangle
    (negative outside), over the last axis but one: a stack of point sets gives one
    figure per set. A convex polygon is inside exactly when its vertices are."""
    if points.size == 0:
        return math.inf
    radius = min(max(radius, 0.0), length / 2, width / 2)
    qx = np.abs(points[..., 0]) - (length / 2 - radius)
    qy = np.abs(points[..., 1]) - (width / 2 - radius)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
    clearance = np.min(radius - outside, axis=-1)
    return float(clearance) if np.ndim(clearance) == 0 else clearance


def rounded_rect_points(length: float, width: float, radius: float, steps: int = 12) -> np.ndarray:
    """A centred rounded rectangle as a polygon (corners sampled every 90 / steps deg)."""
    radius = min(max(radius, 0.0), length / 2, width / 2)
    hx, hy = length / 2 - radius, width / 2 - radius
    points = []
    for cx, cy, start in ((hx, hy, 0), (-hx, hy, 90), (-hx, -hy, 180), (hx, -hy, 270)):
        for k in range(steps + 1):
            angle = np.radians(start + 90 * k / steps)
            points.append((cx + radius * np.cos(angle), cy + radius * np.sin(angle)))
    return np.array(points)

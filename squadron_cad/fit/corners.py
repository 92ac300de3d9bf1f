"""How far pockets stand from a box's rounded inner wall (plain numpy, for every stower).

Pockets that fit the box's inner length and width can still break out through a rounded
corner: in a round or oval tin's box the corners are most of the wall. Sliding the
arrangement within its spare room often clears them (an L-shaped arrangement sits better
off centre).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from squadron_cad.fit.layout import BoxShape
from squadron_cad.geometry.outlines import clearance_inside

EPS = 1e-6
OFFSET_STEPS = 7  # positions tried per axis when sliding blocks away from a tight corner
RADIUS_STEPS = 40  # bisection steps for the largest radius that clears (far below 0.01 mm)


def wall_clearance(
    shape: BoxShape, points: np.ndarray, inner_radius: float | None = None
) -> np.ndarray | float:
    """Smallest distance from any point to the inner wall, rounded corners included
    (negative outside); over the last axis but one, so a stack of point sets gives one
    figure per set. The inner outline is convex, so a pocket (convex or not) is inside it
    exactly when its vertices are. `inner_radius`: another corner radius than the box's."""
    radius = shape.inner_radius if inner_radius is None else inner_radius
    return clearance_inside(points, shape.inner_length, shape.inner_width, radius)


def best_offset(
    shape: BoxShape,
    footprint: tuple[float, float],
    outlines: Sequence[np.ndarray],
    fixed: Sequence[np.ndarray] = (),
) -> tuple[tuple[float, float], float]:
    """Where to slide the centred `outlines` (an arrangement of `footprint` w x h) and the
    wall clearance there: centred, unless sliding within the spare room clears a rounded
    corner better. `fixed` outlines (a recess on top) stay where they are."""
    points = np.vstack(outlines)
    still = np.vstack(fixed) if fixed else np.empty((0, 2))
    # one point set each (not a stack): a number, not an array
    centred = float(min(wall_clearance(shape, points), wall_clearance(shape, still)))
    slack_x = max(shape.inner_length - footprint[0], 0.0) / 2
    slack_y = max(shape.inner_width - footprint[1], 0.0) / 2
    if 2 * centred >= min(2 * slack_x, 2 * slack_y) - EPS:
        return (0.0, 0.0), centred  # the straight walls limit it already: nothing to gain
    steps = np.linspace(-1, 1, OFFSET_STEPS)
    offsets = np.array([(fx * slack_x, fy * slack_y) for fx in steps for fy in steps])
    moved = points[None, :, :] + offsets[:, None, :]
    clearances = np.minimum(wall_clearance(shape, moved), wall_clearance(shape, still))
    best = int(np.argmax(clearances))
    if clearances[best] <= centred + EPS:
        return (0.0, 0.0), centred
    return (float(offsets[best, 0]), float(offsets[best, 1])), float(clearances[best])


def largest_clearing_radius(shape: BoxShape, points: np.ndarray) -> float:
    """The largest inner corner radius at which `points` (inside the box's straight walls)
    stay inside the wall: a smaller radius only moves the wall outwards."""
    low, high = 0.0, min(shape.inner_length, shape.inner_width) / 2
    if wall_clearance(shape, points, high) >= 0:
        return high
    for _ in range(RADIUS_STEPS):
        middle = (low + high) / 2
        low, high = (middle, high) if wall_clearance(shape, points, middle) >= 0 else (low, middle)
    return low

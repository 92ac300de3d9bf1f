"""4x4 rigid transforms and axis-aligned bounds for the fit solver (plain numpy, no I/O)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

Matrix = np.ndarray  # 4x4 float, column vectors: world = M @ local
Vec3 = tuple[float, float, float]
Bounds = tuple[Vec3, Vec3]  # (min corner, max corner)


def identity() -> Matrix:
    return np.eye(4)


def translate(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> Matrix:
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


def rotate_z(degrees: float) -> Matrix:
    return _rotation(degrees, 0, 1)


def rotate_x(degrees: float) -> Matrix:
    return _rotation(degrees, 1, 2)


def _rotation(degrees: float, a: int, b: int) -> Matrix:
    # Exact quarter turns keep the matrices free of 6e-17 noise in the JSON.
    quarter = degrees / 90
    cos: float
    sin: float
    if quarter == round(quarter):
        cos, sin = ((1, 0), (0, 1), (-1, 0), (0, -1))[round(quarter) % 4]
    else:
        cos, sin = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    matrix = np.eye(4)
    matrix[a, a], matrix[a, b] = cos, -sin
    matrix[b, a], matrix[b, b] = sin, cos
    return matrix


def compose(*matrices: Matrix) -> Matrix:
    """compose(A, B, C) = A @ B @ C: C is applied first."""
    result = np.eye(4)
    for matrix in matrices:
        result = result @ matrix
    return result


def corners(bounds: Bounds) -> np.ndarray:
    (x0, y0, z0), (x1, y1, z1) = bounds
    return np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)])


def transform_points(matrix: Matrix, points: np.ndarray) -> np.ndarray:
    homogeneous = np.hstack([points, np.ones((len(points), 1))])
    return (homogeneous @ matrix.T)[:, :3]


def transform_bounds(matrix: Matrix, bounds: Bounds) -> Bounds:
    """Bounds of a transformed box (exact for the quarter turns the solver uses)."""
    moved = transform_points(matrix, corners(bounds))
    low, high = moved.min(axis=0), moved.max(axis=0)
    return _vec(low), _vec(high)


def union_bounds(all_bounds: Iterable[Bounds]) -> Bounds:
    items = list(all_bounds)
    low = np.min([b[0] for b in items], axis=0)
    high = np.max([b[1] for b in items], axis=0)
    return _vec(low), _vec(high)


def size(bounds: Bounds) -> Vec3:
    return _vec(np.subtract(bounds[1], bounds[0]))


def as_list(matrix: Matrix) -> list[list[float]]:
    """A JSON-friendly 4x4, rounded to a micrometre (and -0.0 written as 0.0)."""
    return [[round(float(v), 6) + 0.0 for v in row] for row in matrix]


def _vec(values: Iterable[float]) -> Vec3:
    x, y, z = (float(v) for v in values)
    return x, y, z

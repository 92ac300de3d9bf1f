"""Hex grids: centres, corners, neighbours and distances, for any hex size and orientation.

Axial coordinates (q, r): a hex's centre is q * V0 + r * V1, where V_d is the step to the
neighbour across side d, at angle base + 60 d degrees (base 30 for flat-top hexes, whose
flats face up and down; 0 for pointy-top, whose flats face left and right). Neighbouring
centres are one across-flats apart. Directions are numbered counter-clockwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from squadron_cad.paper.drawing import Point

Orientation = Literal["flat_top", "pointy_top"]
Hex = tuple[int, int]
AXIAL_STEPS: tuple[Hex, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


@dataclass(frozen=True)
class HexGrid:
    across_flats_mm: float
    orientation: Orientation

    @property
    def base_deg(self) -> float:
        return 30.0 if self.orientation == "flat_top" else 0.0

    @property
    def circumradius_mm(self) -> float:
        """Centre to corner: across the flats / sqrt(3)."""
        return self.across_flats_mm / math.sqrt(3)

    def direction_deg(self, direction: int) -> float:
        """Heading of side `direction` (0..5), counter-clockwise from +x."""
        return self.base_deg + 60.0 * (direction % 6)

    def step(self, direction: int) -> Point:
        angle = math.radians(self.direction_deg(direction))
        return (self.across_flats_mm * math.cos(angle), self.across_flats_mm * math.sin(angle))

    def centre(self, cell: Hex) -> Point:
        (x0, y0), (x1, y1) = self.step(0), self.step(1)
        q, r = cell
        return (q * x0 + r * x1, q * y0 + r * y1)

    def corners(self, cell: Hex) -> list[Point]:
        """The six corners, counter-clockwise, half-way between the sides' headings."""
        cx, cy = self.centre(cell)
        radius = self.circumradius_mm
        return [
            (
                cx + radius * math.cos(math.radians(self.direction_deg(i) + 30)),
                cy + radius * math.sin(math.radians(self.direction_deg(i) + 30)),
            )
            for i in range(6)
        ]

    def hex_at(self, point: Point) -> Hex:
        """The hex holding a point (cube rounding)."""
        (x0, y0), (x1, y1) = self.step(0), self.step(1)
        det = x0 * y1 - x1 * y0
        x, y = point
        q = (x * y1 - y * x1) / det
        r = (y * x0 - x * y0) / det
        return cube_round(q, r)


def neighbour(cell: Hex, direction: int, steps: int = 1) -> Hex:
    dq, dr = AXIAL_STEPS[direction % 6]
    return (cell[0] + dq * steps, cell[1] + dr * steps)


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def cube_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return (int(rq), int(rr))


def ring(centre: Hex, radius: int) -> Iterator[Hex]:
    """The hexes exactly `radius` steps from centre."""
    if radius == 0:
        yield centre
        return
    cell = neighbour(centre, 4, radius)
    for direction in range(6):
        for _ in range(radius):
            yield cell
            cell = neighbour(cell, direction)


def rectangle(grid: HexGrid, columns: int, rows: int) -> list[Hex]:
    """A columns x rows mat in offset layout: straight columns (flat-top) or straight rows
    (pointy-top), every other one shifted by half a hex; listed row by row from the top."""
    cells = []
    for row in range(rows):
        for column in range(columns):
            if grid.orientation == "flat_top":
                # columns run down (-y); odd columns sit half a hex lower
                point = (
                    column * 1.5 * grid.circumradius_mm,
                    -(row + (column % 2) / 2) * grid.across_flats_mm,
                )
            else:
                point = (
                    (column + (row % 2) / 2) * grid.across_flats_mm,
                    -row * 1.5 * grid.circumradius_mm,
                )
            cells.append(grid.hex_at(point))
    return cells

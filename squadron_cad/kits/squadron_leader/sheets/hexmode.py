"""Hex Grid Mode, the game's rules for players without a 3D printer, on a hex grid.

One plane per hex, facing one of its six sides. Three moves replace the templates:
  1. two hexes forward;
  2. one hex forward, turn 60 degrees left or right, one hex forward;
  3. turn 60 degrees, one hex forward, turn another 60 degrees the same way.
Attacks reach range 3, counted in hexes from the attacker's (the target's hex counts, the
attacker's does not). The firing cone widens by a hex each side per row: 1, 3 and 5 hexes
at ranges 1, 2 and 3: the hexes less than 60 degrees off the facing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from squadron_cad.paper.hexgrid import Hex, HexGrid, distance, neighbour, ring

MAX_RANGE = 3
LEFT, RIGHT = 1, -1  # directions count counter-clockwise


@dataclass(frozen=True)
class Step:
    """Where a plane is and which side it faces."""

    cell: Hex
    facing: int


def forward(step: Step) -> Step:
    return Step(neighbour(step.cell, step.facing), step.facing)


def turn(step: Step, way: int) -> Step:
    return Step(step.cell, (step.facing + way) % 6)


def move_1(start: Step) -> list[Step]:
    """Two hexes forward."""
    one = forward(start)
    return [start, one, forward(one)]


def move_2(start: Step, way: int) -> list[Step]:
    """One forward, turn 60 degrees `way`, one forward."""
    one = forward(start)
    turned = turn(one, way)
    return [start, one, turned, forward(turned)]


def move_3(start: Step, way: int) -> list[Step]:
    """Turn 60 degrees, one forward, turn another 60 degrees the same way."""
    turned = turn(start, way)
    moved = forward(turned)
    return [start, turned, moved, turn(moved, way)]


def in_cone(grid: HexGrid, attacker: Step, cell: Hex) -> bool:
    """Within range and less than 60 degrees off the attacker's facing."""
    reach = distance(attacker.cell, cell)
    if not 1 <= reach <= MAX_RANGE:
        return False
    (ax, ay), (cx, cy) = grid.centre(attacker.cell), grid.centre(cell)
    bearing = math.degrees(math.atan2(cy - ay, cx - ax))
    off = (bearing - grid.direction_deg(attacker.facing) + 180) % 360 - 180
    return abs(off) < 60 - 1e-6


def cone(grid: HexGrid, attacker: Step) -> dict[int, list[Hex]]:
    """The firing cone's hexes by range, 1..MAX_RANGE."""
    return {
        reach: [cell for cell in ring(attacker.cell, reach) if in_cone(grid, attacker, cell)]
        for reach in range(1, MAX_RANGE + 1)
    }

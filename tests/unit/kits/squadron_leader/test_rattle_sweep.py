"""The travel sweep (stowing's fillers and the rattle check read it), run for every unit
and direction at once (vectorised), finds exactly what the plain sweep finds: one piece,
one position at a time."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from squadron_cad.checks.travel import COARSE_MM, FINE_MM, REACH_MM
from squadron_cad.kits.squadron_leader.stowing import travel
from squadron_cad.kits.squadron_leader.stowing.tin_fit import solve
from squadron_cad.resolve import resolve


def plain_slide(movers: list[tuple], way: tuple[float, float]) -> float:
    """The sweep as first written: each trial moves each piece and asks shapely alone."""
    d = np.asarray(way)

    def blocked(shift: np.ndarray) -> bool:
        for room, footprint, inside, obstacles in movers:
            moved = shapely.transform(footprint, lambda points: points + shift)
            if not room.covers(moved):
                return True
            shrunk = shapely.transform(inside, lambda points: points + shift)
            if any(o.intersects(shrunk) for o in obstacles):
                return True
        return False

    if blocked(d * FINE_MM):
        return 0.0
    free = FINE_MM
    while free < REACH_MM:
        if blocked(d * (free + COARSE_MM)):
            break
        free += COARSE_MM
    else:
        return REACH_MM
    low, high = free, free + COARSE_MM
    while high - low > FINE_MM:
        mid = (low + high) / 2
        low, high = (low, mid) if blocked(d * mid) else (mid, high)
    return low


@pytest.mark.parametrize("tin", ["altoids", "v2-box", None])
def test_the_vectorised_sweep_finds_what_the_plain_sweep_finds(tin: str | None) -> None:
    p = resolve(kit="squadron-leader", tin=tin)
    layout = solve(p)
    everything = travel.bodies(p, layout)
    walls = travel._Walls(travel.rooms(layout), travel._inner_wall(layout))
    travels = travel.measure(p, layout)
    assert travels
    for moves in travels:
        members = [b for b in everything if b.unit == moves.name]
        others = [b for b in everything if b.unit != moves.name]
        movers = []
        for body in members:
            mover = travel._mover(body, walls.around(body), others)
            movers.append((mover.room, mover.footprint, mover.inside, list(mover.obstacles)))
        for way, d in travel.DIRECTIONS.items():
            assert moves.sideways[way] == plain_slide(movers, d), (moves.name, way)

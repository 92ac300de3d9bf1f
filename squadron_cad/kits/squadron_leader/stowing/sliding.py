"""How far each stowed unit slides each way before it collides (the travel sweep).

A unit slides a fine step, then coarse steps until one collides, then bisects to the
collision. Every unit's sweep in every direction advances together, one trial position
each per round, so a round is a few vectorised shapely calls over all the pieces moving
in it rather than a call per piece and position: the same trials, the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from squadron_cad.checks.travel import COARSE_MM, FINE_MM, REACH_MM


@dataclass(frozen=True)
class Mover:
    """One piece of a sliding unit: the room it may move in (grown by the touch tolerance,
    prepared), its footprint, its footprint shrunk by the tolerance, and the footprints
    of other units' pieces at its height (prepared)."""

    room: Polygon
    footprint: Polygon
    inside: Polygon
    obstacles: np.ndarray


class _Sweep:
    """One unit sliding one way: the trial to make now, and the answer once found."""

    def __init__(self, movers: np.ndarray, way: tuple[float, float]) -> None:
        self.movers = movers  # indices into the round's table of movers
        self.way = np.asarray(way)
        self.phase = "start"
        self.free = FINE_MM
        self.low = self.high = 0.0
        self.result: float | None = None

    def trial(self) -> float:
        if self.phase == "start":
            return FINE_MM
        if self.phase == "coarse":
            return self.free + COARSE_MM
        return (self.low + self.high) / 2

    def answer(self, blocked: bool) -> None:
        if self.phase == "start":
            if blocked:
                self.result = 0.0
                return
            self.phase = "coarse"
        elif self.phase == "coarse":
            if blocked:
                self.phase = "bisect"
                self.low, self.high = self.free, self.free + COARSE_MM
            else:
                self.free += COARSE_MM
        else:
            mid = (self.low + self.high) / 2
            self.low, self.high = (self.low, mid) if blocked else (mid, self.high)
        if self.phase == "coarse" and self.free >= REACH_MM:
            self.result = REACH_MM
        elif self.phase == "bisect" and self.high - self.low <= FINE_MM:
            self.result = self.low


class _Table:
    """Every mover's shapes as arrays, to move and test many of them in one call each."""

    def __init__(self, movers: list[Mover]) -> None:
        self.rooms = np.array([m.room for m in movers], dtype=object)
        self.footprints = np.array([m.footprint for m in movers], dtype=object)
        self.insides = np.array([m.inside for m in movers], dtype=object)
        self.obstacles = [m.obstacles for m in movers]
        self.footprint_points = shapely.get_num_coordinates(self.footprints)
        self.inside_points = shapely.get_num_coordinates(self.insides)

    def blocked(self, index: np.ndarray, shifts: np.ndarray) -> np.ndarray:
        """For each listed mover moved by its shift: out of its room, or into an obstacle."""
        moved = _moved(self.footprints[index], self.footprint_points[index], shifts)
        blocked = ~shapely.covers(self.rooms[index], moved)
        near = [self.obstacles[i] for i in index]
        counts = np.array([len(o) for o in near])
        if counts.sum():
            inside = _moved(self.insides[index], self.inside_points[index], shifts)
            owner = np.repeat(np.arange(len(index)), counts)
            hits = shapely.intersects(np.concatenate(near), inside[owner])
            blocked |= np.bincount(owner, weights=hits, minlength=len(index)) > 0
        return blocked


def _moved(shapes: np.ndarray, points: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    offsets = np.repeat(shifts, points, axis=0)
    return shapely.transform(shapes, lambda coordinates: coordinates + offsets)


def slide(
    units: list[list[Mover]], directions: dict[str, tuple[float, float]]
) -> list[dict[str, float]]:
    """Each unit's free travel along each direction (its movers move together)."""
    table = _Table([mover for movers in units for mover in movers])
    sweeps: list[dict[str, _Sweep]] = []
    start = 0
    for movers in units:
        index = np.arange(start, start + len(movers))
        sweeps.append({way: _Sweep(index, d) for way, d in directions.items()})
        start += len(movers)
    active = [s for ways in sweeps for s in ways.values()]
    while active:
        index = np.concatenate([s.movers for s in active])
        sizes = np.array([len(s.movers) for s in active])
        ways = np.array([s.way for s in active])
        trials = np.array([s.trial() for s in active])
        shifts = np.repeat(ways * trials[:, None], sizes, axis=0)
        blocked = np.logical_or.reduceat(table.blocked(index, shifts), np.cumsum(sizes) - sizes)
        for sweep, said in zip(active, blocked.tolist(), strict=True):
            sweep.answer(said)
        active = [s for s in active if s.result is None]
    return [{way: float(s.result or 0.0) for way, s in ways.items()} for ways in sweeps]

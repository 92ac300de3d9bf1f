"""Rattle: how far each stowed piece can move in the closed box before it collides.

Measured on the layout's exact geometry (no rendering): each piece's footprint (the
octagon of a token, the template's outline, the box of anything else), its heights, the
pockets' walls and the closed lid's underside. What is stowed together moves together (a
column of tokens, a card with its clips): its pieces interlock. Each unit is moved, alone,
up and along +x, -x, +y, -y until it meets the box (a pocket's wall up to the pocket's
top, the box's inside wall above), the lid or a piece of another unit; everything else
stays put. A unit that can move more than `box.max_rattle_mm` any way rattles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.fit.layout import Layout, Placement, Pocket
from squadron_cad.fit.units import octagon_points
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import items

DIRECTIONS = {"+x": (1.0, 0.0), "-x": (-1.0, 0.0), "+y": (0.0, 1.0), "-y": (0.0, -1.0)}
TOUCH_MM = 1e-4  # closer than this, two faces touch
COARSE_MM = 0.25  # sweep step before bisecting to the collision
FINE_MM = 0.005
REACH_MM = 30.0  # travel beyond this is reported as this
TOKENS = ("plane_token", "altitude_token")
DIE_SHAPES = {8: "octahedron"}  # other dice are boxes of their size


@dataclass(frozen=True)
class Body:
    """One piece as the check sees it: its footprint and heights in the box frame."""

    name: str
    unit: str
    footprint: Polygon
    z_low: float
    z_high: float


@dataclass(frozen=True)
class Travel:
    unit: str
    up: float
    sideways: dict[str, float]

    @property
    def worst(self) -> float:
        return max(self.up, *self.sideways.values())

    def describe(self) -> str:
        ways = ", ".join(f"{way} {value:.2f}" for way, value in self.sideways.items())
        return f"up {self.up:.2f}, {ways} mm"


def footprint(p: SquadronLeaderParams, placed: Placement) -> Polygon:
    """What a piece covers seen from above (a token's octagon, the template's outline)."""
    matrix = np.asarray(placed.transform, dtype=float)
    if placed.part in TOKENS:
        points = octagon_points(float(p.token.across_flats_mm))
    elif placed.part == "template_all":
        points = _template_points(p)
    else:
        (x0, y0, _), (x1, y1, _) = placed.bounds
        return box(x0, y0, x1, y1)
    moved = points @ matrix[:2, :2].T + matrix[:2, 3]
    return Polygon(moved)


_OUTLINE: list[
    tuple[SquadronLeaderParams, np.ndarray]
] = []  # the last parameters' template outline


def _template_points(p: SquadronLeaderParams) -> np.ndarray:
    """The template's outline, drawn once per parameter set: a layout asks for it for every
    trial of the solver and every check of its rattle."""
    if not _OUTLINE or _OUTLINE[0][0] is not p:
        _OUTLINE[:] = [(p, np.asarray(items.template_outline(p).exterior.coords))]
    return _OUTLINE[0][1]


BOX_UNIT = "box"  # what the box carries in its pockets (ribs, stops): fixed obstacles


def bodies(p: SquadronLeaderParams, layout: Layout) -> list[Body]:
    """Every piece, and every filler the box carries (stowing.fillers) as a fixed one."""
    pieces = [
        Body(q.name, q.unit, footprint(p, q), float(q.bounds[0][2]), float(q.bounds[1][2]))
        for q in layout.placements
    ]
    added = [
        Body(f.name, BOX_UNIT, Polygon(f.points), f.z_bottom, f.z_top)
        for f in getattr(layout, "fillers", ())
    ]
    return pieces + added


def _inner_wall(layout: Layout) -> Polygon:
    shape = layout.box
    radius = shape.inner_radius
    core = box(
        -shape.inner_length / 2 + radius,
        -shape.inner_width / 2 + radius,
        shape.inner_length / 2 - radius,
        shape.inner_width / 2 - radius,
    )
    return core.buffer(radius, quad_segs=16) if radius > 0 else core


def pocket_of(body: Body, pockets: list[tuple[Pocket, Polygon]]) -> tuple[Pocket, Polygon] | None:
    """The pocket a piece lies in: the one covering it, at its height."""
    centre = body.footprint.representative_point()
    best = None
    for pocket, shape in pockets:
        at_height = pocket.z_bottom - TOUCH_MM <= body.z_low < pocket.z_top - TOUCH_MM
        if not at_height or not shape.buffer(TOUCH_MM).contains(centre):
            continue
        if best is None or pocket.z_bottom > best[0].z_bottom:
            best = (pocket, shape)
    return best


def _overlaps(a_low: float, a_high: float, b_low: float, b_high: float) -> bool:
    return a_low < b_high - TOUCH_MM and b_low < a_high - TOUCH_MM


def measure(p: SquadronLeaderParams, layout: Layout) -> list[Travel]:
    """Every unit's free travel up and sideways, in stowing order."""
    everything = bodies(p, layout)
    pockets = [(q, Polygon(q.points)) for q in layout.pockets]
    wall = _inner_wall(layout)
    lid = float(layout.box.lid_bottom)
    units: dict[str, list[Body]] = {}
    for body in everything:
        if body.unit != BOX_UNIT:
            units.setdefault(body.unit, []).append(body)
    travels = []
    for unit, members in units.items():
        others = [b for b in everything if b.unit != unit]
        up = min(rise(b, others, lid) for b in members)
        movers = [_Mover.of(b, _walls(b, pockets, wall), others) for b in members]
        sideways = {way: _slide(movers, d) for way, d in DIRECTIONS.items()}
        travels.append(Travel(unit, up, sideways))
    return travels


def rise(body: Body, others: list[Body], lid: float) -> float:
    """Up to the lid's underside or the underside of whatever lies over it."""
    ceiling = lid
    area = body.footprint.buffer(-TOUCH_MM)
    for other in others:
        if other.z_low >= body.z_high - TOUCH_MM and other.footprint.intersects(area):
            ceiling = min(ceiling, other.z_low)
    return max(ceiling - body.z_high, 0.0)


def _walls(body: Body, pockets: list[tuple[Pocket, Polygon]], wall: Polygon) -> Polygon:
    """The region a piece may move in: its pocket where the pocket's walls stand, else the
    box's inside (above the pockets, the lid's skirt continues the wall)."""
    found = pocket_of(body, pockets)
    if found is None:
        return wall
    pocket, shape = found
    if body.z_low >= pocket.z_top - TOUCH_MM:
        return wall
    return shape.intersection(wall)


@dataclass(frozen=True)
class _Mover:
    """One piece of a sliding unit, made ready once for the many trial positions of the
    sweep: its room grown by the touch tolerance (prepared), its footprint and its
    footprint shrunk by it, and only the obstacles at its height."""

    room: Polygon  # prepared: covers() is asked at every step
    footprint: Polygon
    shrunk: Polygon
    obstacles: np.ndarray  # footprints of other units' pieces overlapping it in height

    @classmethod
    def of(cls, body: Body, room: Polygon, others: list[Body]) -> _Mover:
        grown = room.buffer(TOUCH_MM)
        shapely.prepare(grown)
        near = [
            o.footprint for o in others if _overlaps(body.z_low, body.z_high, o.z_low, o.z_high)
        ]
        obstacles = np.array(near, dtype=object)
        shapely.prepare(obstacles)
        return cls(grown, body.footprint, body.footprint.buffer(-TOUCH_MM), obstacles)

    def blocked(self, shift: np.ndarray) -> bool:
        if not self.room.covers(_moved(self.footprint, shift)):
            return True
        return bool(len(self.obstacles)) and bool(
            shapely.intersects(self.obstacles, _moved(self.shrunk, shift)).any()
        )


def _moved(shape: Polygon, shift: np.ndarray) -> Polygon:
    return shapely.transform(shape, lambda points: points + shift)


def _blocked(movers: list[_Mover], shift: np.ndarray) -> bool:
    return any(mover.blocked(shift) for mover in movers)


def _slide(movers: list[_Mover], way: tuple[float, float]) -> float:
    d = np.asarray(way)
    if _blocked(movers, d * FINE_MM):
        return 0.0
    free, step = FINE_MM, COARSE_MM
    while free < REACH_MM:
        if _blocked(movers, d * (free + step)):
            break
        free += step
    else:
        return REACH_MM
    low, high = free, free + step
    while high - low > FINE_MM:
        mid = (low + high) / 2
        low, high = (low, mid) if _blocked(movers, d * mid) else (mid, high)
    return low


def findings(p: SquadronLeaderParams, layout: Layout) -> list[Finding]:
    """One finding per stowed unit: its travel up and each way sideways."""
    limit = p.box.max_rattle_mm
    found = []
    for travel in measure(p, layout):
        ok = travel.worst <= limit + FINE_MM
        found.append(
            Finding(
                travel.unit,
                "rattle",
                travel.describe(),
                f"at most {limit:g} mm each way, lid closed (box.max_rattle_mm)",
                verdict(ok),
                "" if ok else f"moves {travel.worst:.2f} mm in the closed box: it rattles",
            )
        )
    return found


def worst(p: SquadronLeaderParams, layout: Layout) -> float:
    travels = measure(p, layout)
    return max((t.worst for t in travels), default=0.0) if travels else math.nan

"""Free travel: how far each stowed piece can move in the closed box before it collides.

Measured on the layout's exact geometry (no rendering): each piece's footprint (the
octagon of a token, the template's outline, the box of anything else), its heights, the
pockets' walls and the closed lid's underside. What is stowed together moves together (a
column of tokens, a card with its clips): its pieces interlock. Each unit is moved, alone,
up and along +x, -x, +y, -y until it meets the box (a pocket's wall up to the pocket's
top, the box's inside wall above), the lid or a piece of another unit; everything else
stays put. The stowing adds fillers where a unit travels too far (`fillers`); the rattle
check (checks.rattle) refuses a unit that can move more than `box.max_rattle_mm` any way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from squadron_cad.checks.travel import DIRECTIONS, TOUCH_MM, Body, Travel
from squadron_cad.fit.layout import Layout, Placement, Pocket
from squadron_cad.fit.units import octagon_points
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import items
from squadron_cad.kits.squadron_leader.stowing.sliding import Mover, slide

TOKENS = ("plane_token", "altitude_token")


@dataclass(frozen=True)
class Room:
    """A pocket's outline, and grown by the touch tolerance (prepared: asked many times)."""

    pocket: Pocket
    shape: Polygon
    grown: Polygon

    @classmethod
    def of(cls, pocket: Pocket) -> Room:
        shape = Polygon(pocket.points)
        grown = shape.buffer(TOUCH_MM)
        shapely.prepare(grown)
        return cls(pocket, shape, grown)


def rooms(layout: Layout) -> list[Room]:
    return [Room.of(q) for q in layout.pockets]


def footprint(p: SquadronLeaderParams, placed: Placement) -> Polygon:
    """What a piece covers seen from above (a token's octagon, the template's outline)."""
    matrix = np.asarray(placed.transform, dtype=float)
    if placed.part in TOKENS:
        points = _outlines(p).token
    elif placed.part == "template_all":
        points = _outlines(p).template
    else:
        (x0, y0, _), (x1, y1, _) = placed.bounds
        return box(x0, y0, x1, y1)
    moved = points @ matrix[:2, :2].T + matrix[:2, 3]
    return shapely.polygons(moved)  # as Polygon(moved), without its per-point checks


@dataclass(frozen=True)
class _Outlines:
    """The token's octagon and the template's outline for one parameter set."""

    params: SquadronLeaderParams
    token: np.ndarray
    template: np.ndarray


_LAST: list[_Outlines] = []  # the last parameters' outlines


def _outlines(p: SquadronLeaderParams) -> _Outlines:
    """Drawn once per parameter set: a layout asks for them for every trial of the solver
    and every check of its rattle."""
    if not _LAST or _LAST[0].params is not p:
        token = octagon_points(float(p.token.across_flats_mm))
        template = np.asarray(items.template_outline(p).exterior.coords)
        _LAST[:] = [_Outlines(p, token, template)]
    return _LAST[0]


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


def pocket_of(body: Body, pockets: list[Room]) -> Room | None:
    """The pocket a piece lies in: the one covering it, at its height."""
    centre = body.footprint.representative_point()
    best = None
    for room in pockets:
        pocket = room.pocket
        at_height = pocket.z_bottom - TOUCH_MM <= body.z_low < pocket.z_top - TOUCH_MM
        if not at_height or not room.grown.contains(centre):
            continue
        if best is None or pocket.z_bottom > best.pocket.z_bottom:
            best = room
    return best


def _overlaps(a_low: float, a_high: float, b_low: float, b_high: float) -> bool:
    return a_low < b_high - TOUCH_MM and b_low < a_high - TOUCH_MM


def measure(
    p: SquadronLeaderParams, layout: Layout, everything: list[Body] | None = None
) -> list[Travel]:
    """Every unit's free travel up and sideways, in stowing order (`everything`: the
    layout's bodies, when the caller has them already)."""
    everything = bodies(p, layout) if everything is None else everything
    walls = _Walls(rooms(layout), _inner_wall(layout))
    lid = float(layout.box.lid_bottom)
    units: dict[str, list[Body]] = {}
    for body in everything:
        if body.unit != BOX_UNIT:
            units.setdefault(body.unit, []).append(body)
    ups, movers = [], []
    for unit, members in units.items():
        others = [b for b in everything if b.unit != unit]
        ups.append(min(rise(b, others, lid) for b in members))
        movers.append([_mover(b, walls.around(b), others) for b in members])
    sideways = slide(movers, DIRECTIONS)
    return [Travel(*told) for told in zip(units, ups, sideways, strict=True)]


def _mover(body: Body, room: Polygon, others: list[Body]) -> Mover:
    """A piece made ready for the sweep: only the obstacles at its height, prepared."""
    near = [o.footprint for o in others if _overlaps(body.z_low, body.z_high, o.z_low, o.z_high)]
    obstacles = np.array(near, dtype=object)
    shapely.prepare(obstacles)
    return Mover(room, body.footprint, body.inside, obstacles)


def rise(body: Body, others: list[Body], lid: float) -> float:
    """Up to the lid's underside or the underside of whatever lies over it."""
    above = [o for o in others if o.z_low >= body.z_high - TOUCH_MM]
    footprints = np.array([o.footprint for o in above], dtype=object)
    hits = shapely.intersects(footprints, body.inside) if above else []
    ceiling = min([lid, *(o.z_low for o, hit in zip(above, hits, strict=True) if hit)])
    return max(ceiling - body.z_high, 0.0)


class _Walls:
    """The region a piece may move in: its pocket where the pocket's walls stand, else the
    box's inside (above the pockets, the lid's skirt continues the wall); grown by the
    touch tolerance and prepared, once per pocket."""

    def __init__(self, pockets: list[Room], wall: Polygon) -> None:
        self.pockets = pockets
        self.wall = wall
        self._grown: dict[int, Polygon] = {}

    def around(self, body: Body) -> Polygon:
        found = pocket_of(body, self.pockets)
        if found is None or body.z_low >= found.pocket.z_top - TOUCH_MM:
            return self._room(-1, self.wall)
        return self._room(id(found), found.shape)

    def _room(self, key: int, shape: Polygon) -> Polygon:
        if key not in self._grown:
            room = shape if key < 0 else shape.intersection(self.wall)
            grown = room.buffer(TOUCH_MM)
            shapely.prepare(grown)
            self._grown[key] = grown
        return self._grown[key]

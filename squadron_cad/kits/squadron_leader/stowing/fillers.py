"""Fillers: what the box adds so nothing rattles with the lid closed.

After packing, a pile that could rise more than `box.max_rattle_mm` (up to the lid or to
what lies over it) is lifted on ribs standing on the pocket's floor until it has only
`box.headroom_mm` above it; a piece that could slide more than that along its pocket (a
ruler section shorter than its slot) gets a stop beyond its end, from the floor up to
its top where nothing else lies over that spot. The ribs are two walls under each pile,
along its longer side and clipped to its footprint: material only
where something rests on it. Measured by the rattle check on the same geometry.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from shapely.geometry import Polygon, box

from squadron_cad.fit import notches
from squadron_cad.fit.layout import Layout, Placement
from squadron_cad.geometry import frames
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import travel

RIB_INSET_MM = 1.0  # the side ribs stand this far inside the pile's footprint
MIN_LIFT_MM = 0.2  # a lift smaller than a layer is not worth a rib
ROUND_MM = 0.01


@dataclass(frozen=True)
class Filler:
    """Material added to the box: a prism of `points` from z_bottom to z_top."""

    name: str
    points: tuple[tuple[float, float], ...]
    z_bottom: float
    z_top: float


@dataclass(frozen=True, eq=False)
class FilledLayout(Layout):
    """A layout with the fillers the box must carry (ribs under piles, stops in slots)."""

    fillers: tuple[Filler, ...] = ()


def fill(p: SquadronLeaderParams, layout: Layout) -> FilledLayout:
    """Lift every loose pile on ribs, then stop every piece that slides too far."""
    fillers: list[Filler] = []
    layout = _lift_shelves(p, layout)
    placements = list(layout.placements)
    for _ in range(2):  # a lifted pile can change what another pile rises to
        lifted = _lift(p, replace_placements(layout, placements), fillers)
        if lifted is None:
            break
        placements = lifted
    done = replace_placements(layout, placements)
    if fillers and layout.insert_level != "ceiling":
        done = _walls_to_ceiling(p, done)
    fillers += _stops(p, done)
    return FilledLayout(**{f: getattr(done, f) for f in _fields(done)}, fillers=tuple(fillers))


def _fields(layout: Layout) -> list[str]:
    return [name for name in Layout.__dataclass_fields__ if hasattr(layout, name)]


def replace_placements(layout: Layout, placements: list[Placement]) -> Layout:
    return replace(layout, placements=tuple(placements))


def _piles(bodies: list[travel.Body]) -> list[set[str]]:
    """Units that rest on one another (a pile of dials, a stacked ruler) lift together."""
    parent: dict[str, str] = {b.unit: b.unit for b in bodies}

    def root(unit: str) -> str:
        while parent[unit] != unit:
            unit = parent[unit]
        return unit

    for a in bodies:
        for b in bodies:
            if a.unit == b.unit or abs(a.z_high - b.z_low) > travel.TOUCH_MM:
                continue
            if a.footprint.intersection(b.footprint).area > 1e-3:
                parent[root(b.unit)] = root(a.unit)
    piles: dict[str, set[str]] = {}
    for unit in parent:
        piles.setdefault(root(unit), set()).add(unit)
    return list(piles.values())


def _lift(p: SquadronLeaderParams, layout: Layout, fillers: list[Filler]) -> list[Placement] | None:
    bodies = [b for b in travel.bodies(p, layout) if b.unit != travel.BOX_UNIT]
    lid = float(layout.box.lid_bottom)
    headroom = p.box.headroom_mm
    lifts: dict[str, float] = {}
    for pile in _piles(bodies):
        members = [b for b in bodies if b.unit in pile]
        others = [b for b in bodies if b.unit not in pile]
        rise = min(travel.rise(b, others, lid) for b in members)
        if rise <= p.box.max_rattle_mm:
            continue
        lift = np.floor((rise - headroom) / ROUND_MM) * ROUND_MM
        if lift < MIN_LIFT_MM:
            continue
        bottom = min(b.z_low for b in members)
        if bottom > float(layout.box.floor) + travel.TOUCH_MM:
            continue  # it rests on other pieces or a shelf: no floor under it for ribs
        resting = [b for b in members if b.z_low <= bottom + travel.TOUCH_MM]
        for body in resting:
            for index, rib in enumerate(_ribs(p, body.footprint)):
                fillers.append(
                    Filler(f"{body.name}_rib_{index + 1}", _coords(rib), bottom, bottom + lift)
                )
        for unit in pile:
            lifts[unit] = float(lift)
    if not lifts:
        return None
    return [_raised(q, lifts.get(q.unit, 0.0)) for q in layout.placements]


def _walls_to_ceiling(p: SquadronLeaderParams, layout: Layout) -> Layout:
    """Lifted pieces need their pockets' walls beside them: the dividers rise to the
    ceiling (as under a template lying on top), and the finger notches follow them."""
    ceiling = float(layout.box.ceiling)
    pockets = tuple(
        replace(q, z_top=ceiling, levels=(q.levels[0], "ceiling")) if not q.on_top else q
        for q in layout.pockets
    )
    on_floor = [q for q in pockets if q.levels[0] == "floor"]
    cut = notches.finger_notches(on_floor, p.box.divider_mm, float(layout.box.floor))
    return replace(
        layout,
        pockets=pockets,
        notches=tuple(cut),
        insert_top=ceiling,
        insert_level="ceiling",
    )


def _lift_shelves(p: SquadronLeaderParams, layout: Layout) -> Layout:
    """A pile lying on a shelf over other pockets is lifted with its shelf: the dividers
    under it rise to carry it (what stood under it is then lifted on ribs)."""
    bodies = [b for b in travel.bodies(p, layout) if b.unit != travel.BOX_UNIT]
    lid = float(layout.box.lid_bottom)
    floor = float(layout.box.floor)
    pockets = list(layout.pockets)
    lifts: dict[str, float] = {}
    piles = _piles(bodies)  # the bodies do not move while the shelves are looked at
    for index, pocket in enumerate(pockets):
        if pocket.levels[0] == "floor" or pocket.on_top:
            continue
        grown = travel.Room.of(pocket).grown
        on_it = [
            b
            for b in bodies
            if abs(b.z_low - pocket.z_bottom) < travel.TOUCH_MM
            and grown.contains(b.footprint.representative_point())
        ]
        pile = set().union(*(p_ for p_ in piles if p_ & {b.unit for b in on_it}))
        if not pile:
            continue
        members = [b for b in bodies if b.unit in pile]
        others = [b for b in bodies if b.unit not in pile]
        rise = min(travel.rise(b, others, lid) for b in members)
        lift = float(np.floor((rise - p.box.headroom_mm) / ROUND_MM) * ROUND_MM)
        if rise <= p.box.max_rattle_mm or lift < MIN_LIFT_MM:
            continue
        bottom = pocket.z_bottom + lift
        pockets[index] = replace(
            pocket, z_bottom=bottom, levels=(f"floor+{bottom - floor:.4f}", pocket.levels[1])
        )
        for unit in pile:
            lifts[unit] = lift
    if not lifts:
        return layout
    placements = [_raised(q, lifts.get(q.unit, 0.0)) for q in layout.placements]
    return replace(layout, pockets=tuple(pockets), placements=tuple(placements))


def _ribs(p: SquadronLeaderParams, shape: Polygon) -> list[Polygon]:
    """Two ribs along a footprint's longer side, clipped to it: what rests on them cannot
    tip (the pocket's walls stand the clearance away)."""
    x0, y0, x1, y1 = shape.bounds
    rib = p.checks.min_wall_mm  # two perimeters: it carries only the piece over it
    long_x = x1 - x0 >= y1 - y0
    if not long_x:  # work along x, then turn back
        x0, y0, x1, y1 = y0, x0, y1, x1
    inset = min(RIB_INSET_MM, (y1 - y0) / 4)
    parts = [
        box(x0, y0 + inset, x1, y0 + inset + rib),
        box(x0, y1 - inset - rib, x1, y1 - inset),
    ]
    if not long_x:
        parts = [Polygon([(y, x) for x, y in part.exterior.coords]) for part in parts]
    clipped = [part.intersection(shape) for part in parts]
    return [c for c in clipped if isinstance(c, Polygon) and c.area > 1e-3]


def _coords(shape: Polygon) -> tuple[tuple[float, float], ...]:
    return tuple((round(x, 4), round(y, 4)) for x, y in shape.exterior.coords[:-1])


def _raised(placed: Placement, lift: float) -> Placement:
    if not lift:
        return placed
    up = frames.translate(0, 0, lift)
    (a, b) = placed.bounds
    (c, d) = placed.unit_bounds
    return replace(
        placed,
        transform=frames.compose(up, placed.transform),
        bounds=((a[0], a[1], a[2] + lift), (b[0], b[1], b[2] + lift)),
        unit_bounds=((c[0], c[1], c[2] + lift), (d[0], d[1], d[2] + lift)),
    )


def _stops(p: SquadronLeaderParams, layout: Layout) -> list[Filler]:
    """A block beyond a piece that slides too far, leaving it the pocket clearance."""
    everything = travel.bodies(p, layout)
    bodies = [b for b in everything if b.unit != travel.BOX_UNIT]
    pockets = travel.rooms(layout)
    keep = p.box.pocket_clearance_mm
    stops = []
    for moves in travel.measure(p, layout, everything):
        members = [b for b in bodies if b.unit == moves.name]
        others = [b for b in bodies if b.unit != moves.name]
        for way, free in moves.sideways.items():
            if free <= p.box.max_rattle_mm:
                continue
            dx, dy = travel.DIRECTIONS[way]
            for body in members:
                block = _beyond(body.footprint, dx, dy, keep, free)
                found = travel.pocket_of(body, pockets)
                if found is None or not found.grown.covers(block):
                    continue  # a stop stands in the piece's own pocket, on its floor
                floor = found.pocket.z_bottom
                top = body.z_high
                for other in others:
                    if other.footprint.intersection(block).area > 1e-3:
                        top = min(top, other.z_low)
                if top - floor < MIN_LIFT_MM or top < body.z_high - travel.TOUCH_MM:
                    continue  # something lies there beside it: no room for a stop
                name = f"{body.name}_stop_{way}"
                stops.append(Filler(name, _coords(block), floor, top))
    return stops


def _beyond(shape: Polygon, dx: float, dy: float, keep: float, free: float) -> Polygon:
    """The strip a piece would sweep moving from `keep` to `free` along (dx, dy)."""
    x0, y0, x1, y1 = shape.bounds
    if dx > 0:
        return box(x1 + keep, y0, x1 + free, y1)
    if dx < 0:
        return box(x0 - free, y0, x0 - keep, y1)
    if dy > 0:
        return box(x0, y1 + keep, x1, y1 + free)
    return box(x0, y0 - free, x1, y0 - keep)

"""Finger notches: U-shaped dips cut down through a divider so a finger reaches an item.

A pocket needs one when what stands in it rises less than a fingertip above its walls. A
notch goes through the divider a pocket shares with a neighbour (where two flat sides
face each other), so it is never cut into the outer wall, and one notch serves both
pockets. It is narrower than the smallest item (the pocket's side, and each piece it
holds when the stower says: a grid of small pieces), so nothing slides through it; a round
item still slides into it, by the depth of its chord as wide as the notch: a kit with
round pieces narrows the notches beside them (`round_item_radius`, `narrowed`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
from shapely.geometry import Polygon
from shapely.geometry import box as shapely_box

NOTCH_RADIUS_MM = 6.0  # about a fingertip
NOTCH_MIN_RADIUS_MM = 3.0  # narrower than this is no help
GRIP_MM = 5.0  # an item standing this far above its walls is picked up without a notch
REACH_MM = 8.0  # how far down the side of an item a notch opens
FLOOR_KEEP_MM = 1.0  # a notch stops this far above the floor
SIDE_MARGIN_MM = 0.5  # keep a notch this far from the ends of the flats it joins
INTO_POCKET_MM = 1.0  # the cut runs this far into each pocket, for a clean boolean
WALL_KEEP_MM = 1.2  # wall left between a notch and any other cut (over 2 perimeters)


class PocketLike(Protocol):
    # read-only: the pockets are frozen dataclasses
    @property
    def name(self) -> str: ...
    @property
    def points(self) -> np.ndarray: ...
    @property
    def z_bottom(self) -> float: ...
    @property
    def z_top(self) -> float: ...
    @property
    def item_top(self) -> float: ...


@dataclass(frozen=True)
class Notch:
    """A U through a divider: `axis` is the direction it crosses the divider (x or y)."""

    centre: tuple[float, float]
    axis: str
    length: float
    radius: float
    z_bottom: float
    z_top: float
    pockets: tuple[str, str]


def needs_notch(pocket: PocketLike) -> bool:
    return pocket.item_top < pocket.z_top + GRIP_MM


def finger_notches(
    pockets: Sequence[PocketLike],
    divider: float,
    floor: float,
    narrowest: Mapping[str, tuple[float, float]] | None = None,
) -> list[Notch]:
    """One notch for each pocket that needs one, shared with a neighbour where possible.
    `narrowest`: by pocket name, its smallest piece's length along x and y (no notch
    beside a pocket is wider than a piece there, so none slides into it)."""
    served: set[str] = set()
    cut: list[Notch] = []
    for pocket in pockets:
        if pocket.name in served or not needs_notch(pocket):
            continue
        options = [
            (other, notch)
            for other in pockets
            if other is not pocket
            for shared in [_shared_side(pocket, other, divider)]
            if shared is not None
            for notch in [_notch(pocket, other, shared, floor, narrowest or {})]
            if notch is not None
        ]
        if not options:
            continue
        # A neighbour that needs a notch too and has none yet, then the widest notch.
        other, notch = max(
            options, key=lambda o: (needs_notch(o[0]) and o[0].name not in served, o[1].radius)
        )
        clear = _clear_of_other_cuts(notch, pockets)
        if clear is None:
            continue
        cut.append(clear)
        served.add(pocket.name)
        if needs_notch(other):
            served.add(other.name)
    return cut


def _shared_side(
    a: PocketLike, b: PocketLike, divider: float
) -> tuple[str, float, float, float] | None:
    """(axis, divider mid-plane, start, end) of the flats a and b show each other."""
    ax0, ay0, ax1, ay1 = _bounds(a.points)
    bx0, by0, bx1, by1 = _bounds(b.points)
    tolerance = 0.05
    for axis, (a_low, a_high, b_low, b_high) in (
        ("x", (ax0, ax1, bx0, bx1)),
        ("y", (ay0, ay1, by0, by1)),
    ):
        for near, far, a_side, b_side in (
            (a_high, b_low, "high", "low"),
            (b_high, a_low, "low", "high"),
        ):
            gap = far - near
            if -tolerance <= gap <= divider + tolerance:
                span = _overlap(_flat(a, axis, a_side), _flat(b, axis, b_side))
                if span is not None:
                    return axis, (near + far) / 2, span[0], span[1]
    return None


def _flat(pocket: PocketLike, axis: str, side: str) -> tuple[float, float] | None:
    """The extent of the pocket's outline lying on its bounding side (its flat there)."""
    points = pocket.points
    k = 0 if axis == "x" else 1
    edge = points[:, k].max() if side == "high" else points[:, k].min()
    on_edge = points[np.abs(points[:, k] - edge) < 1e-6][:, 1 - k]
    if len(on_edge) < 2:
        return None
    return float(on_edge.min()), float(on_edge.max())


def _overlap(
    a: tuple[float, float] | None, b: tuple[float, float] | None
) -> tuple[float, float] | None:
    if a is None or b is None:
        return None
    low, high = max(a[0], b[0]), min(a[1], b[1])
    return (low, high) if high > low else None


def _notch(
    a: PocketLike,
    b: PocketLike,
    shared: tuple[str, float, float, float],
    floor: float,
    narrowest: Mapping[str, tuple[float, float]],
) -> Notch | None:
    axis, plane, start, end = shared
    along = 1 if axis == "x" else 0  # the notch's width runs along the divider
    pieces = [narrowest[p.name][along] / 2 for p in (a, b) if p.name in narrowest]
    radius = min(NOTCH_RADIUS_MM, (end - start) / 2 - SIDE_MARGIN_MM, *pieces)
    if radius < NOTCH_MIN_RADIUS_MM:
        return None
    users = [pocket for pocket in (a, b) if needs_notch(pocket)]
    bottom = max(floor + FLOOR_KEEP_MM, min(pocket.item_top for pocket in users) - REACH_MM)
    top = max(a.z_top, b.z_top)
    if bottom + radius >= top:  # too shallow to be a notch: the item is at the brim
        bottom = max(floor + FLOOR_KEEP_MM, top - 2 * radius)
    middle = (start + end) / 2
    centre = (plane, middle) if axis == "x" else (middle, plane)
    length = _gap_between(a, b, axis) + 2 * INTO_POCKET_MM
    return Notch(centre, axis, length, radius, bottom, top, (a.name, b.name))


def _footprint(notch: Notch, radius: float) -> Polygon:
    """The notch in the divider, seen from above (without its run into the two pockets)."""
    x, y = notch.centre
    half_across, half_along = max(notch.length / 2 - INTO_POCKET_MM, 0.01), radius
    if notch.axis == "x":
        return shapely_box(x - half_across, y - half_along, x + half_across, y + half_along)
    return shapely_box(x - half_along, y - half_across, x + half_along, y + half_across)


def _clear_of_other_cuts(notch: Notch, pockets: Sequence[PocketLike]) -> Notch | None:
    """Narrow a notch that would leave a sliver of wall beside a pocket it does not serve.

    (A recess on top of the dividers for a piece lying there, say.) None when too little
    notch is left."""
    radius = notch.radius
    for other in pockets:
        if other.name in notch.pockets:
            continue
        if other.z_top <= notch.z_bottom or other.z_bottom >= notch.z_top:
            continue  # not at the notch's heights
        gap = _footprint(notch, radius).distance(Polygon(other.points))
        if 0 < gap < WALL_KEEP_MM:  # 0: the cuts merge, which leaves no sliver
            radius -= WALL_KEEP_MM - gap
    if radius == notch.radius:
        return notch
    if radius < NOTCH_MIN_RADIUS_MM:
        return None
    return replace(notch, radius=radius)


def _gap_between(a: PocketLike, b: PocketLike, axis: str) -> float:
    k = 0 if axis == "x" else 1
    a_low, a_high = a.points[:, k].min(), a.points[:, k].max()
    b_low, b_high = b.points[:, k].min(), b.points[:, k].max()
    return float(max(b_low - a_high, a_low - b_high, 0.0))


def _bounds(points: np.ndarray) -> tuple[float, float, float, float]:
    low, high = points.min(axis=0), points.max(axis=0)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])


def round_item_radius(item_radius: float, allowance: float) -> float:
    """The widest notch radius a round item of `item_radius`, against the notched wall,
    enters at most `allowance` (its chord that deep is the notch's width)."""
    depth = min(max(allowance, 0.0), item_radius)
    return math.sqrt(item_radius**2 - (item_radius - depth) ** 2)


def narrowed(notches: Iterable[Notch], pockets: set[str], radius: float) -> tuple[Notch, ...]:
    """The notches, those serving any of `pockets` at most `radius` wide (left out when
    that is narrower than a notch that helps)."""
    kept = []
    for notch in notches:
        if pockets.isdisjoint(notch.pockets) or notch.radius <= radius:
            kept.append(notch)
        elif radius >= NOTCH_MIN_RADIUS_MM:
            kept.append(replace(notch, radius=radius))
    return tuple(kept)

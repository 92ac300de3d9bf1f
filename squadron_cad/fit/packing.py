"""Guillotine packing of a few blocks: every way to cut the floor into them, kept Pareto-small.

For each subset of blocks we keep the footprints (w, h) and heights (z) it can reach,
built by putting two smaller subsets side by side (along x) or one behind the other
(along y) with a divider between them. Only footprints not beaten on w, h and z together
are kept, so five or six blocks pack in a few milliseconds. Arrangements wider than the
box are dropped early unless the caller asks for the overflow (to report a shortfall).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from squadron_cad.fit.units import Variant

FRONT_LIMIT = 24  # keep the smallest footprints if a front grows beyond this


@dataclass(frozen=True, eq=False)
class Packed:
    """A packed arrangement: footprint, tallest content, and how it was built."""

    w: float
    h: float
    z: float
    variant: Variant | None = None  # a leaf
    join: str = ""  # "x" (side by side) or "y" (one behind the other)
    first: Packed | None = None
    second: Packed | None = None

    def leaves(self, x: float = 0.0, y: float = 0.0) -> list[tuple[Variant, float, float]]:
        """Each block's variant and the lower-left corner where it lands."""
        if self.variant is not None:
            return [(self.variant, x, y)]
        assert self.first is not None
        assert self.second is not None
        if self.join == "x":
            offset = (self.w - self.second.w, 0.0)
        else:
            offset = (0.0, self.h - self.second.h)
        return self.first.leaves(x, y) + self.second.leaves(x + offset[0], y + offset[1])


# Inside the search an arrangement is a plain tuple (w, h, z, how): tuples sort and compare
# fast, and most arrangements are dropped at once. `how` is a variant (a leaf) or
# ("x" | "y", first, second).
_How: TypeAlias = "Variant | tuple[str, _Entry, _Entry]"
_Entry: TypeAlias = tuple[float, float, float, _How]


FLOAT_SLACK_MM = 1e-9


def pack(
    blocks: Sequence[Sequence[Variant]],
    divider: float,
    max_w: float,
    max_h: float,
    front_limit: int = FRONT_LIMIT,
) -> list[Packed]:
    """Every non-dominated arrangement of all blocks (one variant each) within max_w x max_h
    (at most `front_limit` per subset of blocks, the smallest)."""
    # Sums of float sizes: 113.30000000000001 must fit 113.3 (a tin grown by the figure a
    # refusal gave was refused again).
    max_w, max_h = max_w + FLOAT_SLACK_MM, max_h + FLOAT_SLACK_MM
    count = len(blocks)
    fronts: dict[int, list[_Entry]] = {}
    for index, variants in enumerate(blocks):
        leaves: list[_Entry] = [
            (v.w, v.h, v.z, v) for v in variants if v.w <= max_w and v.h <= max_h
        ]
        fronts[1 << index] = _pareto(leaves, front_limit)
    for mask in range(1, 1 << count):
        if mask & (mask - 1):
            fronts[mask] = _pareto(_joins(mask, fronts, divider, max_w, max_h), front_limit)
    return [_packed(entry) for entry in fronts.get((1 << count) - 1, [])]


def _joins(
    mask: int, fronts: dict[int, list[_Entry]], divider: float, max_w: float, max_h: float
) -> list[_Entry]:
    lowest = mask & -mask
    joined: list[_Entry] = []
    add = joined.append
    part = (mask - 1) & mask
    while part:
        if part & lowest:  # each split once: the part holding the lowest block goes first
            for a in fronts[part]:
                aw, ah, az = a[0], a[1], a[2]
                for b in fronts[mask ^ part]:
                    z = az if az > b[2] else b[2]
                    w = aw + divider + b[0]
                    if w <= max_w:
                        add((w, ah if ah > b[1] else b[1], z, ("x", a, b)))
                    h = ah + divider + b[1]
                    if h <= max_h:
                        add((aw if aw > b[0] else b[0], h, z, ("y", a, b)))
        part = (part - 1) & mask
    return joined


def _pareto(entries: list[_Entry], limit: int) -> list[_Entry]:
    """Entries no other entry beats on w, h and z together (then the `limit` smallest).

    Sorted by w, an entry is beaten exactly when an earlier one has h and z no larger.
    Heights take few values (block heights), so the lowest h seen per z answers that."""
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    kept: list[_Entry] = []
    lowest_h: dict[float, float] = {}
    for entry in entries:
        h, z = entry[1], entry[2]
        if any(low <= h for seen, low in lowest_h.items() if seen <= z):
            continue
        kept.append(entry)
        lowest_h[z] = min(h, lowest_h.get(z, h))
    if len(kept) > limit:
        kept.sort(key=lambda e: (e[0] * e[1], e[2]))
        kept = kept[:limit]
    return kept


def _packed(entry: _Entry) -> Packed:
    w, h, z, how = entry
    if isinstance(how, Variant):
        return Packed(w, h, z, variant=how)
    join, first, second = how
    return Packed(w, h, z, join=join, first=_packed(first), second=_packed(second))

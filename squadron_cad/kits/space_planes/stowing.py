"""How the Space Planes pieces are stowed: what each part (or bought piece) occupies in
its modelled frame, and the units the engine's generic stower (`fit.simple`) packs, each in
a pocket of its own: the deck with the joker gauge on it (a sleeved deck is larger than the
gauge, which then gets a pocket of its own, so it cannot slide on the deck), the cubeships
in full rows, the dice seated in their holders in full rows (an odd count leaves its last
row a pocket of its own: no empty place in a pocket for a piece to slide into). The deck
and the dice are bought, not printed: layout.json shows them as blocks.
"""

from __future__ import annotations

import math
from typing import Protocol

from squadron_cad.fit.layout import Layout
from squadron_cad.fit.report import fit_report
from squadron_cad.fit.units import Piece, Unit
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds
from squadron_cad.kits.space_planes.constants import CUBE, DECK, DIE, GAUGE, HOLDER
from squadron_cad.kits.space_planes.params import SpacePlanesParams


class StowedDesign(Protocol):
    """What the fit report reads of the kit's design (design.SpacePlanesDesign): the
    design calls this module to stow, so this module names only what it reads."""

    @property
    def params(self) -> SpacePlanesParams: ...

    @property
    def layout(self) -> Layout: ...


def holder_outer_mm(p: SpacePlanesParams) -> float:
    h = p.holder
    return h.die_size_mm + 2 * (h.clearance_mm + h.wall_mm)


def part_bounds(p: SpacePlanesParams, part: str) -> Bounds:
    """What a part (or a bought piece) occupies in its modelled frame."""
    if part == GAUGE:
        return (0.0, 0.0, 0.0), (p.card.long_mm, p.card.short_mm, p.gauge.fence_height_mm)
    if part == DECK:
        return (0.0, 0.0, 0.0), p.card.stowed_size_mm
    if part == CUBE:
        s = p.cube.side_mm
        return (0.0, 0.0, 0.0), (s, s, s)
    if part == HOLDER:
        o = holder_outer_mm(p)
        return (0.0, 0.0, 0.0), (o, o, p.holder.floor_mm + p.holder.rim_height_mm)
    if part == DIE:
        d = p.holder.die_size_mm
        return (0.0, 0.0, 0.0), (d, d, d)
    raise KeyError(part)


def _size(bounds: Bounds) -> tuple[float, float, float]:
    low, high = bounds
    return (high[0] - low[0], high[1] - low[1], high[2] - low[2])


def _grids(count: int) -> list[tuple[int, int]]:
    """(pieces, columns) of each grid: two rows of half the pieces (rounded up), and the
    rest in a row of its own (5: a row of 3 and a row of 2), so no grid has an empty
    place a piece could slide into."""
    columns = max(1, math.ceil(count / 2))
    full = columns * (count // columns)
    rest = count - full
    return [(full, columns)] + ([(rest, rest)] if rest else [])


def card_units(p: SpacePlanesParams) -> list[Unit]:
    """The deck with the gauge lying on it; a sleeved deck and the gauge apart."""
    deck, gauge = part_bounds(p, DECK), part_bounds(p, GAUGE)
    long, short, thick = _size(deck)
    cards = Piece(DECK, DECK, frames.identity(), deck)
    if p.card.sleeved:
        alone = Piece(GAUGE, GAUGE, frames.identity(), gauge)
        return [
            Unit("deck", "stack", (long, short, thick), (cards,)),
            Unit("joker_gauge", "flat", _size(gauge), (alone,)),
        ]
    on_deck = Piece(GAUGE, GAUGE, frames.translate(0, 0, thick), gauge)
    height = thick + _size(gauge)[2]
    return [Unit("deck_and_gauge", "stack", (long, short, height), (cards, on_deck))]


def _owner(p: SpacePlanesParams, index: int) -> tuple[int, int]:
    """The player (1-based) whose cube `index` is, and its number among theirs."""
    return index // p.ships_per_player + 1, index % p.ships_per_player + 1


def units(p: SpacePlanesParams) -> list[Unit]:
    """The deck and the gauge; the cubeships in a grid; the dice seated in their holders,
    in a grid."""
    out = card_units(p)
    grids = _grids(p.ships)
    start = 0
    for index, (count, columns) in enumerate(grids):
        tail = f"_{index + 1}" if len(grids) > 1 else ""
        out.append(_cube_grid(p, f"cubeships{tail}", start, count, columns))
        out.append(_dice_grid(p, f"plane_dice{tail}", start, count, columns))
        start += count
    return out


def _cube_grid(p: SpacePlanesParams, name: str, start: int, count: int, columns: int) -> Unit:
    """Cubeships start..start+count in full rows of `columns`."""
    s = p.cube.side_mm
    rows = count // columns
    cubes = []
    for k in range(count):
        player, number = _owner(p, start + k)
        at = frames.translate((k % columns) * s, (k // columns) * s, 0)
        cubes.append(Piece(f"player{player}_cubeship_{number}", CUBE, at, part_bounds(p, CUBE)))
    return Unit(name, "grid", (columns * s, rows * s, s), tuple(cubes))


def _dice_grid(p: SpacePlanesParams, name: str, start: int, count: int, columns: int) -> Unit:
    """The plane dice seated in their holders, in a grid as the cubes'."""
    h = p.holder
    seat = h.wall_mm + h.clearance_mm
    holder, die = part_bounds(p, HOLDER), part_bounds(p, DIE)
    o = holder_outer_mm(p)
    rows = count // columns
    height = max(h.floor_mm + h.die_size_mm, _size(holder)[2])
    dice = []
    for k in range(count):
        x, y = (k % columns) * o, (k // columns) * o
        number = start + k + 1
        dice.append(Piece(f"die_holder_{number}", HOLDER, frames.translate(x, y, 0), holder))
        at = frames.translate(x + seat, y + seat, h.floor_mm)
        dice.append(Piece(f"plane_die_{number}", DIE, at, die))
    return Unit(name, "grid", (columns * o, rows * o, height), tuple(dice))


def fit_lines(design: StowedDesign) -> list[str]:
    """The engine's report (tin, box, each pocket with its pieces, the pieces, the spare
    room in every direction and what limited it), with what the box holds in the kit's
    words and how its floors and lid stand."""
    p, layout = design.params, design.layout
    deck = (
        "a sleeved deck, the joker gauge"
        if p.card.sleeved
        else "the deck with the joker gauge on it"
    )
    holds = (
        f"{deck}, {p.ships} cubeships ({p.players} players x {p.ships_per_player}), "
        f"{p.ships} plane dice in their holders"
    )
    notes = []
    lid = p.box.lid
    if lid is not None:
        floors = ", ".join(f"{q.name.replace('_', ' ')} {q.z_bottom:.1f}" for q in layout.pockets)
        notes = [
            f"lid:    {lid.thickness_mm:g} mm top, {lid.skirt_mm:g} mm skirt lapping the box's "
            f"tongue {lid.lip_mm:g} mm; each pocket's floor raised to bring its pieces "
            f"{lid.headroom_mm:g} mm under it (floors at mm: {floors})"
        ]
    return fit_report(design, holds=holds, notes=notes)

"""Blocks: groups of pockets the packer places as one rectangle, in every arrangement.

A `Variant` is one arrangement of a block (a grid shape, a turn, a pile count), laid out
in its own frame: footprint [0, w] x [0, h] on the floor (z = 0), pocket clearance and
the dividers between its own pockets included. Pockets are 2D shapes with a depth; the
units inside them carry their transforms into the same frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from squadron_cad.fit.units import (
    Unit,
    Variant,
    grid_shapes,
    make_pocket,
    octagon_points,
    rect_pocket,
    turn_in_place,
)
from squadron_cad.geometry import frames
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import items


@dataclass(frozen=True)
class Spacing:
    clearance: float  # around an item in its pocket, per side
    divider: float  # between pockets


def spacing(p: SquadronLeaderParams) -> Spacing:
    return Spacing(p.box.pocket_clearance_mm, p.box.divider_mm)


# ---- canonical shapes ----


# ---- stacks: octagon pockets in a grid ----


def stack_grids(
    p: SquadronLeaderParams,
    columns: Sequence[Unit],
    name: str,
    shelf: Sequence[Unit] = (),
    room: float = math.inf,
) -> list[Variant]:
    """Every grid of the columns; with `shelf` (the stat dials), only the grids that carry
    them in one pile on a shelf over the columns, under `room`."""
    grids = [stack_grid(p, columns, rows, cols, name) for rows, cols in grid_shapes(len(columns))]
    if not shelf:
        return grids
    return [v for grid in grids for v in _with_shelf(p, grid, shelf, room)]


def _with_shelf(
    p: SquadronLeaderParams, grid: Variant, dials: Sequence[Unit], room: float
) -> list[Variant]:
    """The dials in one pile lying over the columns, in a recess whose floor is the
    tallest column's top (the dividers end there and carry them with the tokens)."""
    gap = spacing(p)
    sx, sy, sz = dials[0].size
    base = grid.z
    top = base + len(dials) * sz
    if top > room + 1e-9:
        return []
    out = []
    for turned in (False, True):
        fx, fy = (sy, sx) if turned else (sx, sy)
        cell_x, cell_y = fx + 2 * gap.clearance, fy + 2 * gap.clearance
        if cell_x > grid.w + 1e-9 or cell_y > grid.h + 1e-9:
            continue
        x0, y0 = (grid.w - cell_x) / 2, (grid.h - cell_y) / 2
        inner = turn_in_place(sy) if turned else frames.identity()
        pocket = replace(rect_pocket("stat_dials", x0, y0, cell_x, cell_y, top), z_bottom=base)
        units = [
            (unit, frames.compose(
                frames.translate(x0 + gap.clearance, y0 + gap.clearance, base + level * sz), inner
            ))
            for level, unit in enumerate(dials)
        ]  # fmt: skip
        label = f"{grid.label}, {len(dials)} stat dial{'s' if len(dials) > 1 else ''} on top"
        out.append(
            Variant(
                grid.block, label + (", turned" if turned else ""), grid.w, grid.h, top,
                (*grid.pockets, pocket), (*grid.units, *units),
            )
        )  # fmt: skip
    return out


def stack_grid(
    p: SquadronLeaderParams, columns: Sequence[Unit], rows: int, cols: int, name: str
) -> Variant:
    gap = spacing(p)
    flats = 2 * items.token_half(p)
    cell = flats + 2 * gap.clearance
    pitch = cell + gap.divider
    pockets, units = [], []
    for index, unit in enumerate(columns):
        row, col = divmod(index, cols)
        x0, y0 = col * pitch, row * pitch
        pose = frames.translate(x0 + cell / 2, y0 + cell / 2, 0)
        pockets.append(
            make_pocket(
                unit.name, "octagon", (cell, cell), octagon_points(cell), pose, unit.size[2]
            )
        )
        units.append((unit, frames.translate(x0 + gap.clearance, y0 + gap.clearance, 0)))
    w, h = cols * pitch - gap.divider, rows * pitch - gap.divider
    tallest = max(unit.size[2] for unit in columns)
    return Variant(name, f"{rows}x{cols} grid", w, h, tallest, tuple(pockets), tuple(units))


# ---- dice: one pocket, a grid of dice, in layers if the box is deep enough ----


def dice_blocks(p: SquadronLeaderParams, dice: Sequence[Unit], max_height: float) -> list[Variant]:
    if not dice:
        return []
    side = dice[0].size[2]  # a die's height as it rests
    variants = []
    for layers in range(1, max(1, int(max_height // side)) + 1):
        per_layer = math.ceil(len(dice) / layers)
        if layers > 1 and (layers - 1) * per_layer >= len(dice):
            break
        # Full grids only where possible: a die beside an empty cell rattles.
        for rows, cols in grid_shapes(per_layer, exact=True):
            variants.append(_dice_grid(p, dice, rows, cols))
    return variants


def _dice_grid(p: SquadronLeaderParams, dice: Sequence[Unit], rows: int, cols: int) -> Variant:
    gap = spacing(p)
    sx, sy, side = dice[0].size
    # dice vary by a few tenths: give each its own clearance
    pitch_x, pitch_y = sx + gap.clearance, sy + gap.clearance
    units = []
    for index, unit in enumerate(dice):
        layer, rest = divmod(index, rows * cols)
        row, col = divmod(rest, cols)
        x, y = gap.clearance + col * pitch_x, gap.clearance + row * pitch_y
        units.append((unit, frames.translate(x, y, layer * side)))
    w = cols * pitch_x + gap.clearance
    h = rows * pitch_y + gap.clearance
    used_layers = math.ceil(len(dice) / (rows * cols))
    height = used_layers * side
    pocket = rect_pocket("dice", 0, 0, w, h, height)
    label = f"{rows}x{cols}" + (f"x{used_layers} layers" if used_layers > 1 else "")
    return Variant("dice", label, w, h, height, (pocket,), tuple(units))


# ---- stat dials: flat piles, one pocket per pile ----


def dial_blocks(p: SquadronLeaderParams, dials: Sequence[Unit], max_height: float) -> list[Variant]:
    if not dials:
        return []
    variants = []
    each = dials[0].size[2]
    for piles in range(1, len(dials) + 1):
        per_pile = math.ceil(len(dials) / piles)
        if per_pile * each > max_height + 1e-9 or (piles - 1) * per_pile >= len(dials):
            continue
        for turned in (False, True):
            variants.append(_dial_piles(p, dials, piles, per_pile, turned))
    return variants


def _dial_piles(
    p: SquadronLeaderParams, dials: Sequence[Unit], piles: int, per_pile: int, turned: bool
) -> Variant:
    gap = spacing(p)
    sx, sy, sz = dials[0].size
    inner = turn_in_place(sy) if turned else frames.identity()
    fx, fy = (sy, sx) if turned else (sx, sy)
    cell_x, cell_y = fx + 2 * gap.clearance, fy + 2 * gap.clearance
    pockets, units = [], []
    for pile in range(piles):
        members = dials[pile * per_pile : (pile + 1) * per_pile]
        if not members:
            continue
        x0 = pile * (cell_x + gap.divider)
        top = len(members) * sz
        pockets.append(rect_pocket(f"stat_dials_{pile + 1}", x0, 0, cell_x, cell_y, top))
        for level, unit in enumerate(members):
            pose = frames.translate(x0 + gap.clearance, gap.clearance, level * sz)
            units.append((unit, frames.compose(pose, inner)))
    w = len(pockets) * (cell_x + gap.divider) - gap.divider
    label = f"{piles} pile{'s' if piles > 1 else ''} of {per_pile}"
    return Variant("dials", label, w, cell_y, per_pile * sz, tuple(pockets), tuple(units))


# ---- range ruler: three sections in one slot ----


def ruler_blocks(
    p: SquadronLeaderParams, flat: Sequence[Unit], on_edge: Sequence[Unit], max_height: float
) -> list[Variant]:
    arrangements = [
        ("flat, stacked", flat, True),
        ("flat, side by side", flat, False),
        ("on edge, side by side", on_edge, False),
    ]
    variants = []
    for label, sections, stacked in arrangements:
        variant = _ruler_slot(p, sections, stacked, label)
        if variant.z <= max_height + 1e-9:
            variants.append(variant)
    return variants


def _ruler_slot(
    p: SquadronLeaderParams, sections: Sequence[Unit], stacked: bool, label: str
) -> Variant:
    gap = spacing(p)
    length = max(unit.size[0] for unit in sections)
    _, sy, sz = sections[0].size
    if stacked:  # the shortest at the bottom: a stop beyond its end carries the others
        sections = sorted(sections, key=lambda unit: unit.size[0])
    units = []
    for index, unit in enumerate(sections):
        y = gap.clearance + (0 if stacked else index * (sy + gap.clearance))
        z = index * sz if stacked else 0
        units.append((unit, frames.translate(gap.clearance, y, z)))
    count = len(sections)
    across = sy if stacked else count * sy + (count - 1) * gap.clearance
    height = count * sz if stacked else sz
    w, h = length + 2 * gap.clearance, across + 2 * gap.clearance
    pocket = rect_pocket("range_ruler", 0, 0, w, h, height)
    return Variant("ruler", label, w, h, height, (pocket,), tuple(units))


# ---- the template in its own pocket ----


def template_pocket(p: SquadronLeaderParams, unit: Unit, name: str = "template_all") -> Variant:
    """The template's own outline (grown by the clearance) as its pocket."""
    outline = template_shape(p)
    bx0, by0, bx1, by1 = (float(v) for v in _bounds(outline))
    (x0, y0, _), _ = unit.pieces[0].bounds
    pose = frames.translate(-bx0, -by0, 0)  # template frame -> variant frame
    pocket = make_pocket(name, "outline", (bx1 - bx0, by1 - by0), outline, pose, unit.size[2])
    placed = frames.translate(x0 - bx0, y0 - by0, 0)
    return Variant(
        "template",
        "in its own pocket",
        bx1 - bx0,
        by1 - by0,
        unit.size[2],
        (pocket,),
        ((unit, placed),),
    )


def template_shape(p: SquadronLeaderParams) -> np.ndarray:
    grown = items.template_outline(p).buffer(p.box.pocket_clearance_mm, join_style="mitre")
    return np.array(grown.exterior.coords[:-1])


def _bounds(points: np.ndarray) -> tuple[float, float, float, float]:
    low, high = points.min(axis=0), points.max(axis=0)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])

"""Blocks: groups of pockets the packer places as one rectangle, in every arrangement.

A `Variant` is one arrangement of a block (a grid shape, a turn, a pile count), laid out
in its own frame: footprint [0, w] x [0, h] on the floor (z = 0), pocket clearance and
the dividers between its own pockets included. Pockets are 2D shapes with a depth; the
units inside them carry their transforms into the same frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from squadron_cad.constants import OCTAGON_CORNER_OFFSET_DEG
from squadron_cad.fit import frames, items
from squadron_cad.fit.frames import Matrix
from squadron_cad.fit.items import Unit
from squadron_cad.params import KitParams


@dataclass(frozen=True, eq=False)
class LocalPocket:
    """A pocket in a variant's frame: `shape` is the kind's canonical shape placed by `pose`.

    octagon: centred on the origin, `size` across the flats (flats on the axes);
    rect: centred on the origin, `size` = (x, y);
    outline: the template's outline in its modelled frame, grown by the clearance.
    """

    name: str
    kind: str
    size: tuple[float, float]
    pose: Matrix  # shape frame -> variant frame (a quarter turn and a shift)
    points: np.ndarray  # the outline in the variant frame, N x 2
    item_top: float  # the top of what stands in it, above the floor

    def moved(self, matrix: Matrix) -> LocalPocket:
        points = frames.transform_points(matrix, _xyz(self.points))[:, :2]
        pose = frames.compose(matrix, self.pose)
        return LocalPocket(self.name, self.kind, self.size, pose, points, self.item_top)


@dataclass(frozen=True, eq=False)
class Variant:
    block: str
    label: str
    w: float
    h: float
    z: float
    pockets: tuple[LocalPocket, ...]
    units: tuple[tuple[Unit, Matrix], ...]  # unit frame -> variant frame

    def turned(self) -> Variant:
        """The same arrangement a quarter turn anticlockwise, still in [0, w] x [0, h]."""
        matrix = frames.compose(frames.translate(self.h, 0, 0), frames.rotate_z(90))
        return Variant(
            self.block,
            f"{self.label}, turned",
            self.h,
            self.w,
            self.z,
            tuple(pocket.moved(matrix) for pocket in self.pockets),
            tuple((unit, frames.compose(matrix, pose)) for unit, pose in self.units),
        )


@dataclass(frozen=True)
class Spacing:
    clearance: float  # around an item in its pocket, per side
    divider: float  # between pockets


def spacing(p: KitParams) -> Spacing:
    return Spacing(p.box.pocket_clearance_mm, p.box.divider_mm)


def both_turns(variants: Sequence[Variant]) -> list[Variant]:
    return [turned for variant in variants for turned in (variant, variant.turned())]


# ---- canonical shapes ----


def octagon_points(across_flats: float) -> np.ndarray:
    radius = across_flats / 2 / math.cos(math.radians(OCTAGON_CORNER_OFFSET_DEG))
    angles = [math.radians(OCTAGON_CORNER_OFFSET_DEG + 45 * k) for k in range(8)]
    return np.array([[radius * math.cos(a), radius * math.sin(a)] for a in angles])


def rect_points(sx: float, sy: float) -> np.ndarray:
    return np.array([[-sx / 2, -sy / 2], [sx / 2, -sy / 2], [sx / 2, sy / 2], [-sx / 2, sy / 2]])


def _xyz(points: np.ndarray) -> np.ndarray:
    return np.hstack([points, np.zeros((len(points), 1))])


def _pocket(
    name: str, kind: str, size: tuple[float, float], shape: np.ndarray, pose: Matrix, top: float
) -> LocalPocket:
    return LocalPocket(
        name, kind, size, pose, frames.transform_points(pose, _xyz(shape))[:, :2], top
    )


def rect_pocket(name: str, x0: float, y0: float, sx: float, sy: float, top: float) -> LocalPocket:
    pose = frames.translate(x0 + sx / 2, y0 + sy / 2, 0)
    return _pocket(name, "rect", (sx, sy), rect_points(sx, sy), pose, top)


# ---- stacks: octagon pockets in a grid ----


def grid_shapes(count: int, exact: bool = False) -> list[tuple[int, int]]:
    """(rows, cols) grids for `count` cells without an empty row or column; with `exact`,
    only full grids (and, when the only full ones are single rows, the near-square ones)."""
    shapes = []
    for cols in range(1, count + 1):
        rows = math.ceil(count / cols)
        if (cols - 1) * rows < count and (rows - 1) * cols < count:
            shapes.append((rows, cols))
    full = [(rows, cols) for rows, cols in shapes if rows * cols == count]
    if not exact or any(min(shape) > 1 for shape in full) or count < 4:
        return full if exact else shapes
    return full + [shape for shape in shapes if min(shape) > 1 and shape not in full]


def stack_grids(p: KitParams, columns: Sequence[Unit], name: str) -> list[Variant]:
    return [stack_grid(p, columns, rows, cols, name) for rows, cols in grid_shapes(len(columns))]


def stack_grid(p: KitParams, columns: Sequence[Unit], rows: int, cols: int, name: str) -> Variant:
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
            _pocket(unit.name, "octagon", (cell, cell), octagon_points(cell), pose, unit.size[2])
        )
        units.append((unit, frames.translate(x0 + gap.clearance, y0 + gap.clearance, 0)))
    w, h = cols * pitch - gap.divider, rows * pitch - gap.divider
    tallest = max(unit.size[2] for unit in columns)
    return Variant(name, f"{rows}x{cols} grid", w, h, tallest, tuple(pockets), tuple(units))


# ---- dice: one pocket, a grid of dice, in layers if the box is deep enough ----


def dice_blocks(p: KitParams, dice: Sequence[Unit], max_height: float) -> list[Variant]:
    if not dice:
        return []
    side = p.dice.size_mm
    variants = []
    for layers in range(1, max(1, int(max_height // side)) + 1):
        per_layer = math.ceil(len(dice) / layers)
        if layers > 1 and (layers - 1) * per_layer >= len(dice):
            break
        # Full grids only where possible: a die beside an empty cell rattles.
        for rows, cols in grid_shapes(per_layer, exact=True):
            variants.append(_dice_grid(p, dice, rows, cols))
    return variants


def _dice_grid(p: KitParams, dice: Sequence[Unit], rows: int, cols: int) -> Variant:
    gap = spacing(p)
    side = p.dice.size_mm
    pitch = side + gap.clearance  # dice vary by a few tenths: give each its own clearance
    units = []
    for index, unit in enumerate(dice):
        layer, rest = divmod(index, rows * cols)
        row, col = divmod(rest, cols)
        x, y = gap.clearance + col * pitch, gap.clearance + row * pitch
        units.append((unit, frames.translate(x, y, layer * side)))
    w = cols * pitch + gap.clearance
    h = rows * pitch + gap.clearance
    used_layers = math.ceil(len(dice) / (rows * cols))
    height = used_layers * side
    pocket = rect_pocket("dice", 0, 0, w, h, height)
    label = f"{rows}x{cols}" + (f"x{used_layers} layers" if used_layers > 1 else "")
    return Variant("dice", label, w, h, height, (pocket,), tuple(units))


# ---- stat dials: flat piles, one pocket per pile ----


def dial_blocks(p: KitParams, dials: Sequence[Unit], max_height: float) -> list[Variant]:
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
    p: KitParams, dials: Sequence[Unit], piles: int, per_pile: int, turned: bool
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


def turn_in_place(sy: float) -> Matrix:
    """A quarter turn that keeps an envelope sy deep (along y) in the positive quadrant."""
    return frames.compose(frames.translate(sy, 0, 0), frames.rotate_z(90))


# ---- range ruler: three sections in one slot ----


def ruler_blocks(
    p: KitParams, flat: Sequence[Unit], on_edge: Sequence[Unit], max_height: float
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


def _ruler_slot(p: KitParams, sections: Sequence[Unit], stacked: bool, label: str) -> Variant:
    gap = spacing(p)
    length = max(unit.size[0] for unit in sections)
    _, sy, sz = sections[0].size
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


def template_pocket(p: KitParams, unit: Unit, name: str = "template_all") -> Variant:
    """The template's own outline (grown by the clearance) as its pocket."""
    outline = template_shape(p)
    bx0, by0, bx1, by1 = (float(v) for v in _bounds(outline))
    (x0, y0, _), _ = unit.pieces[0].bounds
    pose = frames.translate(-bx0, -by0, 0)  # template frame -> variant frame
    pocket = _pocket(name, "outline", (bx1 - bx0, by1 - by0), outline, pose, unit.size[2])
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


def template_shape(p: KitParams) -> np.ndarray:
    grown = items.template_outline(p).buffer(p.box.pocket_clearance_mm, join_style="mitre")
    return np.array(grown.exterior.coords[:-1])


def _bounds(points: np.ndarray) -> tuple[float, float, float, float]:
    low, high = points.min(axis=0), points.max(axis=0)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])

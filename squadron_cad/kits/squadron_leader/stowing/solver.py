"""The tin-fit solver: size the box from the tin, then pack every piece into pockets.

Box: outside = the tin's inside minus `box.tin_clearance_mm` on each side and at the top;
corner radius = the tin's minus the clearance, at least the wall. Inside: the floor, the
walls, and a lid lying in a rebate at the top of the wall. Usable depth = box height -
floor - lid - headroom.

Strategies (every one is tried; the best that fits wins):
- the template lies flat on top of the pockets, under the lid (as the reference v2 box
  does; the dividers rise to carry it and a template-shaped recess keeps it from
  sliding), or it has its own template-shaped pocket;
- each player's stack stands whole, or split into the fewest shorter columns that fit
  under the template or the lid (plane + 2 altitude tokens, then 2 altitude tokens ...),
  or one column more;
- the stack columns in one grid, or in two;
- and, inside the packer: every grid shape for the stacks and the dice, dice in layers,
  the stat dials in one or more flat piles, the ruler sections flat (stacked or side by
  side) or on edge, every block either way round.

Score: the smallest margin, where the margins are the spare length (x), spare width (y)
and spare depth (z) after the pockets, and twice the clearance at the tightest rounded
corner (a per-side figure, like half the spare length). Margins beyond COMFORT_MM make
no layout better: among layouts that comfortable, the simpler strategy wins (whole
stacks, one group, the template on top), then the bigger margin.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from squadron_cad.errors import InputError
from squadron_cad.fit import corners, notches
from squadron_cad.fit.layout import BoxShape, Layout, Placement, Pocket, score
from squadron_cad.fit.packing import FRONT_LIMIT, Packed, pack
from squadron_cad.fit.units import LocalPocket, Unit, Variant, both_turns
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Matrix
from squadron_cad.kits.squadron_leader.geometry.lid import closed_pose
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import blocks, fillers, items, refusals

EPS = 1e-6
# How far past the box a refusal looks for the nearest fit, and how many arrangements it
# keeps per step: near misses are searched as thoroughly as fits, far ones coarsely.
SHORTFALL_SEARCH = ((5.0, 64), (20.0, 24), (math.inf, 8))
COMFORT_MM = 3.0  # margins beyond this do not make a layout better; simpler layouts win
KINDS = ("stacks", "dials", "dice", "ruler", "template")


def box_shape(p: SquadronLeaderParams) -> BoxShape:
    tin, box = p.tin, p.box
    clearance = box.tin_clearance_mm
    length = tin.inner_length_mm - 2 * clearance
    width = tin.inner_width_mm - 2 * clearance
    radius = min(max(tin.corner_radius_mm - clearance, box.wall_mm), min(length, width) / 2)
    return BoxShape(
        length=length,
        width=width,
        height=tin.inner_depth_mm - clearance,
        radius=radius,
        wall=box.wall_mm,
        floor=box.floor_mm,
        lid_thickness=box.lid_thickness_mm,
        headroom=box.headroom_mm,
        tin_gap=clearance,
    )


@dataclass(frozen=True)
class Strategy:
    template_on_top: bool
    split: tuple[int, ...]
    stack_groups: int
    leave_out: frozenset[str] = frozenset()
    dials_on_stacks: bool = False  # the dials lie in one pile on a shelf over the stacks

    @property
    def name(self) -> str:
        where = "template on top" if self.template_on_top else "template in a pocket"
        if "template" in self.leave_out:
            where = "no template"
        stacks = (
            "stacks whole"
            if len(self.split) == 1
            else "stacks split " + "+".join(map(str, self.split))
        )
        groups = "" if self.stack_groups == 1 else f" in {self.stack_groups} groups"
        dials = ", dials on the stacks" if self.dials_on_stacks else ""
        return f"{where}, {stacks}{groups}{dials}"


@dataclass(frozen=True, eq=False)
class Candidate:
    strategy: Strategy
    packed: Packed
    pockets: list[Pocket]
    margins: dict[str, float]
    template: tuple[LocalPocket, Matrix] | None  # the template on top: its recess and pose
    offset: tuple[float, float]  # the blocks slid off centre to clear a rounded corner

    @property
    def score(self) -> float:
        return score(self.margins)


@dataclass(frozen=True, eq=False)
class Contents:
    """Everything to stow, as units, for one kit."""

    dials: list[Unit]
    dice: list[Unit]
    ruler_flat: list[Unit]
    ruler_edge: list[Unit]
    template: Unit
    template_pocket: Variant  # its own outline pocket, computed once (shapely is slow-ish)
    # a cache, by strategy and the depth its blocks may use
    variants: dict[tuple[Strategy, float], list[list[Variant]]] = field(default_factory=dict)


# ---- contents and strategies ----


def contents_of(p: SquadronLeaderParams) -> Contents:
    template = items.template(p)
    return Contents(
        dials=[items.dial(p, n) for n in range(1, p.players + 1)],
        dice=items.dice(p),
        ruler_flat=[items.ruler_section(p, i, on_edge=False) for i in (1, 2, 3)],
        ruler_edge=[items.ruler_section(p, i, on_edge=True) for i in (1, 2, 3)],
        template=template,
        template_pocket=blocks.template_pocket(p, template),
    )


def strategies(
    p: SquadronLeaderParams, shape: BoxShape, leave_out: frozenset[str]
) -> list[Strategy]:
    thickness = p.templates.thickness_mm
    modes = [False] if "template" in leave_out else [True, False]
    strategies = []
    for on_top in modes:
        room = shape.usable_depth - (thickness if on_top else 0.0)
        if room <= 0:
            continue
        for split in items.stack_splits(p, room)[:2]:
            columns = p.players * len(split)
            for groups in (1, 2) if columns > 1 else (1,):
                strategies.append(Strategy(on_top, split, groups, leave_out))
            # A shelf rests on dividers rising to the template lying on top.
            if on_top and "dials" not in leave_out and p.players > 0:
                strategies.append(Strategy(on_top, split, 1, leave_out, dials_on_stacks=True))
    return strategies


def search(
    p: SquadronLeaderParams, shape: BoxShape, contents: Contents, leave_out: frozenset[str]
) -> Candidate | None:
    best: Candidate | None = None
    for strategy in sorted(strategies(p, shape, leave_out), key=_simplicity, reverse=True):
        if best is not None and _rank(best)[:4] > (COMFORT_MM, *_simplicity(strategy)):
            break  # comfortable already, and every strategy left is less simple
        for packing in packings(p, shape, contents, strategy, (0.0, FRONT_LIMIT)):
            # The corner check is the costly part: skip it when the rest cannot win.
            bound = round(_straight_score(shape, packing), 3)  # corners only lower it
            ceiling = (min(bound, COMFORT_MM), *_simplicity(strategy), bound)
            if best is not None and _rank(best) >= ceiling:
                continue
            candidate = scored_candidate(p, shape, packing)
            if _fits(candidate) and (best is None or _rank(candidate) > _rank(best)):
                best = candidate
    return best


def _rank(candidate: Candidate) -> tuple[float, int, int, int, float]:
    """Better is bigger: margins up to a comfortable size, then the simpler strategy, then
    the bigger margins (rounded, so float noise never decides)."""
    score = round(candidate.score, 3)
    return (min(score, COMFORT_MM), *_simplicity(candidate.strategy), score)


def _simplicity(strategy: Strategy) -> tuple[int, int, int]:
    """Whole stacks before split ones, one group before two, the dials in a pocket of their
    own before a shelf over the stacks, the template on top (as the reference box has it)
    before its own pocket; negated, so bigger is simpler."""
    return (
        -len(strategy.split),
        -strategy.stack_groups - int(strategy.dials_on_stacks),
        int(strategy.template_on_top),
    )


def _fits(candidate: Candidate) -> bool:
    return min(candidate.margins.values()) >= -EPS


def _room(p: SquadronLeaderParams, shape: BoxShape, strategy: Strategy) -> float:
    top = p.templates.thickness_mm if strategy.template_on_top else 0.0
    return shape.usable_depth - top


def _block_variants(
    p: SquadronLeaderParams, contents: Contents, strategy: Strategy, room: float
) -> list[list[Variant]]:
    out = _stack_blocks(p, strategy, contents.dials if strategy.dials_on_stacks else [], room)
    skip = strategy.leave_out
    if "dials" not in skip and contents.dials and not strategy.dials_on_stacks:
        out.append(both_turns(blocks.dial_blocks(p, contents.dials, room)))
    if "dice" not in skip and contents.dice:
        out.append(blocks.dice_blocks(p, contents.dice, room))
    if "ruler" not in skip:
        out.append(
            both_turns(blocks.ruler_blocks(p, contents.ruler_flat, contents.ruler_edge, room))
        )
    if "template" not in skip and not strategy.template_on_top:
        out.append(both_turns([contents.template_pocket]))
    return out


def _stack_blocks(
    p: SquadronLeaderParams, strategy: Strategy, shelf: list[Unit], room: float
) -> list[list[Variant]]:
    if "stacks" in strategy.leave_out:
        return []
    columns = [
        unit for n in range(1, p.players + 1) for unit in items.stack_columns(p, n, strategy.split)
    ]
    groups = _halves(columns) if strategy.stack_groups == 2 else [columns]
    return [
        blocks.stack_grids(p, group, f"stacks_{i + 1}", shelf, room)
        for i, group in enumerate(groups)
    ]


def _halves(columns: list[Unit]) -> list[list[Unit]]:
    middle = math.ceil(len(columns) / 2)
    return [columns[:middle], columns[middle:]]


@dataclass(frozen=True, eq=False)
class _Packing:
    strategy: Strategy
    packed: Packed
    room: float  # depth the blocks may use
    template: tuple[LocalPocket, Matrix] | None  # the template on top: its recess and pose


def packings(
    p: SquadronLeaderParams,
    shape: BoxShape,
    contents: Contents,
    strategy: Strategy,
    reach: tuple[float, int],
) -> Iterable[_Packing]:
    """The strategy's arrangements up to `reach[0]` mm beyond the box, `reach[1]` per step."""
    room = _room(p, shape, strategy)
    if (strategy, room) not in contents.variants:
        contents.variants[strategy, room] = [
            [v for v in group if v.z <= room + EPS]
            for group in _block_variants(p, contents, strategy, room)
        ]
    variants = contents.variants[strategy, room]
    extra, front = reach
    max_w, max_h = shape.inner_length + extra, shape.inner_width + extra
    template = _template_on_top(p, shape, contents) if strategy.template_on_top else None
    if strategy.template_on_top and template is None:
        return
    for packed in pack(variants, p.box.divider_mm, max_w, max_h, front):
        yield _Packing(strategy, packed, room, template)


def straight_margins(shape: BoxShape, packing: _Packing) -> dict[str, float]:
    """Spare length, width and depth: cheap, before the corners are looked at."""
    packed = packing.packed
    x_spare = shape.inner_length - packed.w
    y_spare = shape.inner_width - packed.h
    if packing.template is not None:
        x0, y0, x1, y1 = _bounds_2d(packing.template[0].points)
        x_spare = min(x_spare, shape.inner_length - (x1 - x0))
        y_spare = min(y_spare, shape.inner_width - (y1 - y0))
    return {"x": x_spare, "y": y_spare, "z": packing.room - packed.z}


def _straight_score(shape: BoxShape, packing: _Packing) -> float:
    return min(straight_margins(shape, packing).values())


def scored_candidate(p: SquadronLeaderParams, shape: BoxShape, packing: _Packing) -> Candidate:
    strategy, packed = packing.strategy, packing.packed
    top = _top_level(p, shape, strategy)
    fixed = [packing.template[0].points] if packing.template is not None else []
    centred = _place_pockets(shape, packed, top, (0.0, 0.0))
    margins = straight_margins(shape, packing)
    outlines = [q.points for q in centred]
    offset, margins["corner"] = corners.best_offset(shape, (packed.w, packed.h), outlines, fixed)
    pockets = centred if offset == (0.0, 0.0) else _place_pockets(shape, packed, top, offset)
    return Candidate(strategy, packed, pockets, margins, packing.template, offset)


def _insert_top(p: SquadronLeaderParams, shape: BoxShape) -> float:
    """Without a template on top, the dividers rise box.divider_height_mm (below the lid)."""
    return min(shape.floor + p.box.divider_height_mm, shape.ceiling)


def _top_level(p: SquadronLeaderParams, shape: BoxShape, strategy: Strategy) -> tuple[str, float]:
    """Where the pockets' walls end, named as the box builder names its levels: under the
    template lying on top (the ceiling), else the dividers' height."""
    if strategy.template_on_top:
        return "ceiling", shape.ceiling
    return "dividers", _insert_top(p, shape)


def _place_pockets(
    shape: BoxShape, packed: Packed, top_level: tuple[str, float], offset: tuple[float, float]
) -> list[Pocket]:
    level, top = top_level
    pockets = []
    for variant, x, y in packed.leaves():
        matrix = _leaf_matrix(shape, packed, x + offset[0], y + offset[1])
        for local in variant.pockets:
            moved = local.moved(matrix)
            bottom = "floor" if not local.z_bottom else f"floor+{local.z_bottom:.4f}"
            pockets.append(
                Pocket(
                    moved.name,
                    moved.kind,
                    moved.size,
                    moved.pose,
                    moved.points,
                    shape.floor + local.z_bottom,
                    top,
                    shape.floor + local.item_top,
                    levels=(bottom, level),
                )
            )
    return pockets


def _leaf_matrix(shape: BoxShape, packed: Packed, x: float, y: float) -> Matrix:
    """Variant frame -> box frame: the arrangement centred in the box (then slid by the
    candidate's offset), on the floor."""
    return frames.translate(x - packed.w / 2, y - packed.h / 2, shape.floor)


def _template_on_top(
    p: SquadronLeaderParams, shape: BoxShape, contents: Contents
) -> tuple[LocalPocket, Matrix] | None:
    """The template's recess under the lid: the quarter turn that clears the corners best."""
    base = contents.template_pocket
    variant, best, best_clearance = base, None, -math.inf
    for _turn in range(4):
        if variant.w <= shape.inner_length + EPS and variant.h <= shape.inner_width + EPS:
            z = shape.ceiling - p.templates.thickness_mm
            matrix = frames.translate(-variant.w / 2, -variant.h / 2, z)
            recess = variant.pockets[0].moved(matrix)
            clearance = float(corners.wall_clearance(shape, recess.points))  # one point set
            if clearance > best_clearance + EPS:
                _, pose = variant.units[0]
                best, best_clearance = (recess, frames.compose(matrix, pose)), clearance
        variant = variant.turned()
    return best


# ---- margins ----


def _limited_by(margins: dict[str, float]) -> str:
    straight = {axis: margins[axis] for axis in ("x", "y", "z")}
    tightest = min(straight, key=lambda axis: straight[axis])
    if 2 * margins["corner"] < min(margins["x"], margins["y"]) - 0.05:
        return "corner" if 2 * margins["corner"] < straight[tightest] else tightest
    return tightest


def _bounds_2d(points: np.ndarray) -> tuple[float, float, float, float]:
    low, high = points.min(axis=0), points.max(axis=0)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])


# ---- the chosen layout ----


def laid_out(p: SquadronLeaderParams, shape: BoxShape, best: Candidate) -> Layout:
    """The chosen candidate as the kit's layout, its spare room filled."""
    return fillers.fill(p, _layout(p, shape, best))


def _layout(p: SquadronLeaderParams, shape: BoxShape, best: Candidate) -> Layout:
    strategy = best.strategy
    placements: list[Placement] = []
    arrangement = []
    dx, dy = best.offset
    for variant, x, y in best.packed.leaves():
        matrix = _leaf_matrix(shape, best.packed, x + dx, y + dy)
        arrangement.append(f"{variant.block}: {variant.label}")
        for unit, pose in variant.units:
            placements += _placed(unit, frames.compose(matrix, pose))
    pockets = list(best.pockets)
    insert_level, insert_top = _top_level(p, shape, strategy)
    if best.template is not None:
        recess, pose = best.template
        pockets.append(
            Pocket(
                "template_all",
                "outline",
                recess.size,
                recess.pose,
                recess.points,
                shape.ceiling - p.templates.thickness_mm,
                shape.ceiling,
                shape.ceiling,
                on_top=True,
                levels=("template", "ceiling"),
            )
        )
        placements += _placed(items.template(p), pose, on_top=True)
        arrangement.append("template: flat on top, under the lid")
    on_floor = [q for q in pockets if q.levels[0] == "floor"]  # not a shelf over others
    cut = notches.finger_notches(on_floor, p.box.divider_mm, shape.floor)
    rounded = {axis: round(value, 3) for axis, value in best.margins.items()}
    return Layout(
        strategy=strategy.name,
        box=shape,
        insert_top=insert_top,
        pockets=tuple(pockets),
        placements=tuple(placements),
        notches=tuple(cut),
        margins=rounded,
        limited_by=_limited_by(best.margins),
        box_part="box",
        lid_part="box_lid",
        arrangement=tuple(arrangement),
        insert_level=insert_level,
        lid_transform=closed_pose(shape.height),
    )


def _placed(unit: Unit, matrix: Matrix, on_top: bool = False) -> list[Placement]:
    envelope = frames.transform_bounds(matrix, ((0.0, 0.0, 0.0), unit.size))
    return [
        Placement(
            piece.name,
            piece.part,
            piece.transform,
            frames.transform_bounds(piece.transform, piece.bounds),
            unit.name,
            envelope,
            on_top,
        )
        for piece in unit.moved(matrix)
    ]


# ---- refusals ----


def check_box(p: SquadronLeaderParams, shape: BoxShape) -> None:
    if shape.usable_depth <= 0:
        need = -shape.usable_depth
        raise InputError(
            f"the tin is too shallow: box.floor_mm + box.lid_thickness_mm + box.headroom_mm "
            f"need {need:.1f} mm more depth (tin.inner_depth_mm {p.tin.inner_depth_mm:g}); "
            "try a deeper tin"
        )


def check_each_item(
    p: SquadronLeaderParams, shape: BoxShape, contents: Contents, leave_out: frozenset[str]
) -> None:
    """Refuse a piece that cannot fit even alone, naming it."""
    c = 2 * p.box.pocket_clearance_mm
    flats = 2 * items.token_half(p)
    lowest_column = min(items.column_height(p, 1, True), items.column_height(p, 1, False))
    sizes: dict[str, tuple[float, float, float]] = {"stacks": (flats + c, flats + c, lowest_column)}
    if contents.dice:
        sx, sy, sz = contents.dice[0].size
        sizes["dice"] = (sx + c, sy + c, sz)
    sx, sy, sz = contents.dials[0].size
    sizes["dials"] = (sx + c, sy + c, sz)
    length, width, thick = contents.ruler_flat[0].size
    sizes["ruler"] = (length + c, min(width, thick) + c, min(width, thick))
    variant = contents.template_pocket
    sizes["template"] = (variant.w, variant.h, variant.z)
    for kind, (fx, fy, fz) in sizes.items():
        if kind in leave_out:
            continue
        missing = refusals.alone(
            fx, fy, fz, shape.inner_length, shape.inner_width, shape.usable_depth
        )
        if missing is not None:
            raise InputError(refusals.message(p, kind, missing, single=True))

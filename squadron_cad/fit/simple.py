"""A stower for any kit: each unit in a rectangular pocket, packed on the box floor.

A kit that needs no cleverer strategy (stacks split to fit under a lid, a piece lying on
top) declares how each part is stowed (Part.stow: its bounds, how many stack in a column,
whether a player's copies go together), makes the units with `declared_units` (or its
own, for a die or a deck) and calls `stow`; the box part
then cuts the pockets of the layout it is given. Each unit tries both quarter turns; the
engine's guillotine packer (fit.packing) keeps the arrangements that fit, and the one with
the largest smallest margin wins. That search grows as 3^n in the number of units, so past
EXACT_LIMIT units they are laid in shelves instead (rows along the length, tallest
first): not optimal, but linear. A box too small is refused naming the shortfall.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from squadron_cad.errors import InputError
from squadron_cad.fit import corners
from squadron_cad.fit.layout import BoxShape, Layout, Placement, Pocket, score
from squadron_cad.fit.notches import Notch, finger_notches
from squadron_cad.fit.packing import FLOAT_SLACK_MM, Packed, pack
from squadron_cad.fit.shortfall import mm_up_to_tenth
from squadron_cad.fit.units import Piece, Unit, Variant, both_turns, rect_pocket
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds
from squadron_cad.kit import Part
from squadron_cad.params import KitParamsBase, TinParams, TrayParams

Floors = Literal["box", "lid"]  # pockets start at the box's floor, or reach up to the lid
EXACT_LIMIT = 8  # units the exhaustive packer takes in under a second (9: 2 s, 10: 9 s)


def declared_units(parts: Sequence[Part], params: KitParamsBase) -> list[Unit]:
    """The units the parts' `stow` declarations make: each part's copies in columns of
    `per_column`, a player's apart from the others' when `by_player`."""
    units: list[Unit] = []
    for part in parts:
        count = part.count(params)
        if part.stow is None or count <= 0:
            continue
        owners = _owners(part, params, count)
        for owner, copies in owners:
            for column, start in enumerate(range(0, copies, part.stow.per_column)):
                size = min(part.stow.per_column, copies - start)
                name = f"{owner}{part.name}" + (f"_{column + 1}" if copies > size else "")
                units.append(_column(part, params, name, owner, start, size))
    return units


def _owners(part: Part, params: KitParamsBase, count: int) -> list[tuple[str, int]]:
    """('player<n>_', copies) per player when stowed by player, else ('', count)."""
    assert part.stow is not None
    if not part.stow.by_player:
        return [("", count)]
    share, extra = divmod(count, params.players)
    return [(f"player{n + 1}_", share + (n < extra)) for n in range(params.players)]


def _column(
    part: Part, params: KitParamsBase, name: str, owner: str, start: int, size: int
) -> Unit:
    """`size` copies of the part stacked from z = 0, the column's envelope from the origin."""
    assert part.stow is not None
    (x0, y0, z0), (x1, y1, z1) = part.stow.bounds(params)
    thick = z1 - z0
    pieces = tuple(
        Piece(
            f"{owner}{part.name}_{start + k + 1}",
            part.name,
            frames.translate(-x0, -y0, k * thick - z0),
            ((x0, y0, z0), (x1, y1, z1)),
        )
        for k in range(size)
    )
    return Unit(name, "stack", (x1 - x0, y1 - y0, thick * size), pieces, part.words)


def tray_shape(tin: TinParams, tray: TrayParams, section: str = "box") -> BoxShape:
    """The box fitted to the tin: its inside less the clearance on every side and at the
    top. With a lid, that height is the closed box's: the lid's top and the headroom over
    the pieces come off it. `section`: the kit's name for the tray's parameters."""
    gap = tray.tin_clearance_mm
    lid = tray.lid
    if lid is not None:
        check_lid(tin, tray, section)
    return BoxShape(
        length=tin.inner_length_mm - 2 * gap,
        width=tin.inner_width_mm - 2 * gap,
        height=tin.inner_depth_mm - gap,
        radius=max(tin.corner_radius_mm - gap, tray.wall_mm),
        wall=tray.wall_mm,
        floor=tray.floor_mm,
        lid_thickness=0.0 if lid is None else lid.thickness_mm,
        headroom=0.0 if lid is None else lid.headroom_mm,
        tin_gap=gap,
    )


def check_lid(tin: TinParams, tray: TrayParams, section: str) -> None:
    """Refuse a lid the box cannot carry, in one line naming the keys."""
    lid = tray.lid
    assert lid is not None
    key = f"{section}.lid"
    if tray.max_rattle_mm is None:
        raise InputError(
            f"{key} needs {section}.max_rattle_mm: the most a piece may move in the closed box"
        )
    if lid.rim_mm + lid.clearance_mm >= tray.wall_mm:
        raise InputError(
            f"{key}.rim_mm ({lid.rim_mm:g}) plus {key}.clearance_mm ({lid.clearance_mm:g}) must "
            f"be less than {section}.wall_mm ({tray.wall_mm:g}): the rest of the wall is the "
            "box's tongue the lid's lip laps"
        )
    if lid.lip_mm > lid.skirt_mm:
        raise InputError(
            f"{key}.lip_mm ({lid.lip_mm:g}) must be at most {key}.skirt_mm ({lid.skirt_mm:g}): "
            "the lip is the skirt's lowest part"
        )
    wall_top = tin.inner_depth_mm - tray.tin_clearance_mm - lid.thickness_mm - lid.skirt_mm
    if wall_top < tray.floor_mm + lid.lip_mm:
        least = mm_up_to_tenth(tin.inner_depth_mm + tray.floor_mm + lid.lip_mm - wall_top)
        raise InputError(
            f"{key}.thickness_mm ({lid.thickness_mm:g}) and {key}.skirt_mm ({lid.skirt_mm:g}) "
            f"leave the box no wall for the lid to stand on in a tin {tin.inner_depth_mm:g} mm "
            f"deep: give tin.inner_depth_mm {least} or more, or a shorter skirt"
        )


def stow_in_tray(
    tin: TinParams,
    tray: TrayParams,
    units: Sequence[Unit],
    box_part: str,
    lid_part: str | None = None,
    section: str = "box",
) -> Layout:
    """`stow` into the tray fitted to the tin, with the tray's clearance and dividers; with
    a lid (`tray.lid` and its part), each pocket's floor raised to bring its unit's top
    under the lid, and the lid closed on the box (tray_lid.closed_pose)."""
    shape = tray_shape(tin, tray, section)
    lidded = tray.lid is not None and lid_part is not None
    layout = stow(
        shape,
        units,
        clearance=tray.pocket_clearance_mm,
        divider=tray.divider_mm,
        box_part=box_part,
        lid_part=lid_part if lidded else None,
        floors="lid" if lidded else "box",
    )
    if not lidded:
        return layout
    return replace(layout, lid_transform=closed_lid_pose(shape.height))


def closed_lid_pose(height: float) -> frames.Matrix:
    """A tray's lid as built (top on the bed, skirt up) -> closed on the box: turned over
    about x, its top at `height`."""
    return frames.compose(frames.translate(0, 0, height), frames.rotate_x(180))


def unit_block(unit: Unit, clearance: float) -> Variant:
    """One unit in its own pocket, `clearance` on every side."""
    w, h, z = (unit.size[0] + 2 * clearance, unit.size[1] + 2 * clearance, unit.size[2])
    pocket = rect_pocket(unit.name, 0, 0, w, h, z)
    inside = frames.translate(clearance, clearance, 0)
    return Variant(unit.name, "a pocket of its own", w, h, z, (pocket,), ((unit, inside),))


def stow(
    box: BoxShape,
    units: Sequence[Unit],
    *,
    clearance: float,
    divider: float,
    box_part: str,
    lid_part: str | None,
    floors: Floors = "box",
) -> Layout:
    """The best layout of `units` in `box`, or an InputError naming what does not fit.
    floors="lid": each pocket's floor is raised so its unit's top meets the ceiling (the
    lid less the headroom), so nothing rises more than the headroom in the closed box."""
    if not units:
        raise InputError("nothing to stow: the kit declares no units for its box")
    blocks = [both_turns([unit_block(unit, clearance)]) for unit in units]
    tallest = max(units, key=lambda unit: unit.size[2])
    if tallest.size[2] > box.usable_depth + FLOAT_SLACK_MM:
        short = tallest.size[2] - box.usable_depth
        raise InputError(
            f"the box is {mm_up_to_tenth(short)} mm too shallow for its "
            f"tallest piece, {_words(tallest)} ({tallest.size[2]:.1f} mm; "
            f"{box.usable_depth:.1f} mm under the lid): give tin.inner_depth_mm "
            f"{mm_up_to_tenth(box.height + box.tin_gap + short)} or more"
        )
    if len(blocks) <= EXACT_LIMIT:
        fits = pack(blocks, divider, box.inner_length, box.inner_width)
        wide = [] if fits else pack(blocks, divider, 1e6, 1e6)
    else:
        shelved = shelves(blocks, divider, box.inner_length)
        # A block longer than the box gets a shelf of its own: its length counts too.
        inside = shelved.w <= box.inner_length + FLOAT_SLACK_MM
        fits = [shelved] if inside and shelved.h <= box.inner_width + FLOAT_SLACK_MM else []
        wide = [] if fits else [shelved]
    if not fits:
        nearest = min(wide, key=lambda p: max(p.w - box.inner_length, p.h - box.inner_width))
        raise InputError(
            f"the pieces need {_more(nearest.w - box.inner_length, nearest.h - box.inner_width)}"
            f" than the box's inside ({box.inner_length:.1f} x {box.inner_width:.1f} mm): "
            f"{_culprits(box, units, clearance)}; choose a bigger tin"
        )
    placed = [_Placed(packed, *_clear_of_corners(box, packed)) for packed in fits]
    clear = [each for each in placed if each.corner >= -FLOAT_SLACK_MM]
    if not clear:
        raise InputError(_corner_refusal(box, max(placed, key=lambda each: each.corner)))
    best = max(clear, key=lambda each: score(_margins(box, each)))
    return _layout(box, best, divider, box_part, lid_part, floors)


@dataclass(frozen=True, eq=False)
class _Placed:
    """An arrangement slid by `offset` from the box's centre, `corner` mm inside the wall."""

    packed: Packed
    offset: tuple[float, float]
    corner: float


def _pocket_outlines(packed: Packed) -> list[np.ndarray]:
    """The pockets' outlines with the arrangement centred in the box."""
    return [
        local.points + np.array([x - packed.w / 2, y - packed.h / 2])
        for variant, x, y in packed.leaves()
        for local in variant.pockets
    ]


def _clear_of_corners(box: BoxShape, packed: Packed) -> tuple[tuple[float, float], float]:
    return corners.best_offset(box, (packed.w, packed.h), _pocket_outlines(packed))


def _corner_refusal(box: BoxShape, nearest: _Placed) -> str:
    """The pockets fit the straight walls but not the rounded corners: by how much, and
    the largest tin corner radius with which they clear (the gap and wall added back)."""
    outlines = [points + nearest.offset for points in _pocket_outlines(nearest.packed)]
    inner = corners.largest_clearing_radius(box, np.vstack(outlines))
    tin_radius = math.floor((inner + box.wall + box.tin_gap) * 10 + 1e-6) / 10
    return (
        f"the pockets reach {mm_up_to_tenth(-nearest.corner)} mm into the box's rounded corners "
        f"(its inside {box.inner_length:.1f} x {box.inner_width:.1f} mm, corner radius "
        f"{box.inner_radius:.1f} mm): give tin.corner_radius_mm {tin_radius:g} or less, or "
        "choose a bigger tin"
    )


def _more(length: float, width: float) -> str:
    """'2.1 mm more length and 0.1 mm more width', each rounded up: 0.04 short never
    reads as 0.0 (a tin grown by the figure said must fit)."""
    needs = [
        f"{mm_up_to_tenth(amount)} mm more {word}"
        for amount, word in ((length, "length"), (width, "width"))
        if amount > 1e-9
    ]
    return " and ".join(needs) or "a little more room"


def _words(unit: Unit) -> str:
    return unit.label or unit.name.replace("_", " ")


def _culprits(box: BoxShape, units: Sequence[Unit], clearance: float) -> str:
    """What to take out first: a piece too big for the box on its own (with its pocket's
    clearance), else the biggest."""
    inside = sorted((box.inner_length, box.inner_width))

    def overshoot(unit: Unit) -> float:
        footprint = sorted(side + 2 * clearance for side in unit.size[:2])
        return max(footprint[0] - inside[0], footprint[1] - inside[1])

    alone = [unit for unit in units if overshoot(unit) > 0]
    if alone:
        worst = max(alone, key=overshoot)
        length, width = unit_footprint(worst)
        short_side = width + 2 * clearance - inside[0]
        too = "too wide" if short_side >= overshoot(worst) - 1e-9 else "too long"
        size = f"{length:.1f} x {width:.1f} mm"
        return f"{_words(worst)} alone ({size}) is {overshoot(worst):.1f} mm {too} for it"
    biggest = sorted(units, key=lambda unit: -unit.size[0] * unit.size[1])[:2]
    return "the biggest are " + " and ".join(
        f"{_words(unit)} ({unit_footprint(unit)[0]:.1f} x {unit_footprint(unit)[1]:.1f} mm)"
        for unit in biggest
    )


def unit_footprint(unit: Unit) -> tuple[float, float]:
    """The unit's length and width, longer first."""
    length, width = sorted(unit.size[:2], reverse=True)
    return length, width


def tray_notches(
    box: BoxShape,
    pockets: Sequence[Pocket],
    divider: float,
    top: float | None = None,
    narrowest: Mapping[str, tuple[float, float]] | None = None,
) -> tuple[Notch, ...]:
    """Finger notches for the pockets whose pieces sit too low to grip: a tray's pockets are
    cut from their floor to the tray's top (`top`, by default the box's height), so that is
    the wall a finger reaches over; none as wide as a piece beside it (`narrowest`)."""
    walls = [replace(pocket, z_top=box.height if top is None else top) for pocket in pockets]
    return tuple(finger_notches(walls, divider, box.floor, narrowest))


def shelves(blocks: Sequence[Sequence[Variant]], divider: float, max_w: float) -> Packed:
    """Every block lying long side along x, tallest (deepest in y) first, in rows no longer
    than max_w (a block longer than that gets a row of its own); rows stacked along y."""
    chosen = [min(variants, key=lambda v: (v.h, -v.w)) for variants in blocks]
    chosen.sort(key=lambda v: (-v.h, -v.w))
    rows: list[list[Variant]] = []
    length = 0.0
    for variant in chosen:
        if rows and length + divider + variant.w <= max_w + FLOAT_SLACK_MM:
            rows[-1].append(variant)
            length += divider + variant.w
        else:
            rows.append([variant])
            length = variant.w
    row_packs = [
        _joined([Packed(v.w, v.h, v.z, variant=v) for v in row], "x", divider) for row in rows
    ]
    return _joined(row_packs, "y", divider)


def _joined(packs: list[Packed], join: str, divider: float) -> Packed:
    whole = packs[0]
    for nxt in packs[1:]:
        if join == "x":
            w, h = whole.w + divider + nxt.w, max(whole.h, nxt.h)
        else:
            w, h = max(whole.w, nxt.w), whole.h + divider + nxt.h
        whole = Packed(w, h, max(whole.z, nxt.z), join=join, first=whole, second=nxt)
    return whole


def _margins(box: BoxShape, placed: _Placed) -> dict[str, float]:
    packed = placed.packed
    return {
        "x": box.inner_length - packed.w,
        "y": box.inner_width - packed.h,
        "z": box.usable_depth - packed.z,
        "corner": placed.corner,  # clearance to the wall, rounded corners included
    }


def _layout(
    box: BoxShape,
    chosen: _Placed,
    divider: float,
    box_part: str,
    lid_part: str | None,
    floors: Floors,
) -> Layout:
    packed, (dx, dy) = chosen.packed, chosen.offset
    pockets, placements = [], []
    narrowest: dict[str, tuple[float, float]] = {}
    for variant, x, y in packed.leaves():
        base = box.floor if floors == "box" else box.ceiling - variant.z
        matrix = frames.translate(x - packed.w / 2 + dx, y - packed.h / 2 + dy, base)
        for local in variant.pockets:
            moved = local.moved(matrix)
            top = base + local.item_top
            shape = (moved.name, "rect", moved.size, moved.pose, moved.points)
            pockets.append(Pocket(*shape, base, top, top))
        for unit, pose in variant.units:
            placed = frames.compose(matrix, pose)
            envelope = frames.transform_bounds(placed, ((0.0, 0.0, 0.0), unit.size))
            if unit.narrowest is not None:
                _note_declared(narrowest, unit.name, unit.narrowest, placed)
            for piece in unit.moved(placed):
                bounds = frames.transform_bounds(piece.transform, piece.bounds)
                _note_narrowest(narrowest, unit.name, bounds)
                placements.append(
                    Placement(piece.name, piece.part, piece.transform, bounds, unit.name, envelope)
                )
    margins = {axis: round(value, 3) for axis, value in _margins(box, chosen).items()}
    walls_top = box.height if floors == "box" else box.ceiling
    strategy = f"{len(pockets)} pocket(s) side by side"
    return Layout(
        strategy=strategy if floors == "box" else f"{strategy}, floors raised to the lid",
        box=box,
        insert_top=max(pocket.z_top for pocket in pockets),
        pockets=tuple(pockets),
        placements=tuple(placements),
        notches=tray_notches(box, pockets, divider, walls_top, narrowest),
        margins=margins,
        limited_by=min(margins, key=lambda axis: margins[axis] * (2 if axis == "corner" else 1)),
        box_part=box_part,
        lid_part=lid_part,
    )


def _note_narrowest(narrowest: dict[str, tuple[float, float]], pocket: str, bounds: Bounds) -> None:
    """Keep the smallest length along x and along y of the pieces in `pocket`."""
    (x0, y0, _), (x1, y1, _) = bounds
    old = narrowest.get(pocket, (math.inf, math.inf))
    narrowest[pocket] = (min(old[0], x1 - x0), min(old[1], y1 - y0))


def _note_declared(
    narrowest: dict[str, tuple[float, float]],
    pocket: str,
    declared: tuple[float, float],
    placed: frames.Matrix,
) -> None:
    """A unit's declared narrowest (facing x, facing y), turned with the unit."""
    turned = abs(float(placed[0][1])) > 0.5  # a quarter turn swaps x and y
    facing = (declared[1], declared[0]) if turned else declared
    old = narrowest.get(pocket, (math.inf, math.inf))
    narrowest[pocket] = (min(old[0], facing[0]), min(old[1], facing[1]))

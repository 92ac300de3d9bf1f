"""How the Space Planes pieces are stowed: what each part (or bought piece) occupies in
its modelled frame, and the units the engine's generic stower (`fit.simple`) packs: the
deck and gauge, the cubes side by side, the holders side by side, each in a pocket of its
own. The deck and the dice are bought, not printed: layout.json shows them as blocks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from squadron_cad.fit.report import fit_report
from squadron_cad.fit.units import Piece, Unit
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds
from squadron_cad.kits.space_planes.constants import DECK, DIE, GAUGE, HOLDER, cube_part
from squadron_cad.kits.space_planes.params import SpacePlanesParams

if TYPE_CHECKING:
    from squadron_cad.kits.space_planes.design import SpacePlanesDesign


def holder_outer_mm(p: SpacePlanesParams) -> float:
    h = p.holder
    return h.die_size_mm + 2 * (h.clearance_mm + h.wall_mm)


def part_bounds(p: SpacePlanesParams, part: str) -> Bounds:
    """What a part (or a bought piece) occupies in its modelled frame."""
    if part == GAUGE:
        return (0.0, 0.0, 0.0), (p.card.long_mm, p.card.short_mm, p.gauge.fence_height_mm)
    if part == DECK:
        return (0.0, 0.0, 0.0), (p.card.long_mm, p.card.short_mm, p.card.deck_thickness_mm)
    if part.startswith("cubeship_"):
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


def units(p: SpacePlanesParams) -> list[Unit]:
    """The deck with the gauge on top; the cubeships in a grid; the dice seated in their
    holders, in a grid."""
    deck, gauge = part_bounds(p, DECK), part_bounds(p, GAUGE)
    t = p.card.deck_thickness_mm
    out = [
        Unit(
            "deck_and_gauge",
            "stack",
            (p.card.long_mm, p.card.short_mm, t + p.gauge.fence_height_mm),
            (
                Piece("card_deck", DECK, frames.identity(), deck),
                Piece(GAUGE, GAUGE, frames.translate(0, 0, t), gauge),
            ),
        )
    ]
    ships = p.cube.ships
    columns = max(1, math.ceil(ships / 2))
    s = p.cube.side_mm
    cubes = []
    for k in range(ships):
        at = frames.translate((k % columns) * s, (k // columns) * s, 0)
        cubes.append(
            Piece(cube_part(k + 1), cube_part(k + 1), at, part_bounds(p, cube_part(k + 1)))
        )
    rows = math.ceil(ships / columns)
    out.append(Unit("cubeships", "grid", (columns * s, rows * s, s), tuple(cubes)))
    h = p.holder
    seat = h.wall_mm + h.clearance_mm
    holder, die = part_bounds(p, HOLDER), part_bounds(p, DIE)
    o = holder_outer_mm(p)
    height = max(h.floor_mm + h.die_size_mm, _size(holder)[2])
    dice = []
    for k in range(ships):
        x, y = (k % columns) * o, (k // columns) * o
        dice.append(Piece(f"die_holder_{k + 1}", HOLDER, frames.translate(x, y, 0), holder))
        at = frames.translate(x + seat, y + seat, h.floor_mm)
        dice.append(Piece(f"plane_die_{k + 1}", DIE, at, die))
    out.append(Unit("plane_dice", "grid", (columns * o, rows * o, height), tuple(dice)))
    return out


def fit_lines(design: SpacePlanesDesign) -> list[str]:
    ships = design.params.cube.ships
    holds = f"the deck with the joker gauge on it, {ships} cubeships, {ships} dice in holders"
    return fit_report(design, holds=holds)

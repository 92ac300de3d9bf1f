"""A packed box: its shape, its pockets and where each piece lies (what any stower returns).

Frames: the box frame has its origin at the centre of the box's underside; a pocket's
`pose` maps its shape frame into it, a placement's `transform` maps a part's STL (as
built, in print orientation) to where it lies. The engine writes, draws and checks a
layout; a kit's stower (or `fit.simple`) makes one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from squadron_cad.fit.notches import Notch
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds, Matrix


@dataclass(frozen=True)
class BoxShape:
    """The box's sizes, all in the box frame: origin at the centre of its underside."""

    length: float
    width: float
    height: float
    radius: float
    wall: float
    floor: float
    lid_thickness: float
    headroom: float
    tin_gap: float = 0.0  # between the box and its tin, per side: a refusal names the tin's

    @property
    def inner_length(self) -> float:
        return self.length - 2 * self.wall

    @property
    def inner_width(self) -> float:
        return self.width - 2 * self.wall

    @property
    def inner_radius(self) -> float:
        return max(self.radius - self.wall, 0.0)

    @property
    def lid_bottom(self) -> float:
        return self.height - self.lid_thickness

    @property
    def ceiling(self) -> float:
        """Nothing stands higher: the lid's underside less the headroom."""
        return self.lid_bottom - self.headroom

    @property
    def usable_depth(self) -> float:
        return self.ceiling - self.floor

    @property
    def inner_height(self) -> float:
        return self.lid_bottom - self.floor


@dataclass(frozen=True, eq=False)
class Pocket:
    """A pocket in the box frame: its kind's shape placed by `pose`, cut from z_bottom up."""

    name: str
    kind: str  # octagon | rect | outline (see blocks.LocalPocket)
    size: tuple[float, float]
    pose: Matrix  # shape frame -> box frame
    points: np.ndarray  # outline in the box frame, N x 2
    z_bottom: float
    z_top: float
    item_top: float
    on_top: bool = False  # a recess for a piece lying over the other pockets, under the lid
    # The kit's names for z_bottom and z_top ("floor", "ceiling"...), so a box builder cuts
    # at its own symbolic levels rather than at the numbers.
    levels: tuple[str, str] = ("", "")

    @property
    def angle_deg(self) -> float:
        return round(math.degrees(math.atan2(self.pose[1, 0], self.pose[0, 0])), 6) + 0.0

    @property
    def origin(self) -> tuple[float, float]:
        return float(self.pose[0, 3]), float(self.pose[1, 3])

    @property
    def bounds_2d(self) -> tuple[float, float, float, float]:
        low, high = self.points.min(axis=0), self.points.max(axis=0)
        return float(low[0]), float(low[1]), float(high[0]), float(high[1])


@dataclass(frozen=True, eq=False)
class Placement:
    """One physical piece in the box frame."""

    name: str
    part: str
    transform: Matrix  # part frame -> box frame
    bounds: Bounds  # in the box frame
    unit: str  # what it is stowed with: a column of tokens, a card and its clips, ...
    unit_bounds: Bounds  # that unit's envelope in the box frame
    on_top: bool = False  # lying flat over the pockets, under the lid


@dataclass(frozen=True, eq=False)
class Layout:
    strategy: str
    box: BoxShape
    insert_top: float  # top of the dividers (outside a recess for a piece lying on top)
    pockets: tuple[Pocket, ...]
    placements: tuple[Placement, ...]
    notches: tuple[Notch, ...]
    margins: dict[str, float]  # x, y, z: spare mm; corner: clearance at the tightest corner
    limited_by: str  # x | y | z | corner
    box_part: str  # the part that is the box, and the lid's (None: no lid)
    lid_part: str | None
    arrangement: tuple[str, ...] = field(default=())  # each block's variant, for people
    insert_level: str = ""  # the kit's name for insert_top's level
    # The lid's STL (print orientation) -> where it lies closed; None: at lid_bottom as built.
    lid_transform: Matrix | None = None

    @property
    def smallest_margin(self) -> float:
        return score(self.margins)

    @property
    def lid_pose(self) -> Matrix:
        """Where the lid lies on the closed box (its STL as built -> the box frame)."""
        if self.lid_transform is not None:
            return self.lid_transform
        return frames.translate(0, 0, self.box.lid_bottom)

    @property
    def on_top(self) -> Pocket | None:
        """The pocket of a piece lying flat on top of the others, under the lid."""
        return next((pocket for pocket in self.pockets if pocket.on_top), None)

    def describe(self) -> str:
        margins = ", ".join(f"{axis} {value:.1f}" for axis, value in self.margins.items())
        return f"{self.strategy}; margins mm: {margins}; limited by {self.limited_by}"

    def summary(self) -> dict[str, Any]:
        """What the manifest and `fit --json` say of the layout."""
        return {
            "strategy": self.strategy,
            "arrangement": list(self.arrangement),
            "margins_mm": {axis: round(value, 2) for axis, value in self.margins.items()},
            "limited_by": self.limited_by,
            "box_mm": [self.box.length, self.box.width, self.box.height],
        }


def score(margins: dict[str, float]) -> float:
    """The smallest margin: spare length, width and depth, and twice the corner clearance."""
    return min(margins["x"], margins["y"], margins["z"], 2 * margins["corner"])


def held_by(layout: Layout, pocket: Pocket) -> list[Placement]:
    """The pieces in a pocket: those of the unit it is named for, else those whose unit's
    centre lies inside it (a kit's pocket may hold several units, one a player)."""
    named = [q for q in layout.placements if q.unit == pocket.name]
    if named or pocket.on_top:
        return named
    units = {pocket.name for pocket in layout.pockets}
    loose = [q for q in layout.placements if not q.on_top and q.unit not in units]
    if not loose:
        return []
    centres = np.array([np.mean(np.asarray(q.unit_bounds)[:, :2], axis=0) for q in loose])
    inside = shapely.contains_xy(Polygon(pocket.points), centres[:, 0], centres[:, 1])
    return [q for q, held in zip(loose, inside, strict=True) if held]


def pocket_label(name: str, names: list[str]) -> str:
    """'cards_1' reads 'cards' when it is the only pocket of its kind."""
    stem, _, number = name.rpartition("_")
    alone = number == "1" and f"{stem}_2" not in names
    return (stem if alone else name).replace("_", " ")


def box_layouts(design: Any) -> tuple[Layout, ...]:
    """Every box a kit's design stows pieces into: its `layouts` when it declares more than
    one box (a box per player and one for the table), else its layout (none: no box)."""
    several = getattr(design, "layouts", None)
    if several is not None:
        return tuple(several)
    layout = design.layout
    return () if layout is None else (layout,)

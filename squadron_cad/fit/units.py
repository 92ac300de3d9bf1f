"""Units, pieces and pocket blocks: what a stower packs (plain numpy, no I/O).

A `Piece` is one physical object: the part whose STL it is and the transform from that
part's modelled frame to its pose inside a `Unit`. A unit is what is stowed together (a
column of stacked tokens, a card with its clips, a die); its frame has the lower corner of
its envelope at the origin, so a stower only ever moves envelopes. A `Variant` is one
arrangement of a block of pockets, laid out in its own frame: footprint [0, w] x [0, h] on
the floor, pocket clearance and the dividers between its own pockets included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from squadron_cad.constants import OCTAGON_CORNER_OFFSET_DEG
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds, Matrix


@dataclass(frozen=True, eq=False)
class Piece:
    name: str
    part: str
    transform: Matrix  # part frame -> unit frame
    bounds: Bounds  # the part's bounds in its own (modelled) frame

    @property
    def unit_bounds(self) -> Bounds:
        return frames.transform_bounds(self.transform, self.bounds)


@dataclass(frozen=True, eq=False)
class Unit:
    """Things stowed together; envelope [0, size] in its own frame."""

    name: str
    kind: str  # the kit's word for what it is (a stack, a card, a die, ...)
    size: tuple[float, float, float]
    pieces: tuple[Piece, ...] = field(default=())
    label: str = ""
    # The narrowest length along x and along y (unit frame) a piece shows the pocket's
    # walls where its bounds do not say (a narrow tab at its end): a finger notch is no
    # wider there (fit.notches). None: its pieces' bounds say.
    narrowest: tuple[float, float] | None = None

    def moved(self, matrix: Matrix) -> list[Piece]:
        """The pieces with `matrix` (unit frame -> box frame) applied."""
        return [
            Piece(piece.name, piece.part, frames.compose(matrix, piece.transform), piece.bounds)
            for piece in self.pieces
        ]


@dataclass(frozen=True, eq=False)
class LocalPocket:
    """A pocket in a variant's frame: `shape` is the kind's canonical shape placed by `pose`.

    octagon: centred on the origin, `size` across the flats (flats on the axes);
    rect: centred on the origin, `size` = (x, y);
    outline: a flat piece's outline in its modelled frame, grown by the clearance.
    """

    name: str
    kind: str
    size: tuple[float, float]
    pose: Matrix  # shape frame -> variant frame (a quarter turn and a shift)
    points: np.ndarray  # the outline in the variant frame, N x 2
    item_top: float  # the top of what stands in it, above the floor
    z_bottom: float = 0.0  # its bottom above the floor: a shelf over other pockets

    def moved(self, matrix: Matrix) -> LocalPocket:
        points = frames.transform_points(matrix, xyz(self.points))[:, :2]
        pose = frames.compose(matrix, self.pose)
        return LocalPocket(
            self.name, self.kind, self.size, pose, points, self.item_top, self.z_bottom
        )


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


def both_turns(variants: Sequence[Variant]) -> list[Variant]:
    return [turned for variant in variants for turned in (variant, variant.turned())]


def octagon_points(across_flats: float) -> np.ndarray:
    radius = across_flats / 2 / math.cos(math.radians(OCTAGON_CORNER_OFFSET_DEG))
    angles = [math.radians(OCTAGON_CORNER_OFFSET_DEG + 45 * k) for k in range(8)]
    return np.array([[radius * math.cos(a), radius * math.sin(a)] for a in angles])


def rect_points(sx: float, sy: float) -> np.ndarray:
    return np.array([[-sx / 2, -sy / 2], [sx / 2, -sy / 2], [sx / 2, sy / 2], [-sx / 2, sy / 2]])


def xyz(points: np.ndarray) -> np.ndarray:
    return np.hstack([points, np.zeros((len(points), 1))])


def make_pocket(
    name: str, kind: str, size: tuple[float, float], shape: np.ndarray, pose: Matrix, top: float
) -> LocalPocket:
    return LocalPocket(
        name, kind, size, pose, frames.transform_points(pose, xyz(shape))[:, :2], top
    )


def rect_pocket(name: str, x0: float, y0: float, sx: float, sy: float, top: float) -> LocalPocket:
    pose = frames.translate(x0 + sx / 2, y0 + sy / 2, 0)
    return make_pocket(name, "rect", (sx, sy), rect_points(sx, sy), pose, top)


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


def turn_in_place(sy: float) -> Matrix:
    """A quarter turn that keeps an envelope sy deep (along y) in the positive quadrant."""
    return frames.compose(frames.translate(sy, 0, 0), frames.rotate_z(90))

"""How the game's pieces look on paper: one place for the inks and pens."""

from __future__ import annotations

from shapely.geometry.base import BaseGeometry

from squadron_cad.paper.drawing import (
    BLACK,
    CUT_LINE_MM,
    Area,
    Item,
    Layer,
    area,
    outline_strokes,
)

PIECE_FILL = "#f0f0f0"  # the body of a card piece: light, so cut lines and marks stand out
HOLE_FILL = "#707070"  # holes the 3D part has (chevrons): grey on paper, cut by a laser
GUIDE = "#555555"
ENGRAVED = "#303030"  # what the 3D part engraves: dark, a little lighter than cut lines


def body(shape: BaseGeometry, tag: str, fill: str = PIECE_FILL) -> list[Item]:
    """A piece's body: its light fill (paper only) and its cut line."""
    return [
        area(shape, fill, "print", tag=f"{tag}-body"),
        *outline_strokes(shape, CUT_LINE_MM, BLACK, "cut", tag=f"{tag}-cut"),
    ]


def ink(shape: BaseGeometry, layer: Layer, tag: str, fill: str = ENGRAVED) -> list[Item]:
    if shape.is_empty:
        return []
    return [area(shape, fill, layer, tag=tag)]


def holes(shape: BaseGeometry, tag: str) -> list[Item]:
    """Through-holes: cut by a laser, grey with a cut line on paper."""
    if shape.is_empty:
        return []
    return [Area(area(shape, HOLE_FILL, "cut").rings, HOLE_FILL, "cut", BLACK, 0.15, tag=tag)]

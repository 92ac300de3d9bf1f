"""How Squadrons' pieces look on paper, and the 2D shapes its 3D parts' engravings make.

The parts' modules give every position and size (their layout functions); this module
only turns them into shapely regions and stroke text: a bar, a ring segment, a mark.
"""

from __future__ import annotations

from typing import Any

from shapely import affinity
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from squadron_cad.paper.drawing import (
    BLACK,
    CUT_LINE_MM,
    Drawing,
    Item,
    Layer,
    arc_points,
    area,
    drawing,
    outline_strokes,
    tint,
)
from squadron_cad.paper.fonts import stroke_text

PIECE_FILL = "#f0f0f0"  # the body of a card piece: light, so cut lines and marks stand out
ENGRAVED = "#303030"  # what the 3D part engraves: dark, a little lighter than cut lines
TINT_STRENGTH = 0.3  # share of the player's colour in a player's piece's fill


def body(shape: BaseGeometry, tag: str, fill: str = PIECE_FILL) -> list[Item]:
    """A piece's body: its light fill (paper only) and its cut line."""
    return [
        area(shape, fill, "print", tag=f"{tag}-body"),
        *outline_strokes(shape, CUT_LINE_MM, BLACK, "cut", tag=f"{tag}-cut"),
    ]


def ink(
    shape: BaseGeometry, tag: str, layer: Layer = "engrave", fill: str = ENGRAVED
) -> list[Item]:
    if shape.is_empty:
        return []
    return [area(shape, fill, layer, tag=tag)]


def words(text: str, centre: tuple[Any, Any], height: Any, stroke: Any, tag: str) -> Drawing:
    """Stroke-font text centred on `centre`, as shapes.centred_text engraves it."""
    at = (float(centre[0]), float(centre[1]))
    return drawing(stroke_text(text, float(height), float(stroke), BLACK, "engrave", at, tag))


def bar(x0: Any, y0: Any, x1: Any, y1: Any) -> Polygon:
    """parts.common.bar in 2D: the rectangle from (x0, y0) to (x1, y1)."""
    return box(float(x0), float(y0), float(x1), float(y1))


def turned(shape: BaseGeometry, angle_deg: float) -> BaseGeometry:
    """OpenSCAD's rotate([0, 0, angle]): about the origin."""
    return affinity.rotate(shape, float(angle_deg), origin=(0, 0))


def ring_segment(r_inner: float, r_outer: float, start_deg: float, end_deg: float) -> Polygon:
    outer = arc_points((0, 0), r_outer, start_deg, end_deg)
    inner = arc_points((0, 0), r_inner, start_deg, end_deg)
    return Polygon(outer + inner[::-1])


def circle(diameter: float, centre: tuple[float, float] = (0.0, 0.0)) -> Polygon:
    return Polygon(arc_points(centre, diameter / 2, 0, 360)[:-1])


def points(ring: list[list[Any]] | list[tuple[Any, Any]]) -> list[tuple[float, float]]:
    """The parts' vertex lists (numbers that remember their OpenSCAD expression) as floats."""
    return [(float(x), float(y)) for x, y in ring]


def player_fill(p: Any, player: int) -> str:
    """A light tint of the player's colour (player_colours), else the plain piece fill."""
    colours = p.player_colours
    if colours is None or player >= len(colours):
        return PIECE_FILL
    return tint(colours[player].hex, TINT_STRENGTH)


def player_name(p: Any, player: int) -> str:
    colours = p.player_colours
    if colours is not None and player < len(colours):
        return f"Player {player + 1} ({colours[player].name})"
    return f"Player {player + 1}"

"""What a sheet draws, in millimetres: filled areas, stroked lines and font text.

Drawings use the CAD frame (x right, y up), like the 3D parts; a page turns them into its
own frame (y down) when it places them, without mirroring. Every item names its layer:
`cut` (an outline to cut along), `engrave` (marks a laser or the 3D part engraves) or
`print` (ink only paper shows). Writers (pdf.py, svg.py) draw the same items in the same
order, so the PDF and the SVG of a page hold the same geometry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal, TypedDict, Unpack

from shapely import affinity
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from squadron_cad.params import hex_channels

Point = tuple[float, float]
Layer = Literal["cut", "engrave", "print"]
Anchor = Literal["start", "middle", "end"]

BLACK = "#000000"
WHITE = "#ffffff"
CUT_LINE_MM = 0.25  # a cut line on paper: thin, dark, easy to follow with a blade
ARC_TOLERANCE_MM = 0.005  # flattened arcs stay this close to the true circle


def tint(colour_hex: str, strength: float) -> str:
    """The colour mixed with white, `strength` of it: light enough for black ink to read
    on (a player's colour behind a counter's marks, say)."""
    mixed = [round(255 - (255 - value) * strength) for value in hex_channels(colour_hex)]
    return "#" + "".join(f"{value:02x}" for value in mixed)


@dataclass(frozen=True)
class Area:
    """A filled region (polygons with holes, even-odd), optionally outlined."""

    rings: tuple[tuple[Point, ...], ...]
    fill: str | None
    layer: Layer
    stroke: str | None = None
    stroke_mm: float = 0.0
    tag: str = ""


@dataclass(frozen=True)
class Stroke:
    """An open or closed polyline drawn with a pen `width_mm` wide."""

    points: tuple[Point, ...]
    width_mm: float
    colour: str
    layer: Layer
    closed: bool = False
    dash_mm: tuple[float, ...] = ()
    round_caps: bool = True
    tag: str = ""


@dataclass(frozen=True)
class Label:
    """Font text (Helvetica in the PDF, the same family in SVG): page text, never engraved.

    `at` is the baseline point of the anchor; `size_mm` the font size (cap height ~0.72 x).
    """

    text: str
    at: Point
    size_mm: float
    anchor: Anchor = "start"
    colour: str = BLACK
    bold: bool = False
    angle_deg: float = 0.0
    layer: Layer = "print"
    tag: str = ""


Item = Area | Stroke | Label


@dataclass(frozen=True)
class Drawing:
    """Items in the CAD frame; later items draw over earlier ones."""

    items: tuple[Item, ...] = field(default_factory=tuple)

    def __add__(self, other: Drawing) -> Drawing:
        return Drawing(self.items + other.items)

    def moved(self, dx: float, dy: float, angle_deg: float = 0.0) -> Drawing:
        """Rotated about the origin by angle_deg (counter-clockwise), then translated."""
        return Drawing(tuple(_move(item, dx, dy, angle_deg) for item in self.items))

    def on_layer(self, *layers: Layer) -> Drawing:
        return Drawing(tuple(item for item in self.items if item.layer in layers))

    def bounds(self) -> tuple[float, float, float, float]:
        """min x, min y, max x, max y of the geometry (strokes with their pen width)."""
        boxes = [item_bounds(item) for item in self.items]
        if not boxes:
            return (0.0, 0.0, 0.0, 0.0)
        return (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )


def drawing(*items: Item | Iterable[Item]) -> Drawing:
    flat: list[Item] = []
    for entry in items:
        if isinstance(entry, Area | Stroke | Label):
            flat.append(entry)
        else:
            flat.extend(entry)
    return Drawing(tuple(flat))


# ---- from shapely geometry -----------------------------------------------------------------


def polygons_of(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [] if geometry.is_empty else [geometry]
    if isinstance(geometry, MultiPolygon):
        return [poly for poly in geometry.geoms if not poly.is_empty]
    return [g for part in getattr(geometry, "geoms", ()) for g in polygons_of(part)]


def rings_of(geometry: BaseGeometry) -> tuple[tuple[Point, ...], ...]:
    """Every ring (exteriors and holes) of a polygonal geometry, without the closing point."""
    rings: list[tuple[Point, ...]] = []
    for poly in polygons_of(geometry):
        for ring in (poly.exterior, *poly.interiors):
            coords = list(ring.coords)[:-1]
            rings.append(tuple((round(x, 6), round(y, 6)) for x, y in coords))
    return tuple(rings)


def area_geometry(item: Area) -> BaseGeometry:
    """The region an Area fills, with the even-odd rule its writers use."""
    region: BaseGeometry = Polygon()
    for ring in item.rings:
        if len(ring) >= 3:
            region = region.symmetric_difference(Polygon(ring).buffer(0))
    return region


class AreaStyle(TypedDict, total=False):
    """An Area's optional fields, as area() takes them by name."""

    stroke: str | None
    stroke_mm: float
    tag: str


def area(
    geometry: BaseGeometry, fill: str | None, layer: Layer, **style: Unpack[AreaStyle]
) -> Area:
    return Area(rings_of(geometry), fill, layer, **style)


def outline_strokes(
    geometry: BaseGeometry, width_mm: float, colour: str, layer: Layer, tag: str = ""
) -> list[Stroke]:
    """Each ring of a polygonal geometry as a closed stroke (a cut line, say)."""
    return [
        Stroke(ring, width_mm, colour, layer, closed=True, tag=tag) for ring in rings_of(geometry)
    ]


def lines_of(geometry: BaseGeometry) -> list[tuple[Point, ...]]:
    """The polylines of a (multi)line geometry, e.g. after clipping."""
    if isinstance(geometry, LineString):
        return [] if geometry.is_empty else [tuple(geometry.coords)]
    return [line for part in getattr(geometry, "geoms", ()) for line in lines_of(part)]


# ---- arcs and circles ----------------------------------------------------------------------


def arc_points(centre: Point, radius: float, start_deg: float, end_deg: float) -> list[Point]:
    """Points on a circular arc, close enough that no chord strays ARC_TOLERANCE_MM."""
    sweep = end_deg - start_deg
    if radius <= ARC_TOLERANCE_MM:
        step = 90.0
    else:
        step = math.degrees(2 * math.acos(1 - ARC_TOLERANCE_MM / radius))
    count = max(2, math.ceil(abs(sweep) / max(step, 0.05)))
    cx, cy = centre
    return [
        (
            cx + radius * math.cos(math.radians(start_deg + sweep * i / count)),
            cy + radius * math.sin(math.radians(start_deg + sweep * i / count)),
        )
        for i in range(count + 1)
    ]


# ---- moving items --------------------------------------------------------------------------


def _turn(point: Point, dx: float, dy: float, cos_a: float, sin_a: float) -> Point:
    x, y = point
    return (x * cos_a - y * sin_a + dx, x * sin_a + y * cos_a + dy)


def _move(item: Item, dx: float, dy: float, angle_deg: float) -> Item:
    cos_a, sin_a = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    if isinstance(item, Area):
        rings = tuple(tuple(_turn(p, dx, dy, cos_a, sin_a) for p in ring) for ring in item.rings)
        return replace(item, rings=rings)
    if isinstance(item, Stroke):
        return replace(item, points=tuple(_turn(p, dx, dy, cos_a, sin_a) for p in item.points))
    return replace(
        item,
        at=_turn(item.at, dx, dy, cos_a, sin_a),
        angle_deg=item.angle_deg + angle_deg,
    )


# ---- extents -------------------------------------------------------------------------------


def label_width_mm(label: Label) -> float:
    """The label's advance width: Helvetica's own metrics (fpdf2 ships them)."""
    from squadron_cad.paper.metrics import text_width_mm  # fpdf2 loads with the paper only

    return text_width_mm(label.text, label.size_mm, label.bold)


def item_bounds(item: Item) -> tuple[float, float, float, float]:
    if isinstance(item, Area):
        xs = [x for ring in item.rings for x, _ in ring]
        ys = [y for ring in item.rings for _, y in ring]
        pad = item.stroke_mm / 2 if item.stroke else 0.0
        return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    if isinstance(item, Stroke):
        pad = item.width_mm / 2
        if not item.round_caps and not item.closed:  # ink stops at the ends
            line = LineString(item.points)
            return tuple(line.buffer(pad, cap_style="flat", join_style="round").bounds)
        xs = [x for x, _ in item.points]
        ys = [y for _, y in item.points]
        return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    return label_box(item).bounds


def label_box(label: Label) -> Polygon:
    """The box a label's ink can reach: advance width by ascent (0.75 em) and descent."""
    width = label_width_mm(label)
    start = {"start": 0.0, "middle": -width / 2, "end": -width}[label.anchor]
    box = Polygon(
        [
            (start, -0.22 * label.size_mm),
            (start + width, -0.22 * label.size_mm),
            (start + width, 0.75 * label.size_mm),
            (start, 0.75 * label.size_mm),
        ]
    )
    turned = affinity.rotate(box, label.angle_deg, origin=(0, 0))
    return affinity.translate(turned, *label.at)

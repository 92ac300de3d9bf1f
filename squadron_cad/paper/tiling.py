"""A drawing larger than a page, tiled over pages that join into one exact picture.

Tiles are windows of the content area's size, stepped by the window minus the overlap, so
neighbouring pages print the same strip of the drawing. A page lies on its left and upper
neighbours: you cut it along its left and top edges (solid lines), lay it on the
neighbour's shaded strip up to the dashed line, and the ticks that cross the join line up.
Each page carries its row and column and a small map of the whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from shapely.geometry import LineString, Polygon, box

from squadron_cad.errors import InputError
from squadron_cad.paper.drawing import (
    BLACK,
    WHITE,
    Anchor,
    Area,
    Drawing,
    Item,
    Label,
    Stroke,
    area_geometry,
    drawing,
    label_box,
    lines_of,
    rings_of,
)
from squadron_cad.paper.layout import Page
from squadron_cad.paper.page import PageFrame, Rect
from squadron_cad.paper.sheet import TiledSheet

STRIP_FILL = "#e6e6e6"  # the strip the next page will cover
JOIN_MM = 0.35  # the dashed line the next page's edge goes to, and the solid cut line
JOIN_DASH_MM = (3.0, 2.0)
TICK_PITCH_MM = 40.0  # alignment ticks across each join, in the drawing's frame
TICK_HALF_MM = 5.0
TICK_MM = 0.4
TEXT_MM = 2.6


@dataclass(frozen=True)
class Grid:
    """How the drawing's bounds split into tiles."""

    left: float
    top: float
    window_width: float
    window_height: float
    overlap: float
    columns: int
    rows: int

    @property
    def step_x(self) -> float:
        return self.window_width - self.overlap

    @property
    def step_y(self) -> float:
        return self.window_height - self.overlap

    def window(self, row: int, column: int) -> Rect:
        """Tile (row, column), 0-based from the top-left, in the drawing's frame."""
        x = self.left + column * self.step_x
        top = self.top - row * self.step_y
        return Rect(x, top - self.window_height, self.window_width, self.window_height)


def tile_count(length: float, window: float, overlap: float) -> int:
    if length <= window + 1e-9:
        return 1
    return 1 + math.ceil((length - window) / (window - overlap) - 1e-9)


def plan(whole: Drawing, room: Rect, overlap_mm: float) -> Grid:
    if overlap_mm * 3 > min(room.width, room.height):
        raise InputError(
            f"paper.overlap_mm ({overlap_mm:g}) must be under a third of the page's content "
            f"area ({room.width:.0f} x {room.height:.0f} mm)"
        )
    x0, y0, x1, y1 = whole.bounds()
    return Grid(
        x0,
        y1,
        room.width,
        room.height,
        overlap_mm,
        tile_count(x1 - x0, room.width, overlap_mm),
        tile_count(y1 - y0, room.height, overlap_mm),
    )


def join_ticks(whole: Drawing, grid: Grid) -> Drawing:
    """Ticks across every join line, in the drawing's frame, so both pages print them."""
    x0, y0, x1, y1 = whole.bounds()
    ticks: list[Item] = []
    for column in range(1, grid.columns):
        x = grid.left + column * grid.step_x
        y = y1 - TICK_PITCH_MM / 2
        while y > y0:
            ticks.append(_tick((x - TICK_HALF_MM, y), (x + TICK_HALF_MM, y)))
            y -= TICK_PITCH_MM
    for row in range(1, grid.rows):
        y = grid.top - row * grid.step_y
        x = x0 + TICK_PITCH_MM / 2
        while x < x1:
            ticks.append(_tick((x, y - TICK_HALF_MM), (x, y + TICK_HALF_MM)))
            x += TICK_PITCH_MM
    return drawing(ticks)


def _tick(a: tuple[float, float], b: tuple[float, float]) -> Stroke:
    return Stroke((a, b), TICK_MM, BLACK, "print", round_caps=False, tag="join-tick")


INK_MM = 0.5  # windows sit this far inside the content area: lines cut at a window's
# edge keep their pen's width on the page


def tile(sheet: TiledSheet, frame: PageFrame, overlap_mm: float) -> list[Page]:
    area = frame.content
    room = Rect(area.x + INK_MM, area.y + INK_MM, area.width - 2 * INK_MM, area.height - 2 * INK_MM)
    grid = plan(sheet.drawing, room, overlap_mm)
    whole = sheet.drawing + join_ticks(sheet.drawing, grid)
    pages = []
    for row in range(grid.rows):
        for column in range(grid.columns):
            window = grid.window(row, column)
            content = _strips(grid, row, column, window) + clip(whole, window)
            content = content + _joins(grid, row, column, window)
            placed = content.moved(room.x - window.x, room.y - window.y)
            pages.append(
                Page(
                    sheet.name,
                    sheet.title,
                    f"{sheet.name}-r{row + 1}c{column + 1}",
                    placed,
                    tile=(row + 1, column + 1, grid.rows, grid.columns),
                )
            )
    return pages


def _strips(grid: Grid, row: int, column: int, window: Rect) -> Drawing:
    """Shade where the right and lower neighbours will lie."""
    shaded: list[Item] = []
    if column + 1 < grid.columns:
        strip = box(window.right - grid.overlap, window.y, window.right, window.top)
        shaded.append(Area(rings_of(strip), STRIP_FILL, "print", tag="strip-right"))
    if row + 1 < grid.rows:
        strip = box(window.x, window.y, window.right, window.y + grid.overlap)
        shaded.append(Area(rings_of(strip), STRIP_FILL, "print", tag="strip-below"))
    return drawing(shaded)


def _joins(grid: Grid, row: int, column: int, window: Rect) -> Drawing:
    """Dashed lines where neighbours' edges go, their notes in the strip the neighbour will
    cover; solid cut lines on this page's own edges, their notes on the grid without a
    ground (this edge stays in sight: a white ground blanked hex lines on the finished mat)."""
    items: list[Item] = []
    cap = TEXT_MM * 0.75  # how far a letter rises from its baseline
    if column + 1 < grid.columns:
        x = window.right - grid.overlap
        items.append(_line((x, window.y), (x, window.top), "join-right", dashed=True))
        items.extend(_note("next page's edge here", (x + 1.2 + cap, window.top - 30), 90, "end"))
    if row + 1 < grid.rows:
        y = window.y + grid.overlap
        items.append(_line((window.x, y), (window.right, y), "join-below", dashed=True))
        items.extend(_note("next page's edge here", (window.x + 30, y - 1.2 - cap), 0, "start"))
    if column > 0:
        items.append(_line((window.x, window.y), (window.x, window.top), "cut-left"))
        at = (window.x + 1.2 + cap, window.top - 30)
        items.append(_label("cut along this edge", at, 90, "end"))
    if row > 0:
        items.append(_line((window.x, window.top), (window.right, window.top), "cut-top"))
        at = (window.x + 30, window.top - 1.2 - cap)
        items.append(_label("cut along this edge", at, 0, "start"))
    return drawing(items)


def _line(a: tuple[float, float], b: tuple[float, float], tag: str, dashed: bool = False) -> Stroke:
    dash = JOIN_DASH_MM if dashed else ()
    return Stroke((a, b), JOIN_MM, BLACK, "print", dash_mm=dash, round_caps=False, tag=tag)


def _label(text: str, at: tuple[float, float], angle: float, anchor: Anchor) -> Label:
    return Label(text, at, TEXT_MM, anchor=anchor, angle_deg=angle, tag="join-note")


def _note(text: str, at: tuple[float, float], angle: float, anchor: Anchor) -> list[Item]:
    """A note on a white ground, so that it reads over the grid."""
    label = _label(text, at, angle, anchor)
    ground = label_box(label).buffer(0.6, join_style="mitre")
    return [Area(rings_of(ground), WHITE, "print", tag="join-note-ground"), label]


# ---- clipping to a window ------------------------------------------------------------------


def clip(whole: Drawing, window: Rect) -> Drawing:
    """What of the drawing lies inside the window: areas and lines cut at its edges, labels
    kept only when they lie wholly inside."""
    frame = box(*window.box)
    kept: list[Item] = []
    for item in whole.items:
        kept.extend(_clip_item(item, frame))
    return drawing(kept)


def _clip_item(item: Item, frame: Polygon) -> list[Item]:
    if isinstance(item, Label):
        return [item] if frame.contains(label_box(item)) else []
    if isinstance(item, Area):
        shape = area_geometry(item)
        if frame.contains(shape):
            return [item]
        cut = shape.intersection(frame)
        return [replace(item, rings=rings_of(cut))] if not cut.is_empty else []
    points = item.points + (item.points[:1] if item.closed else ())
    line = LineString(points)
    if frame.contains(line):
        return [item]
    return [
        replace(item, points=tuple(part), closed=False)
        for part in lines_of(line.intersection(frame))
        if len(part) > 1
    ]

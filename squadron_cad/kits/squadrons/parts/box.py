"""The boxes and their lids: the engine's tray (fit.tray) of each of this kit's layouts
(fit.simple) and its lid (fit.tray_lid): the kit's box of the table's pieces, and a
player's ship box of one squadron.

A tray is a block with its pockets cut in: where the pockets leave room, and under a
pocket whose floor is raised to bring its pieces up to the lid, the block stays solid, and
infill and top layers cost filament for nothing. So each box also loses its spare block:
- lightening cells cut down to its floor wherever the block is more than a divider from
  every pocket and the wall (a cell narrower than CELL_MIN_MM is left solid), so every
  pocket keeps walls of `box.divider_mm` and the wall keeps its thickness;
- under a raised pocket floor, channels along the pocket, open underneath (no closed
  void), at most CHANNEL_MM wide (their flat roofs print as short bridges, under
  checks.max_bridge_mm) between ribs of RIB_MM, leaving the pocket a floor of
  `box.floor_mm`.
Both keep a divider's width from every finger notch.

Where a stack's bottom piece is smaller than its pocket (the ruler's last section has no
tab: stowing.stacks lays it lowest), the box fills the pocket around it, the pocket's
clearance left, up to just under its top: the pieces over it rest on it, and it cannot
slide along under them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union
from solid2 import difference, linear_extrude, polygon, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.layout import Layout
from squadron_cad.fit.tray import pocket_tray
from squadron_cad.fit.tray_lid import block_inset, tray_lid
from squadron_cad.geometry.outlines import rounded_rect_points
from squadron_cad.geometry.shapes import EPSILON_MM
from squadron_cad.params import TrayParams

CELL_MIN_MM = 3.0  # a lightening cell at least this wide (narrower: the block stays solid)
CELL_MIN_AREA_MM2 = 30.0
CORNER_STEPS = 12
CHANNEL_MM = 8.0  # the widest channel under a raised floor: its roof is a bridge this long
RIB_MM = 1.0  # between two channels (at least checks.min_wall_mm)
CHANNEL_MIN_MM = 2.0  # a raised floor's channels at least this tall (lower: left solid)
FILLER_DROP_MM = 0.1  # a pocket's filler stops this far under the piece it holds


def _notches(layout: Layout, tray: TrayParams) -> list[Polygon]:
    """Each finger notch's footprint, grown by a divider."""
    found = []
    for notch in layout.notches:
        x, y = notch.centre
        half = notch.length / 2 + tray.divider_mm
        across = notch.radius + tray.divider_mm
        dx, dy = (half, across) if notch.axis == "x" else (across, half)
        found.append(box(x - dx, y - dy, x + dx, y + dy))
    return found


def _polygons(shape: BaseGeometry) -> list[Polygon]:
    """The polygons of a shapely result (the builders stay off the meshing stack)."""
    if isinstance(shape, Polygon):
        return [shape]
    if isinstance(shape, MultiPolygon) or hasattr(shape, "geoms"):
        return [g for part in shape.geoms for g in _polygons(part)]
    return []


def _kept(region: Polygon, least: float) -> list[Polygon]:
    """The region without strips narrower than `least`, in pieces of some size."""
    opened = region.buffer(-least / 2, join_style=2).buffer(least / 2, join_style=2)
    return [g for g in _polygons(opened.intersection(region))
            if g.area >= CELL_MIN_AREA_MM2]  # fmt: skip


def cells(layout: Layout, tray: TrayParams) -> list[Polygon]:
    """The spare block's outline: inside the wall (and the lid's skirt), a divider away
    from every pocket and finger notch, without strips narrower than CELL_MIN_MM."""
    shape = layout.box
    inset = (shape.wall if tray.lid is None else block_inset(shape, tray.lid)) + tray.divider_mm
    radius = max(shape.radius - inset, 0.0)
    inside = Polygon(rounded_rect_points(shape.length - 2 * inset, shape.width - 2 * inset,
                                         radius, CORNER_STEPS))  # fmt: skip
    taken = [box(*pocket.bounds_2d).buffer(tray.divider_mm, join_style=2)
             for pocket in layout.pockets]  # fmt: skip
    return _kept(inside.difference(unary_union(taken + _notches(layout, tray))), CELL_MIN_MM)


def channels(layout: Layout, tray: TrayParams) -> list[tuple[Polygon, float]]:
    """Under each raised pocket floor: (channel outline, its top), channels along the
    pocket's longer side, as wide as the pocket's span allows in CHANNEL_MM or less."""
    found = []
    notches = unary_union(_notches(layout, tray))
    for pocket in layout.pockets:
        top = pocket.z_bottom - tray.floor_mm
        if top - layout.box.floor < CHANNEL_MIN_MM:
            continue
        x0, y0, x1, y1 = pocket.bounds_2d
        along_x = x1 - x0 >= y1 - y0
        span = (y1 - y0) if along_x else (x1 - x0)
        count = max(1, int(np.ceil((span + RIB_MM) / (CHANNEL_MM + RIB_MM))))
        width = (span - (count - 1) * RIB_MM) / count
        for k in range(count):
            start = k * (width + RIB_MM)
            outline = (box(x0, y0 + start, x1, y0 + start + width) if along_x
                       else box(x0 + start, y0, x0 + start + width, y1))  # fmt: skip
            found += [(piece, top) for piece in _kept(outline.difference(notches), RIB_MM)]
    return found


def _cut(outline: Polygon, bottom: float, top: float) -> OpenSCADObject:
    points = np.round(np.asarray(outline.exterior.coords)[:-1], 4).tolist()
    return translate([0, 0, bottom])(linear_extrude(height=top - bottom)(polygon(points)))


def fillers(layout: Layout, tray: TrayParams) -> list[tuple[Polygon, float, float]]:
    """(outline, bottom, top) of the block left in each pocket around its lowest pieces
    where they cover less than the pocket: the pocket less their footprints grown by the
    clearance, up to their top, clear of the finger notches."""
    found = []
    for pocket in layout.pockets:
        inside = [p for p in layout.placements if p.unit == pocket.name and not p.on_top]
        if not inside:
            continue
        low = min(p.bounds[0][2] for p in inside)
        lowest = [p for p in inside if p.bounds[0][2] < low + EPSILON_MM]
        held = [box(p.bounds[0][0], p.bounds[0][1], p.bounds[1][0], p.bounds[1][1])
                .buffer(tray.pocket_clearance_mm, join_style=2) for p in lowest]  # fmt: skip
        # Its top a little under theirs: what lies over them rests on them, not on it.
        top = max(p.bounds[1][2] for p in lowest) - FILLER_DROP_MM
        notches = [cut for notch, cut in zip(layout.notches, _notches(layout, tray), strict=True)
                   if notch.z_bottom < top]  # fmt: skip
        # Half a divider into the walls and half a floor down: no face of the filler on
        # one of the pocket's (coplanar faces leave slivers in the union).
        grown = box(*pocket.bounds_2d).buffer(tray.divider_mm / 2, join_style=2)
        spare = grown.difference(unary_union(held + notches))
        bottom = pocket.z_bottom - tray.floor_mm / 2
        found += [(g, bottom, top) for g in _kept(spare, CELL_MIN_MM)]
    return found


def lightened(layout: Layout, tray: TrayParams) -> OpenSCADObject:
    """The tray with its spare block cut away down to its floor, and its pockets filled
    around a smaller piece at the bottom of a stack (`fillers`)."""
    top = max(layout.insert_top, layout.box.height) + EPSILON_MM
    spare = [_cut(cell, layout.box.floor, top) for cell in cells(layout, tray)]
    spare += [_cut(outline, -EPSILON_MM, roof) for outline, roof in channels(layout, tray)]
    tray_solid = pocket_tray(layout, tray.lid)
    filled = [_cut(outline, low, high) for outline, low, high in fillers(layout, tray)]
    if filled:
        tray_solid = union()(tray_solid, *filled)
    return difference()(tray_solid, union()(*spare)) if spare else tray_solid


def build(design: Any) -> OpenSCADObject:
    return lightened(design.layout, design.params.box)


def build_lid(design: Any) -> OpenSCADObject:
    return tray_lid(design.layout.box, design.params.box.lid)


def build_ship_box(design: Any) -> OpenSCADObject:
    return lightened(design.ship_layout, design.params.box)


def build_ship_box_lid(design: Any) -> OpenSCADObject:
    return tray_lid(design.ship_layout.box, design.params.box.lid)

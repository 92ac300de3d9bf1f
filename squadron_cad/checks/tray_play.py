"""A tray box in play, its lid closed (any kit whose box is the engine's tray with a lid:
TrayParams.lid, fit.tray_lid), measured on the rendered meshes placed as the layout says.

- rattle: each stowed unit (what is stowed together moves together: a stack, a grid of
  pieces) is moved alone, up and along +x, -x, +y, -y, until it meets the box, the closed
  lid or a piece of another unit; each of its pieces is also slid alone, everything else
  in place (a piece loose on the others of its unit); so is the lid, on the box in its
  tin. Nothing may move more than the tray's max_rattle_mm any way.
- the lid: clear of the box; its lip's gap to the box's tongue in checks.lid_fit; and it
  stays on: its lip laps the tongue (measured: the tongue's top above the lip's bottom),
  more than the lid can rise under the tin's lid, so it cannot slide off.

Sideways, a unit is tried at heights across its own (a finger notch or a low divider
shows in the box's section there); a printed piece's footprint is its mesh's outline
seen from above (its convex hull), a bought piece's its declared bounds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import shapely
import trimesh
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from squadron_cad.checks import meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.fits import OVERLAP_EPS_MM3, fit_finding, overlap_finding, signed_gap
from squadron_cad.checks.travel import (
    COARSE_MM,
    DIRECTIONS,
    FINE_MM,
    REACH_MM,
    TOUCH_MM,
    Body,
    Travel,
    rattle_finding,
)
from squadron_cad.params import ChecksParams, TinParams, TrayParams

if TYPE_CHECKING:  # a layout is read, never made, here
    from squadron_cad.fit.layout import Layout, Placement

EDGE_MM = 0.05  # sections are taken this far inside a piece's heights (not on a face)
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)  # heights across a piece a slide is tried at
PROBE_MM = 0.1  # the tongue's top is found this far inside its outer face


@dataclass(eq=False)
class ClosedBox:
    """The box's and the closed lid's meshes in the box frame, sectioned on demand."""

    box: trimesh.Trimesh
    lid: trimesh.Trimesh | None
    _sections: dict[float, MultiPolygon] = field(default_factory=dict)

    def meshes(self) -> list[trimesh.Trimesh]:
        return [self.box] if self.lid is None else [self.box, self.lid]

    def section(self, z: float) -> MultiPolygon:
        key = round(z, 6)
        if key not in self._sections:
            parts = [meshgeo.section(mesh, key) for mesh in self.meshes()]
            self._sections[key] = meshgeo.as_multi(shapely.union_all(parts))
        return self._sections[key]

    def prepared_section(self, z: float) -> MultiPolygon:
        """The section, prepared for the many intersects() a slide asks of it."""
        return _prepared(self.section(z))


def closed_box(layout: Layout, meshes: Mapping[str, trimesh.Trimesh]) -> ClosedBox:
    lid = None
    if layout.lid_part is not None and layout.lid_part in meshes:
        lid = meshes[layout.lid_part].copy()
        lid.apply_transform(np.asarray(layout.lid_pose, dtype=float))
    return ClosedBox(meshes[layout.box_part], lid)


# ---- the pieces -----------------------------------------------------------------------------


def bodies(layout: Layout, meshes: Mapping[str, trimesh.Trimesh]) -> list[Body]:
    """The stowed pieces, their footprints prepared: slides ask intersects() of them."""
    own = {layout.box_part, layout.lid_part}
    found = [_body(p, meshes.get(p.part)) for p in layout.placements if p.part not in own]
    for body in found:
        shapely.prepare(body.footprint)
    return found


def _body(placed: Placement, mesh: trimesh.Trimesh | None) -> Body:
    if mesh is None:  # a bought piece: its declared bounds
        (x0, y0, z0), (x1, y1, z1) = placed.bounds
        return Body(placed.name, placed.unit, box(x0, y0, x1, y1), float(z0), float(z1))
    points = trimesh.transform_points(mesh.vertices, np.asarray(placed.transform, dtype=float))
    outline = shapely.MultiPoint(points[:, :2]).convex_hull
    low, high = points[:, 2].min(), points[:, 2].max()
    return Body(placed.name, placed.unit, outline, float(low), float(high))


# ---- moving ---------------------------------------------------------------------------------


def _heights(members: Iterable[Body]) -> list[float]:
    levels = set()
    for body in members:
        low, high = body.z_low + EDGE_MM, body.z_high - EDGE_MM
        levels |= {round(low + (high - low) * share, 4) for share in SHARES}
    return sorted(levels)


@dataclass(frozen=True)
class _Slice:
    """What moves and what it meets at one height, ready for the sweep's many trials."""

    moving: Polygon
    obstacles: tuple[BaseGeometry, ...]  # prepared: intersects() is asked at every step

    def blocked(self, shift: np.ndarray) -> bool:
        moved = shapely.transform(self.moving, lambda points: points + shift)
        return any(obstacle.intersects(moved) for obstacle in self.obstacles)


def _slices(
    closed: ClosedBox, members: list[Body], others: list[Body], heights: Iterable[float]
) -> list[_Slice]:
    """The obstacles are met one by one, not as one union: the box's section is the same
    for every unit at a height, and a union with each unit's neighbours cost more than
    the sweep (a kit of 16 units: 530 unions)."""
    slices = []
    for z in heights:
        here = [b.footprint for b in members if b.z_low < z < b.z_high]
        if not here:
            continue
        moving = shapely.union_all(here).buffer(-TOUCH_MM)
        around = [b.footprint for b in others if b.z_low < z < b.z_high]
        slices.append(_Slice(moving, (closed.prepared_section(z), *around)))
    return slices


def slide(slices: list[_Slice], way: tuple[float, float]) -> float:
    """How far the slices move together along `way` before one meets its obstacles."""
    d = np.asarray(way)

    def blocked(distance: float) -> bool:
        return any(s.blocked(d * distance) for s in slices)

    if not slices or blocked(FINE_MM):
        return 0.0
    free, step = FINE_MM, COARSE_MM
    while free < REACH_MM:
        if blocked(free + step):
            break
        free += step
    else:
        return REACH_MM
    low, high = free, free + step
    while high - low > FINE_MM:
        middle = (low + high) / 2
        low, high = (low, middle) if blocked(middle) else (middle, high)
    return low


def rise(closed: ClosedBox, body: Body, others: list[Body]) -> float:
    """Up to the lowest face over the piece: the lid's underside, the box, another piece."""
    area = body.inside
    ceiling = math.inf
    for mesh in closed.meshes():
        down = mesh.face_normals[:, 2] < -0.5
        triangles = mesh.triangles[down]
        above = triangles[:, :, 2].min(axis=1) >= body.z_high - 1e-3
        if above.any():
            hits = shapely.intersects(shapely.polygons(triangles[above][:, :, :2]), area)
            if hits.any():
                ceiling = min(ceiling, float(triangles[above][hits][:, :, 2].min()))
    for other in others:
        if other.z_low >= body.z_high - TOUCH_MM and other.footprint.intersects(area):
            ceiling = min(ceiling, other.z_low)
    return min(max(ceiling - body.z_high, 0.0), REACH_MM)


def unit_travels(
    layout: Layout, meshes: Mapping[str, trimesh.Trimesh], closed: ClosedBox | None = None
) -> list[Travel]:
    """Every stowed unit's free travel up and sideways in the closed box, in stowing order."""
    closed = closed or closed_box(layout, meshes)
    everything = bodies(layout, meshes)
    units: dict[str, list[Body]] = {}
    for body in everything:
        units.setdefault(body.unit, []).append(body)
    travels = []
    for unit, members in units.items():
        others = [b for b in everything if b.unit != unit]
        up = min(rise(closed, body, others) for body in members)
        slices = _slices(closed, members, others, _heights(members))
        sideways = {way: slide(slices, d) for way, d in DIRECTIONS.items()}
        if len(members) > 1:  # a piece loose on its unit (a small card on a big one)
            for body in members:
                rest = [b for b in everything if b is not body]
                alone = _slices(closed, [body], rest, _heights([body]))
                for way, d in DIRECTIONS.items():
                    sideways[way] = max(sideways[way], slide(alone, d))
        travels.append(Travel(unit, up, sideways))
    return travels


# ---- the lid --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LidMeasure:
    overlap_mm3: float
    gap_mm: float  # lip to tongue, per side, along the straight sides
    lap_mm: float  # the tongue's top above the lip's bottom
    lift_mm: float  # how far the lid can rise under the tin's lid (nan: no tin)
    slide: dict[str, float]  # how far the closed lid slides each way


def measure_lid(
    layout: Layout,
    meshes: Mapping[str, trimesh.Trimesh],
    tin: TinParams | None,
    closed: ClosedBox | None = None,
) -> LidMeasure:
    closed = closed or closed_box(layout, meshes)
    assert closed.lid is not None
    box_solid = meshgeo.solid_of(closed.box)
    lid_solid = meshgeo.solid_of(closed.lid)
    overlap = meshgeo.overlap_volume(box_solid, lid_solid)
    (x0, y0, lip_bottom), (x1, y1, top) = closed.lid.bounds
    lip_top = tongue_top(closed.box, float(lip_bottom))
    middle = (lip_bottom + lip_top) / 2
    # Along the straight sides: at the corners both outlines are facets.
    r = float(layout.box.radius)
    sides = box(x0 + r, -1e3, x1 - r, 1e3).union(box(-1e3, y0 + r, 1e3, y1 - r))
    lip, tongue = meshgeo.section(closed.lid, middle), meshgeo.section(closed.box, middle)
    gap = signed_gap(lip.intersection(sides), tongue.intersection(sides))
    ring = _Slice(lip.buffer(-TOUCH_MM), (_prepared(tongue),))
    moves = {way: slide([ring], d) for way, d in DIRECTIONS.items()}
    lift = math.nan if tin is None else tin.inner_depth_mm - float(top)
    return LidMeasure(overlap, gap, lip_top - float(lip_bottom), lift, moves)


def _prepared(shape: MultiPolygon) -> MultiPolygon:
    shapely.prepare(shape)
    return shape


def tongue_top(box_mesh: trimesh.Trimesh, lip_bottom: float) -> float:
    """The top of the box's tongue: the highest section that still holds a point just
    inside the tongue's outer face (found, on the +x side, just above the lip's bottom)."""
    start = lip_bottom + EDGE_MM
    ray = LineString([(0.0, 0.0), (1e4, 0.0)])
    reach = meshgeo.section(box_mesh, start).intersection(ray)
    if reach.is_empty:
        return lip_bottom
    probe = Point(reach.bounds[2] - PROBE_MM, 0.0)
    low, high = start, float(box_mesh.bounds[1][2]) + EDGE_MM
    if not meshgeo.section(box_mesh, low).contains(probe):
        return lip_bottom
    while high - low > FINE_MM:
        middle = (low + high) / 2
        inside = meshgeo.section(box_mesh, middle).contains(probe)
        low, high = (middle, high) if inside else (low, middle)
    return low


# ---- findings -------------------------------------------------------------------------------


def tray_findings(
    layout: Layout,
    meshes: Mapping[str, trimesh.Trimesh],
    tray: TrayParams,
    limits: ChecksParams,
    tin: TinParams | None,
    section: str = "box",
) -> list[Finding]:
    """The lid on the box, and every unit's travel in the closed box (nothing when the
    tray has no lid, or its box or lid was not built)."""
    lid, limit = tray.lid, tray.max_rattle_mm
    names = (layout.box_part, layout.lid_part)
    if lid is None or limit is None or layout.lid_part is None:
        return []
    if not all(name in meshes for name in names):
        return []
    pair = f"{layout.box_part}+{layout.lid_part}"
    closed = closed_box(layout, meshes)
    measured = measure_lid(layout, meshes, tin, closed)
    if measured.overlap_mm3 > OVERLAP_EPS_MM3:
        return [overlap_finding(pair, "lid_overlap", measured.overlap_mm3, "the lid and the box")]
    tol = limits.fit_tolerance_mm
    found = [
        fit_finding(pair, "lid_gap", measured.gap_mm, lid.clearance_mm, limits.lid_fit,
                    "lid_fit", tol),
        stays_on_finding(layout.lid_part, measured, lid.lip_mm, tol, f"{section}.lid.lip_mm"),
    ]  # fmt: skip
    lid_travel = Travel(layout.lid_part, measured.lift_mm, measured.slide)
    travels = [*unit_travels(layout, meshes, closed), lid_travel]
    key = f"{section}.max_rattle_mm"
    return found + [rattle_finding(travel, limit, key) for travel in travels]


def stays_on_finding(name: str, lid: LidMeasure, lip: float, tol: float, key: str) -> Finding:
    lift = 0.0 if math.isnan(lid.lift_mm) else lid.lift_mm
    worst_slide = max(lid.slide.values())
    ok = lid.lap_mm >= lip - tol and lid.lap_mm > lift and worst_slide < REACH_MM
    measured = (
        f"laps the tongue {lid.lap_mm:.2f} mm; rises {lift:.2f} mm under the tin's lid, "
        f"slides {worst_slide:.2f} mm"
    )
    message = "" if ok else f"the lid laps the box only {lid.lap_mm:.2f} mm: it can come off"
    expected = f"laps at least {lip - tol:g} mm ({key}), more than it can rise"
    return Finding(name, "lid_stays_on", measured, expected, verdict(ok), message)

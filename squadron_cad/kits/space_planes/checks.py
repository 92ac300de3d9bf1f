"""The kit's checks: every piece in its box pocket, and the rules' invariants, measured on
the meshes (the parameters give only what is expected).

- joker gauge: the card's edges; the slide distances (gauge edge minus the cube's side, both
  measured) and the notched end points; the pivot corner square and sharp; the long edge
  straight (the range line);
- cubeships: the side on every axis, faces flat and at 90 degrees, the edge radius, the
  panels' size, cut-off key corner and depth (top, bed and side faces);
- die holder: the clearance around the die, and how far the die stands proud;
(Every piece group in its box pocket is the engine's fit proof, run by the build for every
kit with a layout: checks.fits.stowed_findings.)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import trimesh
from shapely.geometry import LineString, Point, Polygon, box

from squadron_cad.checks import meshgeo
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.tray_play import tray_findings
from squadron_cad.components.invariants import invariant, unmeasured, valid_solids
from squadron_cad.errors import SquadronError
from squadron_cad.kits.space_planes.constants import GAUGE, HOLDER, MAX_SHIPS, cube_part

MOVE_TOL_MM = 0.1  # the issue: slide distances within 0.1 mm
SIDE_TOL_MM = 0.1  # cube side and flatness
ANGLE_TOL_DEG = 0.2  # faces at 90 degrees
DEPTH_TOL_MM = 0.05
CLEARANCE_TOL_MM = 0.05
AXES = np.eye(3)

Meshes = Mapping[str, trimesh.Trimesh]


def _polygons(shape: Any) -> list[Polygon]:
    return list(meshgeo.polygons(shape))


def _holes(shape: Any) -> list[Polygon]:
    return sorted(
        (Polygon(ring) for poly in _polygons(shape) for ring in poly.interiors),
        key=lambda hole: -hole.area,
    )


def _facet(mesh: trimesh.Trimesh, normal: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The largest planar face group facing `normal` (within 5 degrees): its unit normal and
    its vertices."""
    best = None
    for index, facet_normal in enumerate(mesh.facets_normal):
        if float(np.dot(facet_normal, normal)) > math.cos(math.radians(5)):
            area = float(mesh.facets_area[index])
            if best is None or area > best[0]:
                best = (area, index)
    if best is None:
        return None
    faces = mesh.facets[best[1]]
    return mesh.facets_normal[best[1]], mesh.vertices[np.unique(mesh.faces[faces])]


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.acos(float(np.clip(np.dot(a, b), -1.0, 1.0))))


def _cube_side_mm(meshes: Meshes) -> float | None:
    cube = next((meshes[cube_part(n)] for n in range(1, MAX_SHIPS + 1) if cube_part(n) in meshes),
                None)  # fmt: skip
    return None if cube is None else float(np.mean(cube.extents))


# ---- the joker gauge ----------------------------------------------------------------------


def notch_centres(section: Any, band: Polygon, along: int) -> list[float]:
    """Centres (x if along == 0, else y) of the notches cut into a fence: gaps in the band."""
    missing = band.difference(section)
    return sorted(g.centroid.coords[0][along] for g in _polygons(missing) if g.area > 0.05)


def gauge_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    if GAUGE not in meshes:
        return []
    p = design.params
    g, card = p.gauge, p.card
    mesh = meshes[GAUGE]
    (x0, y0, _), (x1, y1, _) = mesh.bounds
    length, width = x1 - x0, y1 - y0
    side = _cube_side_mm(meshes) or p.cube.side_mm
    out = [
        invariant("joker gauge: long edge (mm)", card.long_mm, length, MOVE_TOL_MM),
        invariant("joker gauge: short edge (mm)", card.short_mm, width, MOVE_TOL_MM),
        invariant("joker gauge: long move, gauge edge minus cube side (mm)",
                  p.long_move_mm, length - side, MOVE_TOL_MM),
        invariant("joker gauge: short move, gauge edge minus cube side (mm)",
                  p.short_move_mm, width - side, MOVE_TOL_MM),
    ]  # fmt: skip
    fences = meshgeo.section(mesh, g.fence_height_mm - g.mark_depth_mm / 2)
    inset = 0.3
    long_band = box(x0 + g.fence_width_mm, y0 + inset, x1, y0 + g.fence_width_mm - inset)
    short_band = box(x0 + inset, y0 + g.fence_width_mm, x0 + g.fence_width_mm - inset, y1)
    for name, band, along, start, edge in (
        ("long", long_band, 0, x0, card.long_mm),
        ("short", short_band, 1, y0, card.short_mm),
    ):
        marks = [c - start for c in notch_centres(fences, band, along)]
        expected = [p.cube.side_mm, edge - p.cube.side_mm]
        worst = (
            max(abs(a - b) for a, b in zip(marks, expected, strict=True))
            if len(marks) == 2
            else math.nan
        )
        out += [
            invariant(f"joker gauge: {name}-move end marks found", 2, len(marks), 0),
            invariant(f"joker gauge: {name}-move end marks off side and edge - side (mm)",
                      0, worst, MOVE_TOL_MM),
        ]  # fmt: skip
    plate = meshgeo.section(mesh, g.thickness_mm / 2)
    corner = Point(x0, y0).distance(plate)
    long_face, short_face = _facet(mesh, -AXES[1]), _facet(mesh, -AXES[0])
    square = math.nan
    straight = math.nan
    if long_face is not None and short_face is not None:
        square = _angle_deg(long_face[0], short_face[0])
        ys = long_face[1][:, 1]
        straight = float(ys.max() - ys.min())
    out += [
        invariant("joker gauge: pivot corner, gap from a sharp corner (mm)", 0, corner, 0.1),
        invariant("joker gauge: pivot corner angle (deg)", 90, square, ANGLE_TOL_DEG),
        invariant("joker gauge: long edge straight, the range line (mm off a line)",
                  0, straight, 0.05),
    ]  # fmt: skip
    return out


# ---- the cubeships ------------------------------------------------------------------------


def _chord(polygon: Any, start: tuple[float, float], end: tuple[float, float]) -> float:
    return float(polygon.intersection(LineString([start, end])).length)


def cube_measure(mesh: trimesh.Trimesh, depth: float, side_mm: float) -> dict[str, float]:
    """Side (the axis farthest from `side_mm`), squareness, flatness, edge radius and
    panels of one cube, as measured."""
    (x0, y0, z0), (x1, y1, z1) = mesh.bounds
    extents = mesh.extents
    faces = [_facet(mesh, sign * AXES[axis]) for axis in range(3) for sign in (1, -1)]
    angles, flat = [], []
    for a, b in itertools.combinations([f for f in faces if f is not None], 2):
        angle = _angle_deg(a[0], b[0])
        angles.append(abs(angle - 90) if angle < 135 else abs(180 - angle))
    for axis in range(3):
        for face in faces[2 * axis : 2 * axis + 2]:
            if face is not None:
                flat.append(float(np.ptp(face[1][:, axis])))
    middle = meshgeo.section(mesh, (z0 + z1) / 2)
    reach = [Point(x, y).distance(middle) for x in (x0, x1) for y in (y0, y1)]
    radius = max(reach) / (math.sqrt(2) - 1)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side_depths = [
        (extents[0] - _chord(middle, (x0 - 1, cy), (x1 + 1, cy))) / 2,
        (extents[1] - _chord(middle, (cx, y0 - 1), (cx, y1 + 1))) / 2,
    ]
    top_holes = _holes(meshgeo.section(mesh, z1 - depth / 2))
    bed_holes = _holes(meshgeo.section(mesh, z0 + depth / 2))
    out = {
        "side_worst": float(max(extents, key=lambda e: abs(e - side_mm))),
        "square_deg": max(angles) if len(angles) == 15 else math.nan,
        "flat_mm": max(flat) if len(flat) == 6 else math.nan,
        "radius_mm": radius,
        "side_panel_depth_mm": float(np.mean(side_depths)),
    }
    for name, holes, floor in (("top", top_holes, True), ("bed", bed_holes, False)):
        if not holes:
            out.update({f"{name}_panel_mm": math.nan, f"{name}_key_mm": math.nan,
                        f"{name}_depth_mm": math.nan})  # fmt: skip
            continue
        hole = holes[0]
        hx0, hy0, hx1, hy1 = hole.bounds
        size = max(hx1 - hx0, hy1 - hy0)
        key = math.sqrt(max(2 * ((hx1 - hx0) * (hy1 - hy0) - hole.area), 0.0))
        out[f"{name}_panel_mm"] = size
        out[f"{name}_key_mm"] = key
        out[f"{name}_depth_mm"] = _panel_depth(mesh, hole, floor)
    return out


def _panel_depth(mesh: trimesh.Trimesh, hole: Polygon, top: bool) -> float:
    """Depth of the panel's floor (top face) or ceiling (face on the bed) from its face."""
    normal_z = mesh.face_normals[:, 2]
    (_, _, z0), (_, _, z1) = mesh.bounds
    centres = mesh.triangles_center
    facing = normal_z > 0.999 if top else normal_z < -0.999
    inside = facing & np.array([hole.contains(Point(c[0], c[1])) for c in centres], dtype=bool)
    inside &= (centres[:, 2] < z1 - 0.01) if top else (centres[:, 2] > z0 + 0.01)
    if not inside.any():
        return math.nan
    z = centres[inside, 2]
    return float(z1 - z.max()) if top else float(z.min() - z0)


def cube_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    c = design.params.cube
    out: list[dict[str, Any]] = []
    for n in range(1, MAX_SHIPS + 1):
        name = cube_part(n)
        if name not in meshes:
            continue
        m = cube_measure(meshes[name], c.panel_depth_mm, c.side_mm)
        label = f"cubeship {n}"
        out += [
            invariant(f"{label}: side (mm), worst axis", c.side_mm, m["side_worst"], SIDE_TOL_MM),
            invariant(f"{label}: faces off 90 degrees (deg), worst pair", 0, m["square_deg"],
                      ANGLE_TOL_DEG),
            invariant(f"{label}: faces flat (mm), worst face", 0, m["flat_mm"], SIDE_TOL_MM),
            invariant(f"{label}: edge radius (mm)", c.corner_radius_mm, m["radius_mm"], 0.1),
            invariant(f"{label}: top panel side (mm)", c.panel_mm, m["top_panel_mm"], 0.1),
            invariant(f"{label}: top panel key corner (mm)", c.key_mm, m["top_key_mm"], 0.2),
            invariant(f"{label}: top panel depth (mm)", c.panel_depth_mm, m["top_depth_mm"],
                      DEPTH_TOL_MM),
            invariant(f"{label}: bed panel side (mm)", c.panel_mm, m["bed_panel_mm"], 0.1),
            invariant(f"{label}: bed panel depth (mm)", c.panel_depth_mm, m["bed_depth_mm"],
                      DEPTH_TOL_MM),
            invariant(f"{label}: side panels depth (mm), mean of 4", c.panel_depth_mm,
                      m["side_panel_depth_mm"], DEPTH_TOL_MM),
        ]  # fmt: skip
    return out


# ---- the die holder -----------------------------------------------------------------------


def holder_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    if HOLDER not in meshes:
        return []
    h = design.params.holder
    mesh = meshes[HOLDER]
    top = float(mesh.bounds[1][2])
    holes = _holes(meshgeo.section(mesh, top - h.rim_height_mm / 2))
    if holes:
        hx0, hy0, hx1, hy1 = holes[0].bounds
        gap = (min(hx1 - hx0, hy1 - hy0) - h.die_size_mm) / 2
        floor = top - _panel_depth(mesh, holes[0], True)
    else:
        gap, floor = math.nan, math.nan
    return [
        invariant("die holder: clearance around the die, per side (mm)", h.clearance_mm, gap,
                  CLEARANCE_TOL_MM),
        invariant("die holder: the die stands proud of the rim (mm)",
                  h.die_size_mm - h.rim_height_mm, h.die_size_mm - (top - floor), 0.05),
    ]  # fmt: skip


# ---- the box ------------------------------------------------------------------------------


def clearance_findings(design: Any, meshes: Meshes) -> list[Finding]:
    """The box in play, lid closed: the lid on the box and nothing rattling (the engine's
    tray checks, checks.tray_play)."""
    p = design.params
    try:
        layout = design.layout
    except SquadronError:  # a tin too small: the build reported it already
        return []
    return tray_findings(layout, valid_solids(meshes), p.box, p.checks, p.tin)


def invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    valid = valid_solids(meshes)
    return (
        unmeasured(meshes)
        + gauge_invariants(design, valid)
        + cube_invariants(design, valid)
        + holder_invariants(design, valid)
    )

"""The kit's checks: every piece in its box pocket, and the rules' invariants, measured on
the meshes (the parameters give only what is expected).

- joker gauge: the card's edges; the slide distances (gauge edge minus the cube's side, both
  measured) and the notched end points; the pivot corner square and sharp; the long edge
  straight (the range line);
- cubeships: the side on every axis, faces flat and at 90 degrees, the edge radius; each
  face's footprint recess: its side against the face's (top, bed and side faces), its
  depth, and its key: where it stands in the key corner and how far the footprint's
  cut-off corner clears it;
- die holder: the clearance around the die, and how far the die stands proud;
- the box in play (clearance_findings): the engine's tray checks (checks.tray_play), lid
  closed: the lid's gap, lap and hold, and no piece rising or sliding over box.max_rattle_mm.
(Every piece group in its box pocket is the engine's fit proof, run by the build for every
kit with a layout: checks.fits.stowed_findings.)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely
import trimesh
from shapely.geometry import LineString, Point, Polygon, box

from squadron_cad.checks import meshgeo
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.tray_play import tray_findings
from squadron_cad.components.invariants import invariant, unmeasured, valid_solids
from squadron_cad.errors import SquadronError
from squadron_cad.kits.space_planes.constants import CUBE, GAUGE, HOLDER
from squadron_cad.kits.space_planes.params import PAPER_GAP_MM
from squadron_cad.kits.space_planes.parts.cubeship import footprint_points

MOVE_TOL_MM = 0.1  # the issue: slide distances within 0.1 mm
SIDE_TOL_MM = 0.1  # cube side and flatness
ANGLE_TOL_DEG = 0.2  # faces at 90 degrees
DEPTH_TOL_MM = 0.05
RECESS_TOL_MM = 0.1  # a recess's side
KEY_TOL_MM = 0.1  # where a key stands (its outline is facets)
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
    return float(np.mean(meshes[CUBE].extents)) if CUBE in meshes else None


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


def cube_measure(mesh: trimesh.Trimesh, c: Any) -> dict[str, float]:
    """Side (the axis farthest from the nominal side), squareness, flatness, edge radius,
    and the footprint recesses and their keys of one cube, as measured."""
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
    out = {
        "side_worst": float(max(extents, key=lambda e: abs(e - c.side_mm))),
        "square_deg": max(angles) if len(angles) == 15 else math.nan,
        "flat_mm": max(flat) if len(flat) == 6 else math.nan,
        "radius_mm": max(reach) / (math.sqrt(2) - 1),
        **_side_recesses(middle, mesh.bounds, c.recess_depth_mm),
    }
    depth = c.recess_depth_mm
    for name, z, top in (("top", z1 - depth / 2, True), ("bed", z0 + depth / 2, False)):
        out.update(_face_recess(mesh, meshgeo.section(mesh, z), name, top, c))
    return out


def _side_recesses(middle: Any, bounds: np.ndarray, depth: float) -> dict[str, float]:
    """The four side faces' recesses at mid-height: depth (from the chords through the
    middle) and width (the gap between the rims, along a line inside the recess)."""
    (x0, y0, _), (x1, y1, _) = bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    extents = (x1 - x0, y1 - y0)
    depths = [
        (extents[0] - _chord(middle, (x0 - 1, cy), (x1 + 1, cy))) / 2,
        (extents[1] - _chord(middle, (cx, y0 - 1), (cx, y1 + 1))) / 2,
    ]
    half = depth / 2
    lines = [
        ((x1 - half, y0 - 1), (x1 - half, y1 + 1)),
        ((x0 + half, y0 - 1), (x0 + half, y1 + 1)),
        ((x0 - 1, y1 - half), (x1 + 1, y1 - half)),
        ((x0 - 1, y0 + half), (x1 + 1, y0 + half)),
    ]
    widths = [_gap_along(middle, start, end) for start, end in lines]
    return {"side_depth_mm": float(np.mean(depths)), "side_width_mm": float(np.mean(widths))}


def _gap_along(section: Any, start: tuple[float, float], end: tuple[float, float]) -> float:
    """The longest stretch of a line outside the section, between two stretches inside it."""
    line = LineString([start, end])
    parts = shapely.get_parts(section.intersection(line))
    spans = sorted(
        sorted((line.project(Point(part.coords[0])), line.project(Point(part.coords[-1]))))
        for part in parts
        if part.length > 0
    )
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(spans)]
    return max(gaps, default=math.nan)


def _face_recess(
    mesh: trimesh.Trimesh, section: Any, name: str, top: bool, c: Any
) -> dict[str, float]:
    """A top or bed recess: its side, depth and key, in the section through it."""
    holes = _holes(section)
    if not holes:
        return {f"{name}_{key}": math.nan for key in ("side_mm", "depth_mm", "key_x_mm",
                                                      "key_y_mm", "key_clear_mm")}  # fmt: skip
    hole = holes[0]
    hx0, hy0, hx1, hy1 = hole.bounds
    keys = [g for g in _polygons(section) if hole.contains(g.representative_point())]
    key_x = key_y = clear = math.nan
    if keys:
        key = max(keys, key=lambda g: g.area)
        # the key corner: +x +y on the top face; on the bed face (seen from below) too
        key_x, key_y = hx1 - key.centroid.x, hy1 - key.centroid.y
        cut = footprint_points(c.footprint_mm, c.key_cut_mm)
        centre = ((hx0 + hx1) / 2, (hy0 + hy1) / 2)
        paper = Polygon([(centre[0] + u, centre[1] + v) for u, v in cut])
        clear = float(paper.distance(key))
    return {
        f"{name}_side_mm": float(max(hx1 - hx0, hy1 - hy0)),
        f"{name}_depth_mm": _recess_depth(mesh, hole, top),
        f"{name}_key_x_mm": float(key_x),
        f"{name}_key_y_mm": float(key_y),
        f"{name}_key_clear_mm": clear,
    }


def _recess_depth(mesh: trimesh.Trimesh, hole: Polygon, top: bool) -> float:
    """Depth of a recess's floor (top face) or ceiling (face on the bed) from its face; the
    key standing in it reaches the face and is left out."""
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
    """The representative cubeship (player 1's: every player's differs by its mark only)."""
    c = design.params.cube
    if CUBE not in meshes:
        return []
    m = cube_measure(meshes[CUBE], c)
    share = c.footprint_mm / c.side_mm
    out = [
        invariant("cubeship: side (mm), worst axis", c.side_mm, m["side_worst"], SIDE_TOL_MM),
        invariant("cubeship: faces off 90 degrees (deg), worst pair", 0, m["square_deg"],
                  ANGLE_TOL_DEG),
        invariant("cubeship: faces flat (mm), worst face", 0, m["flat_mm"], SIDE_TOL_MM),
        invariant("cubeship: edge radius (mm)", c.corner_radius_mm, m["radius_mm"], 0.1),
        invariant("cubeship: top recess covers the face, side over the cube's side", share,
                  m["top_side_mm"] / c.side_mm, RECESS_TOL_MM / c.side_mm),
        invariant("cubeship: side recesses width (mm), mean of 4", c.footprint_mm,
                  m["side_width_mm"], RECESS_TOL_MM),
        invariant("cubeship: side recesses depth (mm), mean of 4", c.recess_depth_mm,
                  m["side_depth_mm"], DEPTH_TOL_MM),
    ]  # fmt: skip
    for face in ("top", "bed"):
        what = "mark" if face == "top" else "key"
        out += [
            invariant(f"cubeship: {face} recess side (mm)", c.footprint_mm,
                      m[f"{face}_side_mm"], RECESS_TOL_MM),
            invariant(f"cubeship: {face} recess depth (mm)", c.recess_depth_mm,
                      m[f"{face}_depth_mm"], DEPTH_TOL_MM),
            invariant(f"cubeship: {face} {what} from the key corner's x wall (mm)",
                      c.key_centre_mm, m[f"{face}_key_x_mm"], KEY_TOL_MM),
            invariant(f"cubeship: {face} {what} from the key corner's y wall (mm)",
                      c.key_centre_mm, m[f"{face}_key_y_mm"], KEY_TOL_MM),
            invariant(f"cubeship: {face} {what} clear of the footprint's cut corner (mm)",
                      PAPER_GAP_MM, m[f"{face}_key_clear_mm"], KEY_TOL_MM),
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
        floor = top - _recess_depth(mesh, holes[0], True)
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

"""Geometry the checks share: horizontal sections, manifold solids, placed copies, sampling.

Everything here works on meshes as rendered (mm, print orientation), never on a part's
builder: the checks measure what will be printed.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterable, Iterator

import manifold3d
import numpy as np
import shapely
import trimesh
from scipy.spatial import cKDTree
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

Matrix = np.ndarray  # 4 x 4 homogeneous transform

MAX_SAMPLES = 4000  # points per region when measuring widths: enough for 0.05 mm steps


def section(mesh: trimesh.Trimesh | manifold3d.Manifold, z: float) -> MultiPolygon:
    """The solid's cross-section at height z, in its own x, y (empty if none)."""
    solid = mesh if isinstance(mesh, manifold3d.Manifold) else solid_of(mesh)
    if not is_valid_solid(solid) and isinstance(mesh, trimesh.Trimesh):
        return _trimesh_section(mesh, z)  # an open or broken mesh: slice what is there
    return nest_rings([ring for ring in solid.slice(z).to_polygons() if len(ring) >= 3])


def signed_area(ring: np.ndarray) -> float:
    """The shoelace formula over the closed ring (dot products: np.roll's copies cost more
    than the sum itself on a section's few-point rings)."""
    x, y = ring[:, 0], ring[:, 1]
    closing = x[-1] * y[0] - x[0] * y[-1]
    return 0.5 * float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]) + closing)


def nest_rings(rings: list[np.ndarray]) -> MultiPolygon:
    """Outlines (counter-clockwise) and holes (clockwise) as polygons: each hole goes to the
    smallest larger outline around it, so an island inside a hole stays an island."""
    areas = [signed_area(ring) for ring in rings]
    found = (Polygon(ring) for ring, area in zip(rings, areas, strict=True) if area > 0)
    outlines = sorted(found, key=lambda p: p.area)
    holes: list[list[np.ndarray]] = [[] for _ in outlines]
    for ring, area in zip(rings, areas, strict=True):
        if area >= 0:
            continue
        hole = Polygon(ring)
        inside = hole.representative_point()
        for index, outline in enumerate(outlines):
            if outline.area > hole.area and outline.contains(inside):
                holes[index].append(ring)
                break
    shapes = [Polygon(o.exterior.coords, h).buffer(0) for o, h in zip(outlines, holes, strict=True)]
    return as_multi(shapely.union_all(shapes)) if shapes else MultiPolygon()


def _trimesh_section(mesh: trimesh.Trimesh, z: float) -> MultiPolygon:
    cut = mesh.section(plane_origin=[0.0, 0.0, z], plane_normal=[0.0, 0.0, 1.0])
    if cut is None:
        return MultiPolygon()
    planar, _ = cut.to_2D(to_2D=np.eye(4))  # identity keeps world x, y
    return as_multi(shapely.union_all([p.buffer(0) for p in planar.polygons_full]))


def as_multi(geometry: BaseGeometry) -> MultiPolygon:
    """Any areal geometry as a MultiPolygon, dropping lines and points."""
    return MultiPolygon(list(polygons(geometry)))


def polygons(geometry: BaseGeometry) -> Iterator[Polygon]:
    if isinstance(geometry, Polygon):
        if not geometry.is_empty:
            yield geometry
        return
    for part in getattr(geometry, "geoms", ()):
        yield from polygons(part)


def z_levels(mesh: trimesh.Trimesh, *, min_slab: float = 0.02, step: float = 1.0) -> list[float]:
    """Heights to section at: the middle of every slab between vertex heights, and more
    in a tall slab that sloped faces cross (there the section changes with height)."""
    heights = np.unique(np.round(mesh.vertices[:, 2], 4))
    sloped = np.abs(mesh.face_normals[:, 2])
    sloped = (sloped > 1e-3) & (sloped < 0.999)
    z = mesh.triangles[sloped][:, :, 2]
    low_z, high_z = (z.min(axis=1), z.max(axis=1)) if len(z) else (np.empty(0), np.empty(0))
    levels: list[float] = []
    for low, high in itertools.pairwise(heights):
        if high - low < min_slab:
            continue
        crossed = bool(np.any((low_z < high - 1e-6) & (high_z > low + 1e-6)))
        count = max(1, int((high - low) / step)) if crossed else 1
        levels += [float(low + (high - low) * (i + 0.5) / count) for i in range(count)]
    return levels


def grid_axes(
    region: Polygon, step: float, limit: int = MAX_SAMPLES
) -> tuple[np.ndarray, np.ndarray, float]:
    """The x and y values of grid_points' grid, and its step."""
    minx, miny, maxx, maxy = region.bounds
    step = max(step, float(np.sqrt(max(region.area, 1e-9) / limit)))
    return np.arange(minx, maxx, step), np.arange(miny, maxy, step), step


def grid_points(region: Polygon, step: float, limit: int = MAX_SAMPLES) -> np.ndarray:
    """Points inside a region on a square grid, plus its outline's vertices (N x 2)."""
    axis_x, axis_y, grid_step = grid_axes(region, step, limit)
    grid_x, grid_y = np.meshgrid(axis_x, axis_y)
    xs, ys = grid_x.ravel(), grid_y.ravel()
    inside = shapely.contains_xy(region, xs, ys)
    # The outline too, densely: a farthest point often lies on a free edge.
    outline = shapely.get_coordinates(shapely.segmentize(region.exterior, grid_step / 2))
    return np.vstack([np.column_stack([xs[inside], ys[inside]]), outline])


def one_grid_point(region: Polygon, step: float, limit: int = MAX_SAMPLES) -> np.ndarray | None:
    """The grid point of grid_points nearest the region's pole of inaccessibility (its
    farthest point from the outline), if it lies inside: one of the points grid_points
    returns, so the farthest distance over them is at least this one's. None when there
    is no such point, or no pole (an invalid region)."""
    axis_x, axis_y, grid_step = grid_axes(region, step, limit)
    if len(axis_x) == 0 or len(axis_y) == 0:
        return None
    try:
        middle = polylabel(region, tolerance=step)
    except (shapely.errors.GEOSException, shapely.errors.TopologicalError):
        return None  # an invalid region: measured at every point instead
    column = min(max(round((middle.x - axis_x[0]) / grid_step), 0), len(axis_x) - 1)
    row = min(max(round((middle.y - axis_y[0]) / grid_step), 0), len(axis_y) - 1)
    point = np.array([axis_x[column], axis_y[row]])
    return point if shapely.contains_xy(region, point[0], point[1]) else None


def farthest_distance(points: np.ndarray, target: BaseGeometry, step: float = 0.02) -> float:
    """The largest distance from any of the points to the target's lines or outline.

    The target is sampled every `step` mm and searched with a k-d tree: exact to step / 2,
    and fast where shapely would measure every point against every segment.
    """
    if len(points) == 0 or target.is_empty:
        return 0.0
    lines = target if target.geom_type in ("LineString", "MultiLineString") else target.boundary
    dense = shapely.get_coordinates(shapely.segmentize(lines, step))
    distances, _ = cKDTree(dense).query(points)
    return float(np.max(distances))


# ---- solids -----------------------------------------------------------------------------


_SOLIDS: weakref.WeakKeyDictionary[trimesh.Trimesh, manifold3d.Manifold] = (
    weakref.WeakKeyDictionary()
)


def solid_of(mesh: trimesh.Trimesh) -> manifold3d.Manifold:
    """The mesh as a manifold solid, converted once per mesh object."""
    solid = _SOLIDS.get(mesh)
    if solid is None:
        solid = _SOLIDS[mesh] = to_manifold(mesh)
    return solid


def to_manifold(mesh: trimesh.Trimesh) -> manifold3d.Manifold:
    """An exact solid for booleans; the mesh must be closed (mesh.py checks that first)."""
    return manifold3d.Manifold(
        manifold3d.Mesh(
            vert_properties=np.asarray(mesh.vertices, dtype=np.float32),
            tri_verts=np.asarray(mesh.faces, dtype=np.uint32),
        )
    )


def to_trimesh(solid: manifold3d.Manifold) -> trimesh.Trimesh:
    """A manifold solid as a trimesh (tests build their defective parts this way)."""
    mesh = solid.to_mesh()
    return trimesh.Trimesh(
        vertices=np.asarray(mesh.vert_properties)[:, :3], faces=np.asarray(mesh.tri_verts)
    )


def is_valid_solid(solid: manifold3d.Manifold) -> bool:
    return solid.status() == manifold3d.Error.NoError and not solid.is_empty()


def placed(solid: manifold3d.Manifold, matrix: Matrix) -> manifold3d.Manifold:
    """The solid moved by a 4 x 4 rigid transform."""
    return solid.transform(np.asarray(matrix, dtype=float)[:3, :4])


def overlap_volume(a: manifold3d.Manifold, b: manifold3d.Manifold) -> float:
    return float((a ^ b).volume())


def overlap(a: manifold3d.Manifold, b: manifold3d.Manifold) -> manifold3d.Manifold:
    return a ^ b


def bounds_of(solid: manifold3d.Manifold) -> tuple[np.ndarray, np.ndarray]:
    box = solid.bounding_box()
    return np.asarray(box[:3], dtype=float), np.asarray(box[3:], dtype=float)


def slab(solid: manifold3d.Manifold, z_low: float, z_high: float) -> manifold3d.Manifold:
    """The part of a solid between two heights."""
    low, high = bounds_of(solid)
    size = high - low + 2.0
    cutter = manifold3d.Manifold.cube([size[0], size[1], z_high - z_low]).translate(
        [low[0] - 1.0, low[1] - 1.0, z_low]
    )
    return solid ^ cutter


def top_face_z(mesh: trimesh.Trimesh) -> float:
    """Height of the largest upward flat area: a token's top, the face marks are cut into."""
    up = mesh.face_normals[:, 2] > 0.999
    if not up.any():
        return float(mesh.bounds[1][2])
    z = np.round(mesh.triangles_center[up, 2], 3)
    heights, index = np.unique(z, return_inverse=True)
    areas = np.bincount(index, weights=mesh.area_faces[up])
    return float(heights[int(np.argmax(areas))])


def circular_mean_deg(angles: Iterable[float], weights: Iterable[float] | None = None) -> float:
    values = np.radians(np.asarray(list(angles), dtype=float))
    w = np.ones_like(values) if weights is None else np.asarray(list(weights), dtype=float)
    return float(np.degrees(np.arctan2((w * np.sin(values)).sum(), (w * np.cos(values)).sum())))


def wrap_deg(angle: float) -> float:
    """An angle in (-180, 180]."""
    wrapped = (angle + 180.0) % 360.0 - 180.0
    return 180.0 if wrapped == -180.0 else wrapped

"""Printability of one part, measured on its mesh in print orientation.

- overhangs: downward faces steeper than the limit, off the bed, in regions big enough to
  sag (tiny chamfers and facet slivers are ignored below an area threshold);
- bridges: horizontal ceilings off the bed; the span is twice the farthest any point of
  the ceiling lies from an edge that has material under it, so a roof held all round
  spans its width and a strip held at both ends spans its length;
- thin walls: sections at every slab of the mesh, opened by the minimum wall (narrow: a
  wall thinner than that disappears); sharp corners are not walls, so a lost sliver
  counts only when it is at least one minimum wall long;
- engraved text (engraved_text): depth, stroke and letter height from the parameters and
  from the mesh; the land between strokes and letters and the islands inside letters;
- orientation: text engraved on the top face, a large flat face on the bed.

Every limit comes from `params.checks` (sources in constants.NORMS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
import trimesh
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from shapely.geometry import MultiLineString, Polygon

from squadron_cad.checks import engraved_text, meshgeo, narrow
from squadron_cad.checks.findings import Finding, Severity, verdict
from squadron_cad.checks.mesh import bed_contact_area
from squadron_cad.kit import Part
from squadron_cad.params import ChecksParams, KitParamsBase

BED_EPS_MM = 1e-3
HORIZONTAL_DEG = 89.5  # steeper than this a downward face is a ceiling: the bridge check's
ANGLE_SLACK_DEG = 0.5  # 45 degree chamfers are modelled at exactly the limit
SIDE_FACE_RATIO = 0.5  # bed contact below this share of the largest flat face: on its side?


@dataclass(frozen=True)
class PartInfo:
    """What the checks know of a part besides its mesh (its kit's Part and PrintNotes)."""

    name: str
    orientation: str = ""
    text_height_mm: float | None = None  # parts that carry engraved text
    engraving_depth_mm: float = 0.0  # deepest mark cut into the top (or bottom) face
    engraved_below_mm: float = 0.0  # marks cut into the bed face too (grooves, detents)
    text_on_bed: bool = False  # the text is cut into the bed face (a lid read turned over)
    text_spacing_waived: str = ""  # why text_gap / text_counter only warn for now


@dataclass(frozen=True)
class Region:
    area_mm2: float
    z_low: float
    z_high: float
    angle_deg: float
    faces: np.ndarray


# ---- overhangs and bridges -----------------------------------------------------------------


def _angle_from_vertical(mesh: trimesh.Trimesh) -> np.ndarray:
    return np.degrees(np.arcsin(np.clip(-mesh.face_normals[:, 2], -1.0, 1.0)))


def _off_bed(mesh: trimesh.Trimesh) -> np.ndarray:
    z_min = mesh.bounds[0][2]
    return ~np.all(mesh.triangles[:, :, 2] < z_min + BED_EPS_MM, axis=1)


def _regions(mesh: trimesh.Trimesh, mask: np.ndarray, angles: np.ndarray) -> list[Region]:
    """Connected groups of the selected faces (sharing an edge)."""
    chosen = np.nonzero(mask)[0]
    if len(chosen) == 0:
        return []
    pairs = mesh.face_adjacency
    position = np.zeros(len(mask), dtype=np.int64)
    position[chosen] = np.arange(len(chosen))
    edges = position[pairs[mask[pairs[:, 0]] & mask[pairs[:, 1]]]]
    size = len(chosen)
    graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(size, size))
    _, labels = connected_components(graph, directed=False)
    order = np.argsort(labels, kind="stable")  # each group's faces in ascending order
    groups = np.split(chosen[order], np.flatnonzero(np.diff(labels[order])) + 1)
    regions = []
    for faces in groups:
        z = mesh.triangles[faces][:, :, 2]
        regions.append(
            Region(
                float(mesh.area_faces[faces].sum()),
                float(z.min()),
                float(z.max()),
                float(angles[faces].max()),
                faces,
            )
        )
    return sorted(regions, key=lambda r: (-r.area_mm2, int(r.faces[0])))


def overhang_regions(mesh: trimesh.Trimesh, limit_deg: float) -> list[Region]:
    """Sloped downward faces steeper than the limit, off the bed (ceilings excluded)."""
    angles = _angle_from_vertical(mesh)
    mask = (angles > limit_deg + ANGLE_SLACK_DEG) & (angles <= HORIZONTAL_DEG) & _off_bed(mesh)
    return _regions(mesh, mask, angles)


def overhang_finding(part: str, mesh: trimesh.Trimesh, limits: ChecksParams) -> Finding:
    regions = overhang_regions(mesh, limits.overhang_limit_deg)
    big = [r for r in regions if r.area_mm2 >= limits.overhang_min_area_mm2]
    expected = (
        f"no region of {limits.overhang_min_area_mm2:g} mm2 or more steeper than "
        f"{limits.overhang_limit_deg:g} deg from vertical"
    )
    if not big:
        ignored = sum(r.area_mm2 for r in regions)
        measured = "none" if not regions else f"only tiny patches ({ignored:.2f} mm2 in all)"
        return Finding(part, "overhangs", measured, expected, "ok")
    worst = big[0]
    total = sum(r.area_mm2 for r in big)
    measured = (
        f"{total:.1f} mm2 in {len(big)} region(s); largest {worst.area_mm2:.1f} mm2 at "
        f"z {worst.z_low:.2f}-{worst.z_high:.2f}, up to {worst.angle_deg:.0f} deg"
    )
    message = f"{measured}: needs support (checks.overhang_limit_deg {limits.overhang_limit_deg:g})"
    return Finding(part, "overhangs", measured, expected, "error", message)


def _edge_neighbours(mesh: trimesh.Trimesh, faces: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Boundary edges of a face group with the face across each one (outside the group)."""
    inside = np.zeros(len(mesh.faces), dtype=bool)
    inside[faces] = True
    pairs = mesh.face_adjacency
    crossing = inside[pairs[:, 0]] != inside[pairs[:, 1]]
    result = []
    for (a, b), edge in zip(pairs[crossing], mesh.face_adjacency_edges[crossing], strict=True):
        result.append((edge, int(b if inside[a] else a)))
    return result


def _supported(mesh: trimesh.Trimesh, edge: np.ndarray, face: int) -> bool:
    """Material goes down from this edge: the face across it has a vertex below the edge."""
    edge_z = mesh.vertices[edge, 2].max()
    return bool(mesh.vertices[mesh.faces[face], 2].min() < edge_z - BED_EPS_MM)


def ceilings(mesh: trimesh.Trimesh) -> list[Region]:
    """Horizontal downward faces off the bed, in connected groups."""
    angles = _angle_from_vertical(mesh)
    return _regions(mesh, (angles > HORIZONTAL_DEG) & _off_bed(mesh), angles)


def bridge_span(mesh: trimesh.Trimesh, region: Region) -> float:
    """Twice the farthest distance of the ceiling from a supported edge (inf: none)."""
    anchors = [
        mesh.vertices[edge][:, :2]
        for edge, face in _edge_neighbours(mesh, region.faces)
        if _supported(mesh, edge, face)
    ]
    if not anchors:
        return math.inf
    ceiling = shapely.union_all(
        [Polygon(tri[:, :2]).buffer(1e-6) for tri in mesh.triangles[region.faces]]
    )
    lines = MultiLineString([a.tolist() for a in anchors])
    points = np.vstack([meshgeo.grid_points(p, 0.1, 1500) for p in meshgeo.polygons(ceiling)])
    return 2 * meshgeo.farthest_distance(points, lines, 0.05)


def bridge_finding(part: str, mesh: trimesh.Trimesh, limits: ChecksParams) -> Finding:
    # Specks under overhang_min_area_mm2 (where two cuts meet) are spanned by a line or two.
    found = [r for r in ceilings(mesh) if r.area_mm2 >= limits.overhang_min_area_mm2]
    expected = f"every ceiling off the bed spans at most {limits.max_bridge_mm:g} mm"
    if not found:
        return Finding(part, "bridges", "no ceilings off the bed", expected, "ok")
    spans = [(bridge_span(mesh, region), region) for region in found]
    span, region = max(spans, key=lambda item: item[0])
    where = f"at z {region.z_low:.2f} ({region.area_mm2:.1f} mm2)"
    measured = f"longest span {'unsupported' if math.isinf(span) else f'{span:.1f} mm'} {where}"
    ok = span <= limits.max_bridge_mm
    message = (
        ""
        if ok
        else (
            f"a ceiling {where} spans {span:.1f} mm, more than checks.max_bridge_mm "
            f"({limits.max_bridge_mm:g}): it will sag"
            if not math.isinf(span)
            else f"a ceiling {where} has no support under any edge: it needs support"
        )
    )
    return Finding(part, "bridges", measured, expected, verdict(ok), message)


# ---- thin walls ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ThinSpot:
    width_mm: float
    length_mm: float
    z: float
    x: float
    y: float
    cosmetic: bool


def _cosmetic(z: float, top: float, info: PartInfo) -> bool:
    """Beside a mark cut into a face: a thin sliver there is cosmetic, not structural."""
    near_top = info.engraving_depth_mm > 0 and (
        top - info.engraving_depth_mm - narrow.EROSION_SLACK_MM <= z <= top + BED_EPS_MM
    )
    near_bed = info.engraved_below_mm > 0 and z <= info.engraved_below_mm + narrow.EROSION_SLACK_MM
    return near_top or near_bed


def find_thin_spots(mesh: trimesh.Trimesh, wall: float, info: PartInfo) -> list[ThinSpot]:
    top = meshgeo.top_face_z(mesh)
    found = []
    for z in meshgeo.z_levels(mesh):
        for width, length, region in narrow.thin_spots(meshgeo.section(mesh, z), wall):
            point = region.representative_point()
            found.append(ThinSpot(width, length, z, point.x, point.y, _cosmetic(z, top, info)))
    return sorted(found, key=lambda s: s.width_mm)


def thin_wall_finding(
    part: str, mesh: trimesh.Trimesh, limits: ChecksParams, info: PartInfo
) -> Finding:
    wall = limits.min_wall_mm
    spots = find_thin_spots(mesh, wall, info)
    expected = f"walls at least {wall:g} mm (checks.min_wall_mm)"
    if not spots:
        return Finding(part, "thin_walls", "none thinner than the minimum", expected, "ok")
    structural = [s for s in spots if not s.cosmetic]
    worst = (structural or spots)[0]
    where = f"at ({worst.x:.1f}, {worst.y:.1f}), z {worst.z:.2f}"
    measured = f"{worst.width_mm:.2f} mm wide, {worst.length_mm:.1f} mm long {where}"
    if structural:
        message = (
            f"a wall {worst.width_mm:.2f} mm thin {where} ({len(structural)} spot(s)): "
            f"under checks.min_wall_mm {wall:g}, the slicer prints it weak or not at all"
        )
        return Finding(part, "thin_walls", measured, expected, "error", message)
    # Slivers beside engraved marks only blur the mark's edge: recorded, not a warning.
    message = f"{len(spots)} thin sliver(s) beside engraved marks, thinnest {measured}: cosmetic"
    return Finding(part, "thin_walls", measured, expected, "cosmetic", message)


# ---- engraved text ------------------------------------------------------------------------


# ---- orientation --------------------------------------------------------------------------


def largest_flat_face(mesh: trimesh.Trimesh) -> tuple[float, np.ndarray]:
    """Area and outward normal of the largest planar face group."""
    areas = mesh.facets_area
    if len(areas) == 0:
        index = int(np.argmax(mesh.area_faces))
        return float(mesh.area_faces[index]), mesh.face_normals[index]
    best = int(np.argmax(areas))
    return float(areas[best]), mesh.facets_normal[best]


def contact_if_turned(mesh: trimesh.Trimesh, normal: np.ndarray) -> float:
    """The bed contact the part would have lying on the face with this outward normal: a
    flat face sunk below the part's outline (a recess's floor) would not touch the bed."""
    turned = mesh.copy()
    turned.apply_transform(trimesh.geometry.align_vectors(normal, [0.0, 0.0, -1.0]))
    return bed_contact_area(turned)


def orientation_finding(part: str, mesh: trimesh.Trimesh, info: PartInfo) -> Finding:
    contact = bed_contact_area(mesh)
    area, normal = largest_flat_face(mesh)
    measured = f"bed contact {contact:.0f} mm2; largest flat face {area:.0f} mm2"
    expected = f"a large flat face on the bed ({info.orientation or 'as modelled'})"
    if normal[2] < -0.999 or contact >= SIDE_FACE_RATIO * area:
        return Finding(part, "orientation", measured, expected, "ok")
    if contact >= SIDE_FACE_RATIO * contact_if_turned(mesh, normal):
        return Finding(part, "orientation", measured, expected, "ok")  # no better face
    # A part the registry prints on its side (a clip's profile) is meant that way.
    severity: Severity = "info" if "on its side" in info.orientation else "warning"
    message = (
        f"{measured}: a larger flat face points {_direction(normal)}; the intended "
        f"orientation is '{info.orientation}'"
    )
    return Finding(part, "orientation", measured, expected, severity, message)


def _direction(normal: np.ndarray) -> str:
    axis = int(np.argmax(np.abs(normal)))
    sign = "+" if normal[axis] > 0 else "-"
    return f"{sign}{'xyz'[axis]}"


# ---- one part -----------------------------------------------------------------------------


def printability_findings(
    part: str, mesh: trimesh.Trimesh, params: KitParamsBase, info: PartInfo
) -> list[Finding]:
    limits = params.checks
    findings = [
        overhang_finding(part, mesh, limits),
        bridge_finding(part, mesh, limits),
        thin_wall_finding(part, mesh, limits, info),
        orientation_finding(part, mesh, info),
    ]
    if info.text_height_mm is not None:
        findings += engraved_text.text_parameter_findings(part, params, info.text_height_mm)
        face_up = _text_face_up(mesh, info)
        engraved = engraved_text.engraved_top(
            face_up, params.text.depth_mm
        )  # cut once, read by both
        findings += engraved_text.text_mesh_findings(part, face_up, params, engraved)
        if engraved[1]:  # letters found: measure their spacing
            waived = info.text_spacing_waived
            findings += engraved_text.text_spacing_findings(part, face_up, params, waived, engraved)
    return findings


def _text_face_up(mesh: trimesh.Trimesh, info: PartInfo) -> trimesh.Trimesh:
    """The part as its text is read: turned over about x when the text is on the bed face."""
    if not info.text_on_bed:
        return mesh
    turned = mesh.copy()
    turned.apply_transform(trimesh.transformations.rotation_matrix(math.pi, [1, 0, 0]))
    return turned


def part_info(params: KitParamsBase, part: Part) -> PartInfo:
    """What the checks need to know of a part beyond its mesh, from what it declares."""
    notes = part.print_notes(params)
    return PartInfo(
        name=part.name,
        orientation=part.orientation,
        text_height_mm=notes.text_height_mm,
        engraving_depth_mm=notes.engraving_depth_mm,
        engraved_below_mm=notes.engraved_below_mm,
        text_on_bed=notes.text_on_bed,
        text_spacing_waived=notes.text_spacing_waived,
    )


def part_printability(params: KitParamsBase, part: Part, mesh: trimesh.Trimesh) -> list[Finding]:
    return printability_findings(part.name, mesh, params, part_info(params, part))


# The fits between parts, measured by the kit's checks: no part's printability reads them,
# so a fit range changed measures no part again.
FITS_BETWEEN_PARTS = frozenset({"pocket_fit", "lid_fit", "fit_tolerance_mm"})


def printability_inputs(params: KitParamsBase, part: Part) -> str:
    """Everything part_printability reads besides the mesh, as text for a cache key."""
    info = part_info(params, part)
    limits = params.checks.model_dump_json(exclude=set(FITS_BETWEEN_PARTS))
    return f"{info}|{limits}|{params.text.model_dump_json()}"

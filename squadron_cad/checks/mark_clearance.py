"""Players' marks clear of the labels beside them, measured on the meshes of every part
that carries a mark (a part with a copy per player), for any kit.

On the top face of each player's copy, the features are the regions engraved into it and
those raised above it. The marks lie where the copies differ (each patch of difference
filled out to its convex hull); everything else on the face (labels, numerals, silhouettes,
pegs) must keep checks.min_mark_clearance_mm from a copy's mark, so the mark reads as a
symbol of its own. A label fused into the mark measures 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import shapely
import trimesh
from shapely.geometry import Polygon

from squadron_cad.checks import memo, meshgeo
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.kit import Part, kit_of, variant_name

UNDER_TOP_MM = 0.05  # sections a hair under and over the top face
SPECK_MM2 = 1e-3
JOIN_MM = 1.0  # pieces of one mark's difference this close are one patch
SLIVER_MM = 0.02  # differences thinner than twice this are the renders', not the marks'
ZONE_MARGIN_MM = 0.1  # the hull grown by a hair: a mark's own edge never counts as a label


@dataclass(frozen=True)
class Clearance:
    """The smallest clearance between a copy's mark and a shared feature, and where."""

    player: int  # 0-based
    mm: float
    at: tuple[float, float]


def top_features(mesh: trimesh.Trimesh, depth: float) -> list[Polygon]:
    """The regions cut into the top face (to `depth`) and those standing above it."""
    top = meshgeo.top_face_z(mesh)
    below = meshgeo.section(mesh, top - depth - UNDER_TOP_MM)
    at_top = meshgeo.section(mesh, top - UNDER_TOP_MM)
    above = meshgeo.section(mesh, top + UNDER_TOP_MM)
    regions = [*meshgeo.polygons(below.difference(at_top)), *meshgeo.polygons(above)]
    return [region for region in regions if region.area > SPECK_MM2]


def mark_zone(features: list[list[Polygon]]) -> shapely.Geometry:
    """Where the copies differ, each patch filled out to its convex hull: the marks' place
    (a label every copy shares cancels out, even one fused into a mark)."""
    unions = [shapely.union_all(copy) for copy in features]
    differ = shapely.union_all(unions).difference(shapely.intersection_all(unions))
    # Slivers where two renders of a shared shape differ by their facets are no mark.
    differ = differ.buffer(-SLIVER_MM).buffer(SLIVER_MM)
    differ = shapely.union_all([p for p in meshgeo.polygons(differ) if p.area > SPECK_MM2])
    patches = meshgeo.polygons(differ.buffer(JOIN_MM))
    return shapely.union_all([differ.intersection(patch).convex_hull for patch in patches])


def mark_clearance(
    features: list[list[Polygon]], player: int, zone: shapely.Geometry | None = None
) -> Clearance | None:
    """Player `player`'s mark against everything else on the top face (None: the copies
    do not differ, no mark to tell apart); a label fused into the mark measures 0. The
    marks' zone is every player's: given, it is not worked out again."""
    zone = mark_zone(features) if zone is None else zone
    if zone.is_empty:
        return None
    zone = zone.buffer(ZONE_MARGIN_MM)
    mine = shapely.union_all(features[player])
    mark = mine.intersection(zone)
    rest = [p for p in meshgeo.polygons(mine.difference(zone)) if p.area > SPECK_MM2]
    if mark.is_empty or not rest:
        return None if mark.is_empty else Clearance(player, float("inf"), (0.0, 0.0))
    line = shapely.shortest_line(mark, shapely.union_all(rest))
    middle = line.interpolate(0.5, normalized=True)
    return Clearance(player, float(line.length), (middle.x, middle.y))


def part_clearance(
    part: Part, meshes: Mapping[str, trimesh.Trimesh], params: Any
) -> Clearance | None:
    """The smallest clearance over every player's copy of a marked part."""
    copies = [meshes.get(variant_name(part.name, i)) for i in range(params.players)]
    if len(copies) < 2 or any(mesh is None for mesh in copies):
        return None  # one player, or a build of some parts only: nothing to compare
    depth = max(part.print_notes(params).engraving_depth_mm, params.text.depth_mm)
    present = [mesh for mesh in copies if mesh is not None]
    # Kept between builds by the copies' meshes (checks.memo): a new tin reuses it.
    inputs = "|".join([part.name, repr(depth), *(memo.mesh_digest(mesh) for mesh in present)])
    value = memo.remember("markclear", inputs, lambda: _smallest(present, depth))
    if value is None:
        return None
    x, y = value["at"]
    return Clearance(int(value["player"]), float(value["mm"]), (float(x), float(y)))


def _smallest(copies: list[trimesh.Trimesh], depth: float) -> dict[str, Any] | None:
    features = [top_features(mesh, depth) for mesh in copies]
    zone = mark_zone(features)
    found = [mark_clearance(features, player, zone) for player in range(len(features))]
    measured = [c for c in found if c is not None]
    if not measured:
        return None
    least = min(measured, key=lambda c: c.mm)
    return {"player": least.player, "mm": least.mm, "at": [float(v) for v in least.at]}


def mark_clearance_findings(design: Any, meshes: Mapping[str, trimesh.Trimesh]) -> list[Finding]:
    """One finding per part that carries players' marks."""
    params = design.params
    limit = params.checks.min_mark_clearance_mm
    findings = []
    for part in kit_of(params).parts:
        if part.player_builder is None:
            continue
        found = part_clearance(part, meshes, params)
        if found is None:
            continue
        ok = found.mm >= limit - 1e-6
        where = f"at ({found.at[0]:.1f}, {found.at[1]:.1f})"
        measured = "no label beside it" if found.mm == float("inf") else round(found.mm, 3)
        message = (
            ""
            if ok
            else f"player {found.player + 1}'s mark is {found.mm:.2f} mm from a label {where}: "
            f"under checks.min_mark_clearance_mm ({limit:g}), they read as one"
        )
        findings.append(
            Finding(part.name, "mark_clearance", measured, f">= {limit:g} mm", verdict(ok), message)
        )
    return findings

"""Engraved text, measured on the mesh: the letters cut into the top face (how many, how
deep, their narrowest stroke, their height) against the parameters' and the nozzle's
limits, and the land between and inside them (text_spacing). Limits: params.checks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import shapely
import trimesh
from shapely.geometry import MultiPolygon, Polygon

from squadron_cad.checks import meshgeo, narrow, text_spacing
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.params import KitParamsBase


@dataclass(frozen=True)
class TextMeasure:
    glyphs: int
    depth_mm: float
    stroke_mm: float
    height_mm: float


def engraved_glyphs(mesh: trimesh.Trimesh, top: float, depth: float) -> list[Polygon]:
    """Marks cut into the top face that do not reach the part's outline: the letters."""
    below = meshgeo.section(mesh, max(top - depth - 0.1, float(mesh.bounds[0][2]) + 0.05))
    at_top = meshgeo.section(mesh, top - 0.05)
    outline = below.boundary
    glyphs = []
    for region in meshgeo.polygons(below.difference(at_top)):
        if region.area > 1e-3 and region.distance(outline) > 0.05:
            glyphs.append(region)
    return glyphs


def _floor_depth(mesh: trimesh.Trimesh, glyphs: list[Polygon], top: float) -> float:
    """Shallowest engraving: top minus the highest floor found inside the letters."""
    up = (mesh.face_normals[:, 2] > 0.999) & (mesh.triangles_center[:, 2] < top - 0.01)
    centres = mesh.triangles_center[up]
    inside = shapely.contains_xy(MultiPolygon(glyphs), centres[:, 0], centres[:, 1])
    if not inside.any():
        return 0.0
    return float(top - centres[inside, 2].max())


Engraved = tuple[float, list[Polygon]]  # the top face's height, the letters cut into it


def engraved_top(mesh: trimesh.Trimesh, depth_hint: float) -> Engraved:
    top = meshgeo.top_face_z(mesh)
    return top, engraved_glyphs(mesh, top, depth_hint)


def measure_text(
    mesh: trimesh.Trimesh, depth_hint: float, engraved: Engraved | None = None
) -> TextMeasure | None:
    top, glyphs = engraved or engraved_top(mesh, depth_hint)
    if not glyphs:
        return None
    strokes = [narrow.stroke_width(g) for g in glyphs]
    heights = [max(g.bounds[2] - g.bounds[0], g.bounds[3] - g.bounds[1]) for g in glyphs]
    return TextMeasure(
        len(glyphs), _floor_depth(mesh, glyphs, top), min(strokes), float(np.median(heights))
    )


def text_spacing_findings(
    part: str,
    mesh: trimesh.Trimesh,
    params: KitParamsBase,
    waived: str = "",
    engraved: Engraved | None = None,
) -> list[Finding]:
    """The land between engraved strokes and letters, and the islands inside letters,
    measured on the section under the top face against the nozzle-based minimums; a
    shortfall is an error, or a warning naming `waived` (the kit's reason) when given."""
    limits = params.checks
    top, glyphs = engraved or engraved_top(mesh, params.text.depth_mm)
    material = text_spacing.top_material(mesh, top)
    thin = narrow.thin_spots(material, limits.min_text_gap_mm)
    gap = text_spacing.letter_gap(glyphs, thin, limits.min_text_gap_mm)
    counter = text_spacing.narrowest_counter(glyphs, material)
    findings = [
        _spacing_finding(part, "text_gap", gap, limits.min_text_gap_mm,
                         "checks.min_text_gap_mm", "land between engraved strokes or letters"),
        _spacing_finding(part, "text_counter", counter, limits.min_text_counter_mm,
                         "checks.min_text_counter_mm", "island inside an engraved letter"),
    ]  # fmt: skip
    if not waived:
        return findings
    return [
        replace(f, severity="warning", message=f"{f.message} (a warning for now: {waived})")
        if f.failed else f
        for f in findings
    ]  # fmt: skip


def _spacing_finding(
    part: str,
    check: str,
    found: text_spacing.Narrowest | None,
    minimum: float,
    key: str,
    what: str,
) -> Finding:
    if found is None:
        measured = "none" if check == "text_counter" else f"none under {2 * minimum:g} mm"
        return Finding(part, check, measured, f">= {minimum:g} mm", "ok")
    finding = _limit_finding(part, check, found.width_mm, minimum, key, what)
    if finding.failed:
        message = f"{finding.message} {found.where()}: it will not print, the letters blur"
        return Finding(part, check, finding.measured, finding.expected, "error", message)
    return finding


def _limit_finding(
    part: str, check: str, measured: float, minimum: float, key: str, what: str
) -> Finding:
    ok = measured >= minimum - 1e-6
    message = "" if ok else f"{what} {measured:.2f} mm is under {key} ({minimum:g} mm)"
    return Finding(part, check, round(measured, 3), f">= {minimum:g} mm", verdict(ok), message)


def text_parameter_findings(
    part: str, params: KitParamsBase, text_height_mm: float
) -> list[Finding]:
    """The text parameters a part is engraved with, against the limits."""
    limits = params.checks
    return [
        _limit_finding(part, "text_depth_param", params.text.depth_mm,
                       limits.min_text_depth_mm, "checks.min_text_depth_mm", "text.depth_mm"),
        _limit_finding(part, "text_stroke_param", params.text.stroke_mm,
                       limits.min_text_stroke_mm, "checks.min_text_stroke_mm",
                       "text.stroke_mm"),
        _limit_finding(part, "text_height_param", text_height_mm,
                       limits.min_text_height_mm, "checks.min_text_height_mm",
                       "the letter height"),
    ]  # fmt: skip


def text_mesh_findings(
    part: str, mesh: trimesh.Trimesh, params: KitParamsBase, engraved: Engraved | None = None
) -> list[Finding]:
    """The same limits measured on the engraved letters themselves."""
    limits = params.checks
    measured = measure_text(mesh, params.text.depth_mm, engraved)
    if measured is None:
        return [
            Finding(part, "text_on_top", "no engraved letters found on the top face",
                    "letters engraved on the top face, readable from above", "error",
                    "no engraved text on the top face: is the part upside down?")
        ]  # fmt: skip
    return [
        Finding(part, "text_on_top", f"{measured.glyphs} letters on the top face",
                "letters engraved on the top face, readable from above", "ok"),
        _limit_finding(part, "text_depth", measured.depth_mm, limits.min_text_depth_mm,
                       "checks.min_text_depth_mm", "engraving depth on the mesh"),
        _limit_finding(part, "text_stroke", measured.stroke_mm, limits.min_text_stroke_mm,
                       "checks.min_text_stroke_mm", "narrowest letter stroke on the mesh"),
        _limit_finding(part, "text_height", measured.height_mm, limits.min_text_height_mm,
                       "checks.min_text_height_mm", "letter height on the mesh"),
    ]  # fmt: skip

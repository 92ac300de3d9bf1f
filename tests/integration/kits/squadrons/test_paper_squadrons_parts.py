"""Squadrons' paper pieces are its 3D parts: outline and marks, measured on both.

Each part of the session's Squadrons build (rendered once, by the real OpenSCAD) is cut
through solid material, through its engraving and through its raised symbol; what the
engraving removes (and the symbol adds) is compared with the engrave layer of the piece's
laser file, and the solid section with its cut layer. They must agree to 0.1 mm
everywhere: OpenSCAD draws stroke ends as octagons and facets circles, the paper draws
them true. The ruler strips' cut differs on purpose (a glue tab for the dovetail), so
only their marks are compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trimesh
from shapely import affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union
from svg_layers import layer, section

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.kits.squadrons.sheets.registry import write_paper
from squadron_cad.pipeline.report import BuildReport

SLIVER_MM2 = 1e-3
# part -> (its laser file, its parameter section (thickness_mm: its top face), whether the
# outlines match too)
PIECES = {
    "ship_base_1": ("ship_base_p1_1", "base", True),
    "ship_base_6": ("ship_base_p1_6", "base", True),
    "movement_gauge": ("movement_gauge", "gauge", True),
    "pivot_guide": ("pivot_guide", "pivot", True),
    "objective_scan": ("objective_scan", "objective", True),
    "objective_destroy": ("objective_destroy", "objective", True),
    "entry_marker": ("entry_marker", "objective", True),
    "range_ruler_1": ("range_ruler_strip_1", "ruler", False),
    "range_ruler_2": ("range_ruler_strip_2", "ruler", False),
    "range_ruler_4": ("range_ruler_strip_4", "ruler", False),
}


@pytest.fixture(scope="module")
def kit(built_kit) -> BuildReport:
    return built_kit("squadrons")


@pytest.fixture(scope="module")
def laser(kit: BuildReport, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("paper") / "paper"
    write_paper(kit.params, folder, previews=False)
    return folder / "laser"


def marks_of(mesh: trimesh.Trimesh, thickness: float) -> tuple[BaseGeometry, BaseGeometry]:
    """(solid section, what is engraved or raised): the floor under every engraving, less
    the section just under the top face; plus the raised symbol's section."""
    top = float(mesh.bounds[1][2])
    solid = section(mesh, 0.4)  # under the peg socket and every engraving
    engraved = solid.difference(section(mesh, thickness - 0.2))
    raised = section(mesh, thickness + 0.3) if top > thickness + 0.1 else Polygon()
    return solid, without_slivers(engraved.union(raised))


def without_slivers(region: BaseGeometry) -> BaseGeometry:
    """Less the hairlines two sections of one faceted rim leave (under 0.001 mm2 each)."""
    return unary_union([g for g in getattr(region, "geoms", [region]) if g.area > SLIVER_MM2])


def assert_same(paper: BaseGeometry, solid: BaseGeometry, what: str) -> None:
    assert paper.area == pytest.approx(solid.area, rel=0.02), what  # stroke ends: octagons
    mean_gap = paper.symmetric_difference(solid).area / solid.boundary.length
    assert mean_gap < 0.03, f"{what}: differ by {mean_gap:.3f} mm on average"
    assert paper.hausdorff_distance(solid) < 0.1, what


@pytest.mark.parametrize("part", list(PIECES))
def test_a_laser_file_cuts_and_engraves_the_3d_part(kit: BuildReport, laser: Path, part: str):
    name, params, same_outline = PIECES[part]
    mesh = load_mesh(kit.out_dir / "stl" / f"{part}.stl")
    solid, marks = marks_of(mesh, getattr(kit.params, params).thickness_mm)
    cut, engrave = layer(laser / f"{name}.svg", "cut"), layer(laser / f"{name}.svg", "engrave")
    # the laser file sits on its own canvas; both start at the part's (0, -half) or corner
    dx, dy = solid.bounds[0] - cut.bounds[0], solid.bounds[1] - cut.bounds[1]
    cut, engrave = affinity.translate(cut, dx, dy), affinity.translate(engrave, dx, dy)
    if same_outline:
        assert_same(cut, solid, f"{part} outline")
    assert_same(engrave, marks, f"{part} marks")

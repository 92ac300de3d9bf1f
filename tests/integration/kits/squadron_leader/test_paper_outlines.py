"""The paper edition's laser files cut the 3D parts' own outlines.

Each flat part is rendered by the real OpenSCAD; its mesh is cut at mid-thickness (below
any engraving, above any detent) and the section is compared with the cut layer of the
part's laser SVG, which the paper command wrote from sheets/outlines.py. They must agree
to 0.1 mm everywhere (OpenSCAD facets arcs and draws stroke ends as octagons; the paper
draws true circles).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trimesh
from shapely import affinity
from svg_layers import layer, section

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.kit import design_of
from squadron_cad.kits.squadron_leader.parts.registry import part
from squadron_cad.kits.squadron_leader.sheets.registry import write_paper
from squadron_cad.pipeline.rendering import emit_sources
from squadron_cad.render import openscad
from squadron_cad.resolve import resolve

# part, its laser file, the height of a section through solid material
PARTS = {
    "template_straight": ("template_straight", 2.0),
    "template_bank": ("template_bank", 2.0),
    "template_turn": ("template_turn", 2.0),
    "template_all": ("template_all", 2.0),
    "range_ruler_1": ("range_ruler_1", 1.5),
    "range_ruler_2": ("range_ruler_2", 1.5),
    "range_ruler_3": ("range_ruler_3", 1.5),
    "stat_dial_card": ("stat_record_a", 0.7),
}


@pytest.fixture(scope="module")
def meshes(tmp_path_factory) -> dict[str, trimesh.Trimesh]:
    params = resolve()
    sources = emit_sources(design_of(params), [part(name) for name in PARTS])
    tool = openscad.locate()
    folder = tmp_path_factory.mktemp("stl")
    found = {}
    for name, source in sources.items():
        target = folder / f"{name}.stl"
        openscad.render(tool, name, source.text, target, timeout_s=300)
        found[name] = load_mesh(target)
    return found


@pytest.fixture(scope="module")
def laser(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("paper") / "paper"
    write_paper(resolve(), folder, previews=False)
    return folder / "laser"


@pytest.mark.parametrize("name", list(PARTS))
def test_laser_cut_layer_is_the_3d_part_outline(meshes, laser: Path, name: str) -> None:
    laser_name, height = PARTS[name]
    solid = section(meshes[name], height)
    paper = layer(laser / f"{laser_name}.svg", "cut")
    # the laser file sits on its own canvas: line the two up by their bounds
    dx, dy = (solid.bounds[0] - paper.bounds[0], solid.bounds[1] - paper.bounds[1])
    paper = affinity.translate(paper, dx, dy)
    assert paper.area == pytest.approx(solid.area, rel=0.005)
    mean_gap = paper.symmetric_difference(solid).area / solid.boundary.length
    assert mean_gap < 0.03, f"{name}: outlines differ by {mean_gap:.3f} mm on average"
    assert paper.hausdorff_distance(solid) < 0.1
    assert len(getattr(paper, "geoms", [paper])) == len(getattr(solid, "geoms", [solid]))

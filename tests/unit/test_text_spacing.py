"""Engraved text that prints: the land between letters and the island inside a letter,
measured on the mesh under the top face (checks.text_spacing), built on purpose. (The
counters of Squadron Leader's stat card: tests/unit/kits/squadron_leader/.)"""

from __future__ import annotations

import manifold3d
import pytest
import shapely
import trimesh
from shapely.geometry import Polygon, box

from squadron_cad.checks import engraved_text
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.meshgeo import to_trimesh
from squadron_cad.params import KitParamsBase

DEPTH = 0.5  # the engraving, as text.depth_mm
THICK = 3.0


@pytest.fixture(scope="module")
def params(toy_params: KitParamsBase) -> KitParamsBase:
    """The engine's limits (checks.min_text_gap_mm, min_text_counter_mm): the toy kit's."""
    return toy_params


def engraved(*cuts: shapely.Geometry) -> trimesh.Trimesh:
    """A 20 x 20 x 3 mm slab with each 2D shape cut DEPTH deep into its top."""
    slab = manifold3d.Manifold.cube([20, 20, THICK])
    for cut in cuts:
        rings = [list(cut.exterior.coords)[:-1], *(list(r.coords)[:-1] for r in cut.interiors)]
        section = manifold3d.CrossSection(rings, manifold3d.FillRule.EvenOdd)
        slab -= section.extrude(DEPTH + 1).translate((0, 0, THICK - DEPTH))
    return to_trimesh(slab)


def findings(mesh: trimesh.Trimesh, params, waived: str = "") -> dict[str, Finding]:
    return {f.check: f for f in engraved_text.text_spacing_findings("part", mesh, params, waived)}


@pytest.mark.parametrize(("gap", "fails"), [(0.17, True), (0.3, True), (0.5, False)])
def test_two_letters_closer_than_a_nozzle_line_run_together(params, gap: float, fails) -> None:
    mesh = engraved(box(5, 5, 6, 12), box(6 + gap, 5, 7 + gap, 12))
    found = findings(mesh, params)["text_gap"]
    assert found.failed is fails
    if fails:
        assert found.measured == pytest.approx(gap, abs=0.02)
        assert "checks.min_text_gap_mm" in found.message


def test_a_thin_land_inside_one_letter_is_a_gap_too(params) -> None:
    # A U whose two arms are 0.25 mm apart: one engraved region, a thin tongue of material.
    letter = box(5, 5, 6.6, 12).union(box(6.85, 5, 8.45, 12)).union(box(5, 5, 8.45, 6))
    found = findings(engraved(letter), params)["text_gap"]
    assert found.failed
    assert found.measured == pytest.approx(0.25, abs=0.05)


@pytest.mark.parametrize(("island", "fails"), [(0.32, True), (0.6, False)])
def test_the_island_inside_a_letter_prints_only_a_nozzle_line_wide(params, island, fails) -> None:
    outer = box(5, 5, 7 + island, 12)
    letter = Polygon(outer.exterior.coords, [box(6, 6, 6 + island, 11).exterior.coords])
    found = findings(engraved(letter), params)["text_counter"]
    assert found.failed is fails
    assert found.measured == pytest.approx(island, abs=0.02)


def test_a_waived_shortfall_warns_with_the_kits_reason(params) -> None:
    mesh = engraved(box(5, 5, 6, 12), box(6.17, 5, 7.17, 12))
    found = findings(mesh, params, waived="being redrawn")["text_gap"]
    assert found.severity == "warning"
    assert "being redrawn" in found.message

"""Engraved text that prints: the land between letters and the island inside a letter,
measured on the mesh under the top face (checks.text_spacing), built on purpose."""

from __future__ import annotations

import manifold3d
import pytest
import shapely
import trimesh
from shapely.geometry import LineString, Polygon, box

from squadron_cad.checks import printability as P
from squadron_cad.checks.meshgeo import to_trimesh
from squadron_cad.geometry.glyphs import GLYPHS
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.resolve import resolve

DEPTH = 0.5  # the engraving, as text.depth_mm
THICK = 3.0


@pytest.fixture(scope="module")
def params() -> SquadronLeaderParams:
    return resolve()


def engraved(*cuts: shapely.Geometry) -> trimesh.Trimesh:
    """A 20 x 20 x 3 mm slab with each 2D shape cut DEPTH deep into its top."""
    slab = manifold3d.Manifold.cube([20, 20, THICK])
    for cut in cuts:
        rings = [list(cut.exterior.coords)[:-1], *(list(r.coords)[:-1] for r in cut.interiors)]
        section = manifold3d.CrossSection(rings, manifold3d.FillRule.EvenOdd)
        slab -= section.extrude(DEPTH + 1).translate((0, 0, THICK - DEPTH))
    return to_trimesh(slab)


def findings(mesh: trimesh.Trimesh, params, waived: str = "") -> dict[str, P.Finding]:
    return {f.check: f for f in P.text_spacing_findings("part", mesh, params, waived)}


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


def glyph_counters(char: str, height: float, stroke: float) -> list[float]:
    """The widest circle inside each counter of our stroke font's glyph, drawn as text()
    does (em = height - stroke, strokes `stroke` wide with round ends)."""
    em = height - stroke
    lines = [LineString([(x * em, y * em) for x, y in s]) for s in GLYPHS[char].strokes]
    ink = shapely.union_all([line.buffer(stroke / 2, quad_segs=8) for line in lines])
    return [
        2 * shapely.maximum_inscribed_circle(Polygon(ring), 0.001).length
        for poly in getattr(ink, "geoms", [ink])
        for ring in poly.interiors
    ]


def test_every_counter_on_the_stat_card_prints(params) -> None:
    """The card's labels and numerals at its height and stroke: the A's counter was 0.37 mm."""
    card = params.stat_dial
    chars = set("".join(card.labels)) | {str(v) for v in range(card.min_value, card.max_value + 1)}
    for char in sorted(chars):
        for width in glyph_counters(char, card.numeral_height_mm, params.text.stroke_mm):
            assert width >= params.checks.min_text_counter_mm, (char, round(width, 3))

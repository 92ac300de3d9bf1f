"""Space Planes' engraved text prints: the land between its letters and strokes and the
islands inside them are at least one 0.4 mm nozzle line (the engine's text_gap and
text_counter checks), measured on the letters as the stroke font draws them.

The cubes carried a 2.4 mm ship number whose "6" held a 0.32 mm island: it would fill in.
They carry no text now (the footprint covers every face; a ship is told by its plane die,
its player by the cube's colour and mark); the joker gauge's move labels remain."""

from __future__ import annotations

import itertools

import pytest
import shapely
from shapely.geometry import LineString, Polygon, box

from squadron_cad.checks.narrow import thin_spots
from squadron_cad.emit import emit
from squadron_cad.geometry.glyphs import DEFAULT_SPACING_EM, layout_text
from squadron_cad.kit import load_kit
from squadron_cad.kits.space_planes.design import SpacePlanesDesign
from squadron_cad.resolve import resolve

NOZZLE_MM = 0.4  # the least land or island a 0.4 mm nozzle lays (checks.min_text_gap_mm)
KIT = load_kit("space-planes")


def letters(text: str, height: float, stroke: float) -> list[Polygon]:
    """Each letter's engraved region: its strokes at the font's scale, round ends drawn as
    OpenSCAD draws them (octagons)."""
    scale = height - stroke
    found = []
    for index, char in enumerate(text):
        strokes, _ = layout_text(char)
        if not strokes:
            continue
        pen = layout_text(text[:index])[1] + DEFAULT_SPACING_EM if index else 0.0
        lines = [
            LineString([((x + pen) * scale + stroke / 2, y * scale + stroke / 2) for x, y in s])
            for s in strokes
        ]
        found.append(shapely.union_all([line.buffer(stroke / 2, quad_segs=2) for line in lines]))
    return found


def narrowest(text: str, height: float, stroke: float) -> tuple[float, float]:
    """The narrowest land beside the letters and the narrowest island inside one."""
    glyphs = letters(text, height, stroke)
    ink = shapely.union_all(glyphs)
    x0, y0, x1, y1 = ink.bounds
    material = box(x0 - 2, y0 - 2, x1 + 2, y1 + 2).difference(ink)
    gaps = [a.distance(b) for a, b in itertools.combinations(glyphs, 2)]
    gaps += [width for width, _, region in thin_spots(material, NOZZLE_MM)
             if region.distance(ink) < 0.01]  # fmt: skip
    islands = [
        2 * shapely.maximum_inscribed_circle(Polygon(ring), 0.005).length
        for glyph in glyphs
        for ring in glyph.interiors
    ]
    return min(gaps, default=float("inf")), min(islands, default=float("inf"))


def test_the_measure_finds_the_old_cubes_filled_in_six() -> None:
    """2.4 mm tall at 0.7 mm strokes: the 6's island (the font's 6 as redrawn for the
    token range, its loop open at the top) is 0.22 mm."""
    _, island = narrowest("6", 2.4, 0.7)
    assert island == pytest.approx(0.22, abs=0.03)
    assert island < NOZZLE_MM


def test_the_gauge_labels_leave_a_nozzle_line_between_and_inside_their_letters() -> None:
    p = resolve(kit="space-planes")
    for label in (p.long_label, p.short_label):
        gap, island = narrowest(label, p.gauge.numeral_height_mm, p.text.stroke_mm)
        assert gap >= NOZZLE_MM, (label, gap)
        assert island >= NOZZLE_MM, (label, island)


def test_the_cubes_carry_no_text() -> None:
    p = resolve(kit="space-planes")
    cube = KIT.part("cubeship")
    assert cube.print_notes(p).text_height_mm is None
    source = emit(cube, SpacePlanesDesign(p), KIT.credit).text
    assert "strokes(" not in source  # the stroke font's module: used by any engraved text

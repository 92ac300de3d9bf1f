"""Squadron Leader's stat card prints its engraved text: every counter (the island inside
an A, a 6, an 8) of its labels and numerals is a nozzle line wide at least."""

from __future__ import annotations

import shapely
from shapely.geometry import LineString, Polygon

from squadron_cad.geometry.glyphs import GLYPHS
from squadron_cad.resolve import resolve


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


def test_every_counter_on_the_stat_card_prints() -> None:
    """The card's labels and numerals at its height and stroke: the A's counter was 0.37 mm."""
    params = resolve(kit="squadron-leader")
    card = params.stat_dial
    chars = set("".join(card.labels)) | {str(v) for v in range(card.min_value, card.max_value + 1)}
    for char in sorted(chars):
        for width in glyph_counters(char, card.numeral_height_mm, params.text.stroke_mm):
            assert width >= params.checks.min_text_counter_mm, (char, round(width, 3))

"""Text on paper that parts engrave (numerals, stat letters): the project's own stroke
font, so paper, laser and print show the same strokes. Page text (titles, notes, the
credit) is Helvetica, measured in metrics.py.
"""

from __future__ import annotations

from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.paper.drawing import Layer, Point, Stroke


def stroke_text_lines(text: str, height_mm: float, stroke_mm: float) -> list[list[Point]]:
    """Centre lines of `text` in our stroke font, its ink box centred on the origin.

    The same layout as the engraving on the 3D parts (geometry.shapes.text): strokes of
    `stroke_mm` whose ink spans `height_mm` from the baseline to the cap line.
    """
    strokes, width_em = layout_text(text)
    scale = height_mm - stroke_mm
    width = width_em * scale + stroke_mm
    dx, dy = stroke_mm / 2 - width / 2, stroke_mm / 2 - height_mm / 2
    return [[(x * scale + dx, y * scale + dy) for x, y in path] for path in strokes]


def stroke_text(
    text: str,
    height_mm: float,
    stroke_mm: float,
    colour: str,
    layer: Layer,
    at: Point = (0.0, 0.0),
    tag: str = "",
) -> list[Stroke]:
    """Stroke-font text centred on `at`, each centre line a round-capped stroke."""
    x0, y0 = at
    return [
        Stroke(tuple((x + x0, y + y0) for x, y in line), stroke_mm, colour, layer, tag=tag)
        for line in stroke_text_lines(text, height_mm, stroke_mm)
    ]

"""Helvetica's advance widths, from the metrics fpdf2 ships: page text is measured without
a font file (every PDF viewer has Helvetica; SVGs name it and its metric twins)."""

from __future__ import annotations

from fpdf.fonts import CORE_FONTS_CHARWIDTHS

SVG_FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', sans-serif"


def text_width_mm(text: str, size_mm: float, bold: bool = False) -> float:
    """Advance width of Helvetica text at a font size in mm (widths per 1000 em)."""
    widths = CORE_FONTS_CHARWIDTHS["helveticaB" if bold else "helvetica"]
    return sum(widths.get(char, 556) for char in text) * size_mm / 1000

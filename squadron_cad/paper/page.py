"""A page: its size, the printable area inside the margins, and the bands for page text.

Every drawing, pages included, uses one frame: millimetres, x right, y up, the page's
origin at its bottom-left corner (PDF's own frame). The writers flip y for the formats
that count from the top (SVG); nothing is ever mirrored.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER_MM = 9.0  # title and page number along the top of the printable area
FOOTER_MM = 15.0  # scale bars and the credit line along the bottom
BAND_GAP_MM = 3.0  # between the page text and the content


@dataclass(frozen=True)
class Rect:
    """An upright rectangle: (x, y) is its bottom-left corner."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def top(self) -> float:
        return self.y + self.height

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.right, self.top)

    def holds(self, box: tuple[float, float, float, float], slack: float = 1e-6) -> bool:
        """Does this rectangle hold the box (x0, y0, x1, y1)?"""
        x0, y0, x1, y1 = box
        return (
            x0 >= self.x - slack
            and y0 >= self.y - slack
            and x1 <= self.right + slack
            and y1 <= self.top + slack
        )


@dataclass(frozen=True)
class PageFrame:
    """Page size and margins; where the header, the content and the footer go."""

    width_mm: float
    height_mm: float
    margin_mm: float

    @property
    def printable(self) -> Rect:
        m = self.margin_mm
        return Rect(m, m, self.width_mm - 2 * m, self.height_mm - 2 * m)

    @property
    def header(self) -> Rect:
        p = self.printable
        return Rect(p.x, p.top - HEADER_MM, p.width, HEADER_MM)

    @property
    def footer(self) -> Rect:
        p = self.printable
        return Rect(p.x, p.y, p.width, FOOTER_MM)

    @property
    def content(self) -> Rect:
        p = self.printable
        bottom = p.y + FOOTER_MM + BAND_GAP_MM
        top = p.top - HEADER_MM - BAND_GAP_MM
        return Rect(p.x, bottom, p.width, top - bottom)

"""The multi-page vector PDF, written with fpdf2.

Why fpdf2: pure Python with one small dependency of its own (defusedxml; Pillow and
fontTools are here already), maintained, and its path API writes our millimetre
coordinates converted to points (4 decimals: 0.00004 mm), with even-odd fills, dashes,
caps and joins; page text uses the PDF's standard Helvetica, so nothing is embedded. A
fixed creation date keeps the bytes the same from run to run.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from fpdf import FPDF, ViewerPreferences
from fpdf.drawing import PaintedPath
from fpdf.enums import IntersectionRule, PathPaintRule, StrokeCapStyle, StrokeJoinStyle

from squadron_cad.paper.drawing import Area, Drawing, Label, Stroke
from squadron_cad.paper.metrics import text_width_mm
from squadron_cad.paper.page import PageFrame
from squadron_cad.render.atomic import write_bytes

PT_PER_MM = 72 / 25.4
FIXED_DATE = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)  # reproducible bytes


def pdf_bytes(pages: list[Drawing], frame: PageFrame, title: str, author: str) -> bytes:
    # Points as the unit: fpdf2 then scales by exactly 1, where a mm unit would scale by a
    # rounded 2.8346 (a 0.005 mm error across a page).
    pdf = FPDF(unit="pt", format=(frame.width_mm * PT_PER_MM, frame.height_mm * PT_PER_MM))
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_title(title)
    pdf.set_author(author)
    pdf.set_creator("squadron_cad")
    # Ask the print dialog for actual size: a viewer's "fit to page" shrinks every piece.
    pdf.viewer_preferences = ViewerPreferences(print_scaling="None")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    for page in pages:
        pdf.add_page()
        # One drawing context per page: fpdf2 costs a third as much per path that way.
        # Paths first, in order, then the text over them (svg.py keeps the same order).
        with pdf.drawing_context() as context:
            for item in page.items:
                if isinstance(item, Area):
                    context.add_item(_area(item, frame.height_mm), clone=False)
                elif isinstance(item, Stroke):
                    context.add_item(_stroke(item, frame.height_mm), clone=False)
        for item in page.items:
            if isinstance(item, Label):
                _label(pdf, item, frame.height_mm)
    return bytes(pdf.output())


def write_pdf(path: Path, pages: list[Drawing], frame: PageFrame, title: str, author: str) -> None:
    write_bytes(path, pdf_bytes(pages, frame, title, author))


def _pt(x: float, y: float, height: float) -> tuple[float, float]:
    """Page mm (y up) -> fpdf2's points from the top-left."""
    return x * PT_PER_MM, (height - y) * PT_PER_MM


def _area(item: Area, height: float) -> PaintedPath:
    path = PaintedPath()
    style = path.style
    style.auto_close = True
    style.intersection_rule = IntersectionRule.EVENODD
    style.fill_color = item.fill
    style.stroke_color = item.stroke
    if item.stroke:
        style.stroke_width = item.stroke_mm * PT_PER_MM
        style.stroke_join_style = StrokeJoinStyle.MITER
    if item.fill and item.stroke:
        style.paint_rule = PathPaintRule.STROKE_FILL_EVENODD
    elif item.fill:
        style.paint_rule = PathPaintRule.FILL_EVENODD
    else:
        style.paint_rule = PathPaintRule.STROKE
    for ring in item.rings:
        path.move_to(*_pt(*ring[0], height))
        for x, y in ring[1:]:
            path.line_to(*_pt(x, y, height))
        path.close()
    return path


def _stroke(item: Stroke, height: float) -> PaintedPath:
    path = PaintedPath()
    style = path.style
    style.auto_close = False
    style.fill_color = None
    style.stroke_color = item.colour
    style.stroke_width = item.width_mm * PT_PER_MM
    style.paint_rule = PathPaintRule.STROKE
    caps = StrokeCapStyle.ROUND if item.round_caps else StrokeCapStyle.BUTT
    style.stroke_cap_style = caps
    style.stroke_join_style = StrokeJoinStyle.ROUND
    if item.dash_mm:
        style.stroke_dash_pattern = [d * PT_PER_MM for d in item.dash_mm]
    path.move_to(*_pt(*item.points[0], height))
    for x, y in item.points[1:]:
        path.line_to(*_pt(x, y, height))
    if item.closed:
        path.close()
    return path


def _label(pdf: FPDF, item: Label, height: float) -> None:
    pdf.set_font("helvetica", "B" if item.bold else "", item.size_mm * PT_PER_MM)
    pdf.set_text_color(item.colour)
    width = text_width_mm(item.text, item.size_mm, item.bold)
    shift = {"start": 0.0, "middle": width / 2, "end": width}[item.anchor]
    x, y = _pt(*item.at, height)
    shift *= PT_PER_MM
    if item.angle_deg:
        with pdf.rotation(item.angle_deg, x, y):
            pdf.text(x - shift, y, item.text)
    else:
        pdf.text(x - shift, y, item.text)

"""The measuring pieces at 1:1: the 16-inch range ruler in strips, the 8-inch movement
gauge and the pivot guide, drawn from the 3D parts' layout (parts/rulers.py,
parts/pivot_guide.py): the same ticks, labels, words, outline, rays and numerals.

The ruler is longer than any page, so it comes as the 3D part's sections: one strip per
section, each but the last with a grey glue tab past its far end. The next strip's start
goes on the tab's dashed line, edges in line; the half ticks either side of that line make
the inch tick at the join, as the 3D sections' seams do.
"""

from __future__ import annotations

from typing import Any

from shapely import affinity
from shapely.geometry import Polygon
from shapely.ops import unary_union

from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import pivot_guide, rulers
from squadron_cad.kits.squadrons.sheets.style import (
    bar,
    body,
    ink,
    points,
    ring_segment,
    turned,
    words,
)
from squadron_cad.paper.drawing import BLACK, Area, Drawing, Label, Stroke, drawing, rings_of
from squadron_cad.paper.sheet import Piece, PieceSheet

GLUE_TAB_MM = 12.0  # the next strip overlaps this much: room for glue, short to cut
TAB_FILL = "#d9d9d9"
SEAM_MM = 0.3
SEAM_DASH_MM = (2.0, 1.2)
TAB_TEXT_MM = 2.6


def _tick(x: Any, width: Any, half: Any, length: Any) -> Polygon:
    """rulers._tick in 2D, stopped at the edge (the 3D bar runs out past it)."""
    return bar(x - width / 2, half - length, x + width / 2, half)


def _label(mark: rulers.TickLabel, stroke: Any, tag: str) -> Drawing:
    centre = (mark.left + mark.width / 2, mark.bottom + mark.height / 2)
    return words(mark.text, centre, mark.height, stroke, tag)


def ruler_strip(p: SquadronsParams, index: int) -> Piece:
    """Section `index` of the 3D ruler as a paper strip: its glue tab where the 3D part has
    its dovetail tab."""
    r = p.ruler
    length, half = float(p.ruler_section_mm), float(r.width_mm) / 2
    section = bar(0, -half, length, half)
    has_tab = rulers.section_joints(index)[0]
    outline = bar(0, -half, length + GLUE_TAB_MM, half) if has_tab else section
    items: list[Any] = body(outline, "ruler-strip")
    if has_tab:
        tab = bar(length, -half, length + GLUE_TAB_MM, half)
        items.append(Area(rings_of(tab), TAB_FILL, "print", tag="glue-tab"))
    for _inch, x, labelled in rulers.section_ticks(index):
        reach = r.label_tick_length_mm if labelled else r.tick_length_mm
        shape = _tick(x, r.mark_width_mm, half, reach).intersection(section)
        at_seam = float(x) in (0.0, length)  # half a tick: the join completes it
        items += ink(shape, "ruler-seam-tick" if at_seam else "ruler-tick")
    marks = Drawing()
    for mark in rulers.section_labels(p, index):
        marks += _label(mark, p.text.stroke_mm, "ruler-label")
    if has_tab:
        items.append(
            Stroke(((length, -half), (length, half)), SEAM_MM, BLACK, "print",
                   dash_mm=SEAM_DASH_MM, round_caps=False, tag="ruler-seam")
        )  # fmt: skip
        note = f"GLUE {index + 1} HERE"
        # turned a quarter, capitals rise 0.72 of the size towards -x: centred on the tab
        at = (length + GLUE_TAB_MM / 2 + TAB_TEXT_MM * 0.36, 0.0)
        items.append(Label(note, at, TAB_TEXT_MM, anchor="middle", angle_deg=90, tag="tab-note"))
    first, last = rulers.inches_on_section(index)[0], rulers.inches_on_section(index)[-1]
    return Piece(
        f"range_ruler_strip_{index}",
        f"Range ruler strip {index} of {constants.RULER_SECTIONS} ({first}-{last} in)",
        drawing(items) + marks,
    )


def gauge(p: SquadronsParams) -> Piece:
    g = p.gauge
    length, half = constants.GAUGE_LENGTH_IN * constants.INCH_MM, float(g.width_mm) / 2
    items: list[Any] = body(bar(0, -half, length, half), "gauge")
    for _inch, x, labelled in rulers.gauge_ticks():
        reach = g.label_tick_length_mm if labelled else g.tick_length_mm
        items += ink(_tick(x, p.ruler.mark_width_mm, half, reach), "gauge-tick")
    marks = Drawing()
    for label in rulers.gauge_labels(p):
        marks += _label(label, p.text.stroke_mm, "gauge-label")
    for word, x, y in rulers.gauge_word_centres(p):
        marks += words(word, (x, y), g.word_height_mm, p.text.stroke_mm, "gauge-word")
    return Piece("movement_gauge", "Movement gauge, 8 in", drawing(items) + marks)


def _pivot_lines(p: SquadronsParams) -> list[Any]:
    w = float(p.pivot.line_width_mm)
    return [
        turned(bar(start, -w / 2, end, w / 2), angle)
        for angle, start, end in pivot_guide.guide_lines(p)
    ]


def _advance(p: SquadronsParams) -> Drawing:
    """The U-turn (a half circle and its arrow head) and 180, as the 3D guide lays them."""
    a = pivot_guide.advance_mark(p)
    w = float(p.pivot.line_width_mm)
    (ux, uy), radius = points([a.u_centre])[0], float(a.u_radius)
    half_circle = ring_segment(radius - w / 2, radius + w / 2, 90, 270)
    (ax, ay) = points([a.arrow_at])[0]
    head = Polygon([(x + ax, y + ay) for x, y in points(a.arrow)])
    shape = unary_union([affinity.translate(half_circle, ux, uy), head])
    numeral = words("180", a.numeral_centre, a.numeral_height, p.text.stroke_mm, "pivot-numeral")
    return (drawing(ink(shape, "pivot-advance")) + numeral).moved(0, 0, a.turn_deg)


def pivot(p: SquadronsParams) -> Piece:
    inner, radius = p.pivot_cup_radius_mm, p.pivot.radius_mm
    outline = Polygon(points(pivot_guide.outline_points(inner, radius)))
    *rays, centre_mark = _pivot_lines(p)  # guide_lines: the two rays, then the centre mark
    items: list[Any] = [
        *body(outline, "pivot-guide"),
        *(item for ray in rays for item in ink(ray, "pivot-ray")),
        *ink(centre_mark, "pivot-centre-mark"),
    ]
    marks = Drawing()
    for turn, at in pivot_guide.limit_numerals(p):
        numeral = words("45", at, p.pivot.numeral_height_mm, p.text.stroke_mm, "pivot-numeral")
        marks += numeral.moved(0, 0, turn)
    return Piece("pivot_guide", "Pivot guide", drawing(items) + marks + _advance(p))


def measures_sheet(p: SquadronsParams) -> PieceSheet:
    strips = tuple(ruler_strip(p, index) for index in range(1, constants.RULER_SECTIONS + 1))
    section_in = constants.RULER_LENGTH_IN // constants.RULER_SECTIONS
    return PieceSheet(
        "measures",
        "Range ruler, movement gauge and pivot guide, 1:1",
        (*strips, gauge(p), pivot(p)),
        notes=(
            "Glue this page onto thin card (about 1 mm) and cut along the black lines.",
            f"Range ruler, {constants.RULER_LENGTH_IN} in: {constants.RULER_SECTIONS} strips "
            f"of {section_in} in. Lay each strip's start on the dashed line of the one "
            "before, over its grey "
            "tab, the long edges in line (against a rule), and glue: the two half ticks at "
            f"the join make its inch tick. The ends are 0 and {constants.RULER_LENGTH_IN} in.",
            "Pivot guide: push its inner arc against the base's two front corners; the base "
            f"turns about its centre up to the {constants.PIVOT_LIMIT_DEG} degree rays.",
        ),
    )

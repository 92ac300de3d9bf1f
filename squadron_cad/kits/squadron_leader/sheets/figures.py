"""The figures the paper command reports, measured on the written PDF (not the drawing).

Paths come back from squadron_cad.paper.measure named by their role; this module knows
which roles are the game's hexes, counters, templates and ruler marks.
"""

from __future__ import annotations

import math
from typing import Any

from squadron_cad.paper.drawing import Point
from squadron_cad.paper.edition import MeasuredPage, PaperReport
from squadron_cad.paper.measure import Path2D, polyline_length

KINDS = ("straight", "bank", "turn")


def across_flats(ring: tuple[Point, ...]) -> float:
    """A regular hexagon's width across its flats: twice its centre-to-side distance."""
    cx = sum(x for x, _ in ring) / len(ring)
    cy = sum(y for _, y in ring) / len(ring)
    sides = zip(ring, ring[1:] + ring[:1], strict=True)
    return 2 * min(math.dist((cx, cy), ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)) for a, b in sides)


def turn_deg(points: list[Point]) -> float:
    """Heading change from the first segment to the last, counter-clockwise positive."""
    (a, b), (c, d) = points[:2], points[-2:]
    first = math.atan2(b[1] - a[1], b[0] - a[0])
    last = math.atan2(d[1] - c[1], d[0] - c[0])
    return (math.degrees(last - first) + 180) % 360 - 180


def tagged(pages: list[MeasuredPage], tag: str) -> list[Path2D]:
    return [path for page in pages for path in page.paths if path.tag == tag]


def _span(values: list[float]) -> list[float]:
    return [round(min(values), 4), round(max(values), 4)]


def hex_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    whole = [path.subpaths[0] for path in tagged(pages, "hex") if path.closed]
    counters = [path.subpaths[0] for path in tagged(pages, "plane-counter-cut")]
    return {
        "hex_across_flats_mm": _span([across_flats(ring) for ring in whole]),
        "plane_counter_across_flats_mm": _span([across_flats(ring) for ring in counters]),
    }


def template_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    straight = tagged(pages, "template-straight-cut")
    if straight:
        x0, y0, x1, y1 = straight[0].bounds()
        figures["straight_template_mm"] = [
            round(max(x1 - x0, y1 - y0), 4),
            round(min(x1 - x0, y1 - y0), 4),
        ]
    for kind in KINDS:
        paths = tagged(pages, f"move-path-{kind}")
        if paths:
            points = paths[0].points
            figures[f"{kind}_travel_mm"] = round(polyline_length(points), 4)
            figures[f"{kind}_turn_deg"] = round(abs(turn_deg(points)), 3)
    return figures


def longest_side(ring: tuple[Point, ...]) -> float:
    return max(math.dist(a, b) for a, b in zip(ring, ring[1:] + ring[:1], strict=True))


def ruler_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    """Each section's long edge is its length: a range (the dovetails sit off the edges)."""
    sections = [
        longest_side(path.subpaths[0])
        for index in (1, 2, 3)
        for path in tagged(pages, f"ruler-{index}-cut")
    ]
    if len(sections) != 3:
        return {}
    return {"ruler_sections_mm": _span(sections), "ruler_length_mm": round(sum(sections), 4)}


def measure(pages: list[MeasuredPage]) -> dict[str, Any]:
    return hex_figures(pages) | template_figures(pages) | ruler_figures(pages)


def summary_lines(report: PaperReport, size: str) -> list[str]:
    f = report.figures

    def both(key: str) -> str:
        low, high = f[key]
        return f"{low:.2f}" if abs(high - low) < 0.005 else f"{low:.2f}-{high:.2f}"

    travel = " / ".join(f"{f[f'{kind}_travel_mm']:.2f}" for kind in KINDS)
    turns = " / ".join(f"{f[f'{kind}_turn_deg']:g}" for kind in KINDS)
    length, width = f["straight_template_mm"]
    return [
        f"paper edition: {f['pages']} {size.upper() if size == 'a4' else size} pages -> "
        f"{report.pdf}; {report.svgs} page SVGs, {report.laser} laser/cutter SVGs, "
        f"{report.previews} previews",
        f"measured in the PDF: scale bars {both('scale_bar_100mm_mm')} mm and "
        f"{both('scale_bar_1in_mm')} mm (1 inch) on every page; hex "
        f"{both('hex_across_flats_mm')} mm across the flats, plane counter "
        f"{both('plane_counter_across_flats_mm')} mm",
        f"templates: straight {length:.2f} x {width:.2f} mm; a plane travels {travel} mm "
        f"and turns {turns} deg (straight / bank / turn); ruler "
        f"{f['ruler_length_mm']:.2f} mm in sections of {both('ruler_sections_mm')} mm",
    ]

"""The figures the paper command reports, measured on the written PDF (not the drawing).

Paths come back from squadron_cad.paper.measure named by their role; a piece's paths are
those inside its placement's box. The ruler is measured as a player assembles it: each
strip from its start edge to its dashed seam (the next strip's start goes there), so an
inch tick's place on the whole ruler is the strips before it plus its place on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from squadron_cad.kits.squadrons import constants
from squadron_cad.paper.edition import MeasuredPage, PaperReport
from squadron_cad.paper.measure import Path2D

SLACK_MM = 0.01


@dataclass(frozen=True)
class PlacedPiece:
    """One placed copy of a piece: its name, whether it was turned, and its paths."""

    name: str
    turned: bool
    paths: list[Path2D]

    def tagged(self, tag: str) -> list[Path2D]:
        return [path for path in self.paths if path.tag == tag]

    def along(self, point: tuple[float, float]) -> float:
        """Where a point lies along the piece's own x axis (turned a quarter: the page's y)."""
        return point[1] if self.turned else point[0]

    def span(self, path: Path2D) -> tuple[float, float]:
        values = [self.along(point) for point in path.points]
        return min(values), max(values)


def _inside(path: Path2D, box: list[float]) -> bool:
    x0, y0, x1, y1 = path.bounds()
    return (
        x0 >= box[0] - SLACK_MM
        and y0 >= box[1] - SLACK_MM
        and x1 <= box[2] + SLACK_MM
        and y1 <= box[3] + SLACK_MM
    )


def placed_pieces(pages: list[MeasuredPage], prefix: str) -> list[PlacedPiece]:
    """Every placed copy of the pieces whose name starts with `prefix`, in page order."""
    found = []
    for page in pages:
        for placement in page.placements:
            if placement["piece"].startswith(prefix):
                paths = [path for path in page.paths if _inside(path, placement["box"])]
                found.append(PlacedPiece(placement["piece"], placement["turned"], paths))
    return found


def _span(values: list[float]) -> list[float]:
    return [round(min(values), 4), round(max(values), 4)]


def tick_offsets(piece: PlacedPiece, tag: str, start: float) -> list[float]:
    """Each tick's centre line, from the piece's start edge."""
    return sorted(sum(piece.span(tick)) / 2 - start for tick in piece.tagged(tag))


def inch_errors(positions: list[float]) -> list[float]:
    """How far each position lies from the nearest whole inch."""
    return [pos - constants.INCH_MM * round(pos / constants.INCH_MM) for pos in positions]


def assembled_ruler(pages: list[MeasuredPage]) -> tuple[list[float], list[float]]:
    """(length of each strip from its start to its seam or end, every tick's place on the
    assembled ruler, the joins included) as measured on the pages."""
    strips = sorted(placed_pieces(pages, "range_ruler_strip_"), key=lambda s: s.name)
    lengths: list[float] = []
    ticks: list[float] = []
    for strip in strips:
        (outline,) = strip.tagged("ruler-strip-cut")
        start, end = strip.span(outline)
        seams = strip.tagged("ruler-seam")
        stop = strip.span(seams[0])[0] if seams else end
        offset = sum(lengths)
        ticks += [offset + x for x in tick_offsets(strip, "ruler-tick", start)]
        lengths.append(stop - start)
    joins = [sum(lengths[: k + 1]) for k in range(len(lengths) - 1)]
    return lengths, sorted(ticks + joins)


def ruler_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    lengths, ticks = assembled_ruler(pages)
    if not lengths:
        return {}
    return {
        "ruler_strips_mm": _span(lengths),
        "ruler_length_mm": round(sum(lengths), 4),
        "ruler_ticks": len(ticks),
        "ruler_worst_tick_mm": round(max(abs(e) for e in inch_errors(ticks)), 4),
    }


def gauge_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    gauges = placed_pieces(pages, "movement_gauge")
    if not gauges:
        return {}
    gauge = gauges[0]
    (outline,) = gauge.tagged("gauge-cut")
    start, end = gauge.span(outline)
    ticks = tick_offsets(gauge, "gauge-tick", start)
    return {
        "gauge_length_mm": round(end - start, 4),
        "gauge_ticks": len(ticks),
        "gauge_worst_tick_mm": round(max(abs(e) for e in inch_errors(ticks)), 4),
    }


def _sides(path: Path2D) -> list[float]:
    x0, y0, x1, y1 = path.bounds()
    return [x1 - x0, y1 - y0]


def counter_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    bases = [piece.tagged("ship-base-cut")[0] for piece in placed_pieces(pages, "ship_base_")]
    markers = [path for page in pages for path in page.paths if path.tag == "marker-cut"]
    figures: dict[str, Any] = {}
    if bases:
        figures["ship_bases"] = len(bases)
        figures["ship_base_mm"] = _span([side for base in bases for side in _sides(base)])
    if markers:
        figures["markers"] = len(markers)
        figures["marker_diameter_mm"] = _span([_sides(path)[0] for path in markers])
    return figures


def direction_deg(path: Path2D) -> float:
    """The heading of a bar's long side (its first long edge), in degrees."""
    ring = path.subpaths[0]
    edges = list(zip(ring, ring[1:] + ring[:1], strict=True))
    a, b = max(edges, key=lambda edge: math.dist(*edge))
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def off_axis_deg(ray: Path2D, axis: Path2D) -> float:
    """The angle between a ray and the forward axis (lines: 0..90 degrees)."""
    turn = (direction_deg(ray) - direction_deg(axis)) % 180
    return min(turn, 180 - turn)


def pivot_figures(pages: list[MeasuredPage]) -> dict[str, Any]:
    guides = placed_pieces(pages, "pivot_guide")
    if not guides:
        return {}
    (axis,) = guides[0].tagged("pivot-centre-mark")
    return {"pivot_rays_deg": _span([off_axis_deg(r, axis) for r in guides[0].tagged("pivot-ray")])}


def measure(pages: list[MeasuredPage]) -> dict[str, Any]:
    return (
        ruler_figures(pages) | gauge_figures(pages) | counter_figures(pages) | pivot_figures(pages)
    )


def summary_lines(report: PaperReport, size: str) -> list[str]:
    f = report.figures

    def both(key: str, digits: int = 2) -> str:
        low, high = f[key]
        same = abs(high - low) < 0.5 * 10**-digits
        return f"{low:.{digits}f}" if same else f"{low:.{digits}f}-{high:.{digits}f}"

    ruler_in = f["ruler_length_mm"] / constants.INCH_MM
    return [
        f"paper edition: {f['pages']} {size.upper() if size == 'a4' else size} pages -> "
        f"{report.pdf}; {report.svgs} page SVGs, {report.laser} laser/cutter SVGs, "
        f"{report.previews} previews",
        f"measured in the PDF: scale bars {both('scale_bar_100mm_mm')} mm and "
        f"{both('scale_bar_1in_mm')} mm (1 inch) on every page",
        f"range ruler: {f['ruler_length_mm']:.2f} mm ({ruler_in:.3f} in) from strips of "
        f"{both('ruler_strips_mm')} mm; its {f['ruler_ticks']} inch ticks within "
        f"{f['ruler_worst_tick_mm']:.3f} mm of 25.40 x n",
        f"movement gauge: {f['gauge_length_mm']:.2f} mm, {f['gauge_ticks']} ticks within "
        f"{f['gauge_worst_tick_mm']:.3f} mm of 25.40 x n; pivot guide rays at "
        f"{both('pivot_rays_deg')} deg",
        f"{f['ship_bases']} ship bases of {both('ship_base_mm')} mm; {f['markers']} markers of "
        f"{both('marker_diameter_mm')} mm",
    ]

"""The footprint sheet: blank face outlines at the cubeship's panel size, each with the
panel's cut-off key corner, for players to draw or paste the original footprints on (the
footprint art is not ours to print), cut out and stick in the panels.

Each outline is cut along its `cut` layer; a small filled triangle marks the key corner on
the print layer, so the footprint goes into its panel one way only.
"""

from __future__ import annotations

from pathlib import Path

from squadron_cad.kits.space_planes.params import SpacePlanesParams
from squadron_cad.kits.space_planes.parts.cubeship import panel_points
from squadron_cad.paper.drawing import BLACK, CUT_LINE_MM, Area, Drawing, Stroke, drawing
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Piece, PieceSheet

FACES = 6
KEY_MARK_SHARE = 0.18  # the key mark's legs, as a share of the panel's side
KEY_GAP_MM = 0.6  # the key mark stands this far inside the cut-off corner (along x and y)
SPARE = 6  # a spare set, for mistakes


def footprint(p: SpacePlanesParams) -> Drawing:
    """One blank footprint: the panel outline, its key corner at top right."""
    c = p.cube
    points = tuple(panel_points(c.panel_mm, c.key_mm))
    half, key = c.panel_mm / 2, c.key_mm
    # A right triangle echoing the cut-off corner: its long side parallel to the cut,
    # KEY_GAP_MM inside it; its legs KEY_MARK_SHARE of the panel.
    tip = half - key / 2 - KEY_GAP_MM
    leg = c.panel_mm * KEY_MARK_SHARE
    mark = ((tip, tip - leg), (tip - leg, tip), (tip - leg, tip - leg))
    return drawing(
        Stroke(points, CUT_LINE_MM, BLACK, "cut", closed=True, tag="footprint-outline"),
        Area((mark,), BLACK, "print", tag="footprint-key"),
    )


def footprint_sheet(p: SpacePlanesParams) -> PieceSheet:
    c = p.cube
    copies = FACES * c.ships + SPARE
    notes = (
        f"Blank cubeship footprints, {c.panel_mm:g} mm: one for each face of {c.ships} "
        f"cubeships and {SPARE} spare.",
        "Draw or paste a footprint on each, cut along the outline and glue it into a panel, "
        "the cut-off corner in the panel's cut-off corner (the triangle marks it).",
    )
    piece = Piece("footprint", f"Footprint, {c.panel_mm:g} mm", footprint(p), copies=copies)
    return PieceSheet("footprints", "Cubeship footprints", (piece,), notes)


def paper_kit(p: SpacePlanesParams, credit: str) -> PaperKit:
    return PaperKit(
        name="space_planes_paper",
        title="Space Planes",
        credit=credit,
        sheets=(footprint_sheet(p),),
    )


def write_paper(p: SpacePlanesParams, out: Path, previews: bool, credit: str) -> PaperReport:
    """The footprint sheet into `out` (a PDF, one SVG per page, laser SVGs)."""
    report = write_edition(paper_kit(p, credit), p.paper, out, previews=previews)
    copies = FACES * p.cube.ships + SPARE
    report.summary = [
        f"{copies} blank footprints of {p.cube.panel_mm:g} mm with the key corner, "
        f"on {len(report.pages)} page(s) -> {report.pdf}"
    ]
    return report

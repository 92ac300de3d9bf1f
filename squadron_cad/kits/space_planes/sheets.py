"""The footprint sheet: blank face outlines at the size of a cubeship's footprint recess
(the face less its rounded edge and rim), each with the corner cut off that clears the
recess's key, for players to print the game's own footprint art onto (it is not ours to
print), cut out and stick in the recesses.

Each outline is cut along its `cut` layer; a small filled triangle beside the cut-off
corner shows which corner of the art goes there, so the footprint goes in one way only.
"""

from __future__ import annotations

from pathlib import Path

from squadron_cad.kits.space_planes.params import SpacePlanesParams
from squadron_cad.kits.space_planes.parts.cubeship import footprint_points
from squadron_cad.paper.drawing import BLACK, CUT_LINE_MM, Area, Drawing, Stroke, drawing
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Piece, PieceSheet

FACES = 6
KEY_MARK_SHARE = 0.18  # the key mark's legs, as a share of the footprint's side
KEY_GAP_MM = 0.6  # the key mark stands this far inside the cut-off corner (along x and y)
SPARE = 6  # a spare set, for mistakes


def footprint(p: SpacePlanesParams) -> Drawing:
    """One blank footprint: the recess's outline, its key corner (cut off) at top right."""
    c = p.cube
    size, cut = c.footprint_mm, c.key_cut_mm
    points = tuple(footprint_points(size, cut))
    # A right triangle echoing the cut-off corner: its long side parallel to the cut,
    # KEY_GAP_MM inside it; its legs KEY_MARK_SHARE of the footprint.
    tip = size / 2 - cut / 2 - KEY_GAP_MM
    leg = size * KEY_MARK_SHARE
    mark = ((tip, tip - leg), (tip - leg, tip), (tip - leg, tip - leg))
    return drawing(
        Stroke(points, CUT_LINE_MM, BLACK, "cut", closed=True, tag="footprint-outline"),
        Area((mark,), BLACK, "print", tag="footprint-key"),
    )


def copies(p: SpacePlanesParams) -> int:
    """One for each face of every cubeship, and a spare set."""
    return FACES * p.ships + SPARE


def footprint_sheet(p: SpacePlanesParams) -> PieceSheet:
    c = p.cube
    notes = (
        f"Cubeship footprints, {c.footprint_mm:g} mm: one for each face of {p.ships} "
        f"cubeships and {SPARE} spare. Print the game's footprint art into the outlines at "
        f"{c.footprint_mm:g} mm, the corner with the triangle where the art's top-right "
        "corner goes.",
        "Cut along the outline and glue each into a face's recess, the cut-off corner "
        "beside the recess's key (the player's mark on top, a square on the other faces).",
    )
    piece = Piece("footprint", f"Footprint, {c.footprint_mm:g} mm", footprint(p), copies=copies(p))
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
    report.summary = [
        f"{copies(p)} blank footprints of {p.cube.footprint_mm:g} mm with the key corner, "
        f"on {len(report.pages)} page(s) -> {report.pdf}"
    ]
    return report

"""The toy kit's paper edition: a sheet of three cards to cut out and a 900 mm table
strip tiled over pages, declared with the engine's paper pieces only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shapely.geometry import box

from squadron_cad.paper.drawing import BLACK, Label, Stroke, area, drawing, outline_strokes
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Piece, PieceSheet, TiledSheet


def paper_kit() -> PaperKit:
    card = box(0, 0, 63.5, 88.9)  # a poker card
    piece = Piece(
        "objective",
        "Objective marker",
        drawing(
            area(card, "#eeeeee", "print"),
            outline_strokes(card, 0.25, BLACK, "cut", tag="objective-cut"),
            Label("SCAN", (31.75, 44), 6, anchor="middle"),
        ),
        copies=3,
    )
    lines = [
        Stroke(((x, 0.0), (x, 900.0)), 0.3, BLACK, "print", tag="inch") for x in range(0, 901, 25)
    ]
    return PaperKit(
        "toy",
        "Toy kit",
        "Toy kit by nobody, CC0",
        (PieceSheet("markers", "Markers", (piece,)), TiledSheet("table", "Table", drawing(lines))),
    )


def write_paper(params: Any, out: Path, previews: bool) -> PaperReport:
    return write_edition(paper_kit(), params.paper, out, previews=previews)

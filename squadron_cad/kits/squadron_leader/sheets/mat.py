"""The hex battle mat: `paper.mat_columns` x `paper.mat_rows` hexes, tiled over pages."""

from __future__ import annotations

from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.paper.drawing import Stroke, drawing
from squadron_cad.paper.hexgrid import HexGrid, rectangle
from squadron_cad.paper.sheet import TiledSheet

LINE_MM = 0.35
LINE = "#6e6e6e"  # mid grey: visible, yet counters and pencil marks stand out


def grid(p: SquadronLeaderParams) -> HexGrid:
    return HexGrid(p.paper.hex_across_flats_mm, p.paper.hex_orientation)


def mat_sheet(p: SquadronLeaderParams) -> TiledSheet:
    hex_grid = grid(p)
    cells = rectangle(hex_grid, p.paper.mat_columns, p.paper.mat_rows)
    lines = [
        Stroke(tuple(hex_grid.corners(cell)), LINE_MM, LINE, "print", closed=True, tag="hex")
        for cell in cells
    ]
    flats = p.paper.hex_across_flats_mm
    return TiledSheet(
        "hex-mat",
        f"Hex battle mat, {p.paper.mat_columns} x {p.paper.mat_rows} hexes of {flats:g} mm",
        drawing(lines),
    )

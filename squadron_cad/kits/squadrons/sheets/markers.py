"""Objective and entry markers: the 3D tokens' discs (parts/objectives.py), their symbols
and names, the Destroy token's profile and its hit-point notches cut into the rim.

How many of each: the count the kit prints of the part (its registry's count for these
parameters), so paper and plastic editions hold the same markers.
"""

from __future__ import annotations

from typing import Any

from shapely import affinity
from shapely.geometry import Polygon
from shapely.ops import unary_union

from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import objectives
from squadron_cad.kits.squadrons.parts.registry import PARTS
from squadron_cad.kits.squadrons.sheets.style import body, circle, ink, points, words
from squadron_cad.paper.drawing import drawing
from squadron_cad.paper.sheet import Piece, PieceSheet


def marker_kind(part_name: str) -> str | None:
    """The token's symbol kind ("scan", "entry", ...) named in its part's name."""
    return next((kind for kind in objectives.SYMBOLS if kind in part_name.split("_")), None)


def marker_counts(p: SquadronsParams) -> list[tuple[str, str, int]]:
    """(part name, kind, count) of every marker part the kit prints, in the kit's order."""
    counts = []
    for part in PARTS:
        kind = marker_kind(part.name) if part.name in constants.OBJECTIVE_PARTS else None
        if kind is not None and part.count(p) > 0:
            counts.append((part.name, kind, part.count(p)))
    return counts


def disc(p: SquadronsParams, kind: str) -> Any:
    """The token's outline: its circle, less the rim notches."""
    o = p.objective
    notches = [
        Polygon(points(objectives.notch_points(o, a))) for a in objectives.notch_angles(kind)
    ]
    shape = circle(float(o.diameter_mm))
    return shape.difference(unary_union(notches)) if notches else shape


def symbol(p: SquadronsParams, kind: str) -> Any:
    o = p.objective
    size, lift = float(o.symbol_size_mm), float(objectives.symbol_lift(o, kind))
    shapes = [Polygon(outline).buffer(0) for outline in objectives.SYMBOLS[kind]()]
    scaled = affinity.scale(unary_union(shapes), size, size, origin=(0, 0))
    return affinity.translate(scaled, 0, lift)


def marker_piece(p: SquadronsParams, name: str, kind: str, copies: int) -> Piece:
    o = p.objective
    items = [*body(disc(p, kind), "marker"), *ink(symbol(p, kind), "marker-symbol")]
    marks = drawing(items)
    for line, y in objectives.word_lines(o, kind):
        marks += words(line, (0, y), o.name_height_mm, p.text.stroke_mm, "marker-name")
    title = f"{objectives.word_lines(o, kind)[0][0].capitalize()} ({float(o.diameter_mm):g} mm)"
    return Piece(name, title, marks, copies=copies)


def markers_sheet(p: SquadronsParams) -> PieceSheet:
    counts = marker_counts(p)
    listed = ", ".join(f"{count} {kind.capitalize()}" for _name, kind, count in counts)
    return PieceSheet(
        "markers",
        "Objective and entry markers",
        tuple(marker_piece(p, name, kind, count) for name, kind, count in counts),
        notes=(
            f"Markers, {float(p.objective.diameter_mm):g} mm, as many as the 3D kit prints "
            f"({listed}). Glue the page onto card and cut along the black lines; the "
            "Destroy marker's two notches count its Hit Points.",
        ),
    )

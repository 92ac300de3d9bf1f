"""The move templates and the range ruler at 1:1, for play without a grid.

Outlines, notches, chevrons, grooves, marks and numerals come from sheets/outlines.py,
which reads the 3D parts' own geometry. On paper each template also shows the path a
plane's centre travels (start notch centre to end notch centre), which is what the 3D
invariants measure.
"""

from __future__ import annotations

import math

from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets import outlines
from squadron_cad.kits.squadron_leader.sheets.style import GUIDE, body, holes, ink
from squadron_cad.paper.drawing import BLACK, Label, Stroke, drawing
from squadron_cad.paper.sheet import Piece, PieceSheet

MOVE_NAMES = {"straight": "STRAIGHT", "bank": "BANK", "turn": "TURN"}
PATH_MM = 0.25


def centre_path(p: SquadronLeaderParams, kind: str) -> Stroke:
    """Where a plane's centre travels: start notch centre, the path, end notch centre."""
    path = move_paths.path(p, kind)
    offset = float(p.notch_offset_mm)
    length = float(path.length)
    steps = 2 if not path.is_curved else max(8, math.ceil(float(path.turn_deg) / 1.5))
    points = [(-offset, 0.0)]
    for i in range(steps + 1):
        pose = path.pose_at(length * i / steps)
        points.append((float(pose.x), float(pose.y)))
    end = path.beyond_end(offset)
    points.append((float(end.x), float(end.y)))
    return Stroke(
        tuple(points), PATH_MM, GUIDE, "print", dash_mm=(2.0, 1.5), tag=f"move-path-{kind}"
    )


def _name(p: SquadronLeaderParams, kind: str, distance: float, side_mm: float) -> Label:
    """The move's name along its path, `side_mm` to the left of the centre line."""
    path = move_paths.path(p, kind)
    pose = path.pose_at(distance)
    heading = math.radians(float(pose.heading_deg))
    at = (float(pose.x) - side_mm * math.sin(heading), float(pose.y) + side_mm * math.cos(heading))
    return Label(
        MOVE_NAMES[kind],
        at,
        3.0,
        anchor="middle",
        angle_deg=float(pose.heading_deg),
        tag=f"name-{kind}",
    )


def single(p: SquadronLeaderParams, kind: str) -> Piece:
    shape, chevron_holes = outlines.single_template(p, kind)
    path = move_paths.path(p, kind)
    items = [
        *body(shape, f"template-{kind}"),
        *holes(chevron_holes, f"chevrons-{kind}"),
        centre_path(p, kind),
    ]
    # a third along and to the left: clear of the notch and of the chevrons in the middle
    label = _name(p, kind, float(path.length) * 0.28, 7.0)
    title = f"{kind.capitalize()} template (cost {path.cost})"
    return Piece(f"template_{kind}", title, drawing(items, [label]))


def all_in_one(p: SquadronLeaderParams) -> Piece:
    shape, marks = outlines.fused_template(p)
    items = [*body(shape, "template-all"), *ink(marks, "engrave", "template-all-marks")]
    return Piece(
        "template_all",
        "All-in-one template (turn it over to turn right)",
        drawing(items),
    )


def ruler_section(p: SquadronLeaderParams, index: int) -> Piece:
    shape, marks = outlines.ruler_section(p, index)
    numeral = [
        Stroke(tuple(line), p.text.stroke_mm, BLACK, "engrave", tag="ruler-numeral")
        for line in outlines.ruler_numeral(p, index)
    ]
    items = [*body(shape, f"ruler-{index}"), *ink(marks, "engrave", "ruler-mark"), *numeral]
    return Piece(f"range_ruler_{index}", f"Range ruler, section {index}", drawing(items))


def templates_sheet(p: SquadronLeaderParams) -> PieceSheet:
    pieces = (all_in_one(p), single(p, "straight"), single(p, "bank"), single(p, "turn"))
    return PieceSheet(
        "templates",
        "Move templates, 1:1",
        pieces,
        notes=(
            "Without a grid: glue this page onto thin card (about 1 mm) and cut along the "
            "black lines. The all-in-one template or the three single ones: either set "
            "plays. The dashed line on a single template is the path the plane's centre "
            "travels, from the start notch's centre to the end notch's "
            f"({float(p.straight_move_mm):.1f} mm for a straight).",
        ),
    )


def ruler_sheet(p: SquadronLeaderParams) -> PieceSheet:
    third = float(p.template_length_mm)
    length = float(p.ruler_length_mm)
    return PieceSheet(
        "ruler",
        "Range ruler, 1:1",
        tuple(ruler_section(p, index) for index in (1, 2, 3)),
        notes=(
            f"Range ruler: three sections of {third:g} mm joined by their dovetails, "
            f"{length:g} mm in all; its thirds are ranges 1, 2 and 3 from the firing plane.",
            f"Range string: tie two knots {length:g} mm apart (three straight templates, "
            f"3 x {third:g} mm, knot centre to knot centre); a knot or an ink mark at "
            f"{third:g} mm and {2 * third:g} mm from the first knot splits ranges 1, 2 and 3.",
        ),
    )

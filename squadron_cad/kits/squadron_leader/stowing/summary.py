"""The chosen layout in words, for `squadron-cad fit` (no rendering needed)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from squadron_cad.fit.layout import Layout
from squadron_cad.kits.squadron_leader.parts.registry import PARTS

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

_WORDS = {part.name: part.words for part in PARTS}


def fit_lines(design: SquadronLeaderDesign) -> list[str]:
    p, layout = design.params, design.layout
    tin, box, margins = p.tin, layout.box, layout.margins
    approximate = ", sizes approximate" if tin.approximate else ""
    lines = [
        f"tin:    {tin.inner_length_mm:g} x {tin.inner_width_mm:g} x {tin.inner_depth_mm:g} mm"
        f" inside, corner r{tin.corner_radius_mm:g} ({tin.name}{approximate})",
        f"box:    {box.length:g} x {box.width:g} x {box.height:g} mm outside, lid included"
        f" ({p.box.tin_clearance_mm:g} mm clearance to the tin); walls {box.wall:g},"
        f" floor {box.floor:g}, lid {box.lid_thickness:g} mm",
        f"layout: {layout.strategy}",
        *(f"  {line.replace('_', ' ')}" for line in layout.arrangement),
        f"pieces: {pieces_line(layout)}",
        f"spare room inside the box: length {margins['x']:.1f} mm, width {margins['y']:.1f} mm,"
        f" depth {margins['z']:.1f} mm; tightest rounded corner {margins['corner']:.1f} mm",
        f"limited by: {_limit_words(layout.limited_by)}",
    ]
    if p.box.leave_out:
        lines.append(f"left out (box.leave_out): {', '.join(p.box.leave_out)}")
    return lines


def pieces_line(layout: Layout) -> str:
    counts = Counter(placed.part for placed in layout.placements)
    return ", ".join(f"{n} x {_WORDS.get(part, part)}" for part, n in counts.items())


def _limit_words(axis: str) -> str:
    return {
        "x": "the box's length",
        "y": "the box's width",
        "z": "the depth (tin depth minus floor, lid and headroom)",
        "corner": "a rounded corner of the tin",
    }[axis]

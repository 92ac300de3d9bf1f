"""The fit report every kit prints (`squadron-cad fit`), from its Layout: the tin, the box,
the layout, the pieces, the spare room in every direction and what limited it.

A kit's `fit_lines` calls `fit_report(design, ...)` and adds only its own words: what the
box holds ("one player's 10 ships...") and notes (pieces left out by a parameter).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from squadron_cad.fit.layout import BoxShape, Layout, Placement, held_by, pocket_label
from squadron_cad.kit import Part, kit_of

_NUMBERED = re.compile(r"^(.*\D) \d+$")  # "ship base 7" is one of the kit's ship bases


def fit_report(design: Any, holds: str = "", notes: Sequence[str] = ()) -> list[str]:
    """The report's lines for a kit's design (its params and layout); `holds` says in the
    kit's words what the box holds, `notes` are further lines (each printed as given)."""
    params, layout = design.params, design.layout
    lines = [_tin_line(params.tin), _box_line(layout), f"layout: {layout.strategy}"]
    parts = kit_of(params).parts
    lines += [f"  {line.replace('_', ' ')}" for line in layout.arrangement]
    if not layout.arrangement:
        lines += pocket_lines(layout, parts)
    lines.append(f"pieces: {pieces_line(layout.placements, parts)}")
    if holds:
        lines.append(f"holds:  {holds}")
    lines += [margins_line(layout), f"limited by: {limit_words(layout.limited_by, layout.box)}"]
    return lines + list(notes)


def _tin_line(tin: Any) -> str:
    approximate = ", sizes approximate" if tin.approximate else ""
    return (
        f"tin:    {tin.inner_length_mm:g} x {tin.inner_width_mm:g} x {tin.inner_depth_mm:g} mm"
        f" inside, corner r{tin.corner_radius_mm:g} ({tin.name}{approximate})"
    )


def _box_line(layout: Layout) -> str:
    box = layout.box
    lid = f", lid {box.lid_thickness:g} mm" if layout.lid_part else ", no lid"
    outside = "lid included" if layout.lid_part else "an open tray"
    return (
        f"box:    {box.length:g} x {box.width:g} x {box.height:g} mm outside, {outside}"
        f" ({box.tin_gap:g} mm clearance to the tin); walls {box.wall:g},"
        f" floor {box.floor:g}{lid}"
    )


def pocket_lines(layout: Layout, parts: Iterable[Part]) -> list[str]:
    """Each pocket: its size, its depth and what lies in it (a layout with no arrangement
    of its own to tell)."""
    names = [pocket.name for pocket in layout.pockets]
    lines = []
    for pocket in layout.pockets:
        held = held_by(layout, pocket)
        width, length = pocket.size
        depth = pocket.z_top - pocket.z_bottom
        lines.append(
            f"  {pocket_label(pocket.name, names)}: {width:.1f} x {length:.1f} mm, {depth:.1f} mm"
            f" deep" + (f", {pieces_line(held, parts)}" if held else "")
        )
    return lines


def pieces_line(placements: Iterable[Placement], parts: Iterable[Part]) -> str:
    """How many of each piece, numbered parts counted together ("10 x ship base"), in the
    order they are first placed."""
    words = {part.name: part.words for part in parts}
    nouns = []
    for placed in placements:
        noun = words.get(placed.part, placed.part.replace("_", " "))
        numbered = _NUMBERED.match(noun)
        nouns.append(numbered.group(1) if numbered else noun)
    return ", ".join(f"{n} x {noun}" for noun, n in Counter(nouns).items())


def margins_line(layout: Layout) -> str:
    margins = layout.margins
    return (
        f"spare room inside the box: length {margins['x']:.1f} mm, width {margins['y']:.1f} mm,"
        f" depth {margins['z']:.1f} mm; tightest rounded corner {margins['corner']:.1f} mm"
    )


def limit_words(axis: str, box: BoxShape) -> str:
    """What the smallest margin is, in a maker's words."""
    taken = ["floor"] + ["lid"] * bool(box.lid_thickness) + ["headroom"] * bool(box.headroom)
    listed = ", ".join(taken[:-1]) + f" and {taken[-1]}" if len(taken) > 1 else taken[0]
    return {
        "x": "the box's length",
        "y": "the box's width",
        "z": f"the depth (tin depth minus {listed})",
        "corner": "a rounded corner of the tin",
    }[axis]

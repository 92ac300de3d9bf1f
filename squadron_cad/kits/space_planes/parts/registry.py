"""The kit's parts, in one list.

Ship numbers: the engine's Part is one STL with no per-copy parameter, so each numbered
cubeship is a part of its own (cubeship_1..cubeship_6, the most the rules field); those
above cube.ships count 0.
"""

from __future__ import annotations

from typing import Any

from squadron_cad.kit import Part, PrintNotes
from squadron_cad.kits.space_planes.constants import GAUGE, HOLDER, MAX_SHIPS, cube_part
from squadron_cad.kits.space_planes.params import SpacePlanesParams
from squadron_cad.kits.space_planes.parts import box, cubeship, die_holder, gauge


def _gauge_notes(p: SpacePlanesParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=p.gauge.numeral_height_mm,
        engraving_depth_mm=max(p.gauge.mark_depth_mm, p.text.depth_mm),
    )


def _cube_notes(p: SpacePlanesParams) -> PrintNotes:
    c = p.cube
    return PrintNotes(
        text_height_mm=c.numeral_height_mm if c.numbered else None,
        engraving_depth_mm=max(c.panel_depth_mm, p.text.depth_mm if c.numbered else 0.0),
        engraved_below_mm=c.panel_depth_mm,  # the panel of the face on the bed
        # The 2.4 mm numerals' counters and lands fall short (issue 34): the Space Planes
        # fix of the cube's text lifts this.
        text_spacing_waived="the cube numerals are being redrawn (issue 34)",
    )


def _ship_rule(number: int) -> Any:
    def count(p: SpacePlanesParams) -> int:
        return 1 if number <= p.cube.ships else 0

    return count


def _ships(p: SpacePlanesParams) -> int:
    return p.cube.ships


def _cube(number: int) -> Part:
    return Part(
        cube_part(number),
        f"Cubeship {number}: a recessed footprint panel on each face, keyed corner, number",
        cubeship.builder(number),
        "shared",
        count_rule=_ship_rule(number),
        orientation="on a face, number up",
        print_notes=_cube_notes,
        noun=f"cubeship {number}",
        camera="0,0,0,55,0,25,80",
    )


PARTS: tuple[Part, ...] = (
    Part(
        GAUGE,
        "Joker gauge: a card with fences along a long and a short edge, move marks, distances",
        gauge.build,
        "shared",
        per_kit=1,
        orientation="fences up",
        print_notes=_gauge_notes,
        noun="joker gauge",
    ),
    *(_cube(n) for n in range(1, MAX_SHIPS + 1)),
    Part(
        HOLDER,
        "Plane-die holder: a tray for the d6 that travels beside its cube",
        die_holder.build,
        "shared",
        count_rule=_ships,
        orientation="open side up",
        noun="die holder",
    ),
    Part(
        "box",
        "Box: a pocket for the deck and gauge, each cubeship and each die in its holder",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
        slow_render=True,
    ),
)

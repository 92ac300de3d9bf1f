"""The kit's parts, in one list.

The cubeships are the players' parts: the six of the rules shared evenly, players x
floor(6 / players), each player's in their colour with their mark as the key of the top
face (one STL per player, cubeship.p1, cubeship.p2, ...; on the plates the mark is a
second-colour volume). One plane die and its holder go with each cubeship.
"""

from __future__ import annotations

from squadron_cad.kit import Part, PrintNotes
from squadron_cad.kits.space_planes.constants import BOX, CUBE, GAUGE, HOLDER, LID
from squadron_cad.kits.space_planes.params import SpacePlanesParams
from squadron_cad.kits.space_planes.parts import box, cubeship, die_holder, gauge


def _gauge_notes(p: SpacePlanesParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=p.gauge.numeral_height_mm,
        engraving_depth_mm=max(p.gauge.mark_depth_mm, p.text.depth_mm),
    )


def _cube_notes(p: SpacePlanesParams) -> PrintNotes:
    depth = p.cube.recess_depth_mm
    return PrintNotes(engraving_depth_mm=depth, engraved_below_mm=depth)


def _ships(p: SpacePlanesParams) -> int:
    return p.ships


def _recess_floor(p: SpacePlanesParams) -> float:
    """The mark stands from the top recess's floor: drawn in the marks' colour from there."""
    return float(p.cube.side_mm - p.cube.recess_depth_mm)


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
    Part(
        CUBE,
        "Cubeship: a footprint recess on each face, keyed; the player's mark on top",
        cubeship.build,
        "player",
        count_rule=_ships,
        player_builder=cubeship.build_cube,
        orientation="on a face, the mark's face up",
        colour="player",
        accent_from_mm=_recess_floor,
        accent_within=cubeship.mark_outline,
        print_notes=_cube_notes,
        noun="cubeship",
        camera="0,0,0,55,0,25,80",
    ),
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
        BOX,
        "Box: a pocket for the deck and gauge, the cubeships and the dice in their holders",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
        slow_render=True,
    ),
    Part(
        LID,
        "Box lid: a cap whose lip laps the box's tongue; turned over, a dice tray",
        box.build_lid,
        "box",
        per_kit=1,
        orientation="top down, skirt up",
        noun="box lid",
    ),
)

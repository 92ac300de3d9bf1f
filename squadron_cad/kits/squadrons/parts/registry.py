"""The kit's parts, in one list.

Ship numbers: the engine's Part is one STL whose count is per player, per kit or a rule,
and it has no per-copy parameter; so each ship number is a part of its own
(ship_base_1..ship_base_15, the most the rules allow, and tracker_card_1..15 likewise),
and those above base.per_player count 0. The ruler's four 4-inch sections are four parts,
as Squadron Leader's are. The markers' counts follow from the missions
(constants.markers_needed).
"""

from __future__ import annotations

from typing import Any

from squadron_cad.kit import Group, Part, PrintNotes
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.constants import base_part, card_part, ruler_part
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import (
    box,
    flagship,
    objectives,
    pivot_guide,
    rulers,
    ship_base,
    tracker,
)

MAX_SHIPS = 15  # the rules: 5 to 15 ships a squadron (base.per_player's upper bound)


def _base_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=p.base.numeral_height_mm,
        engraving_depth_mm=max(p.base.line_depth_mm, p.text.depth_mm),
    )


def _ruler_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=p.ruler.numeral_height_mm,
        engraving_depth_mm=max(p.ruler.mark_depth_mm, p.text.depth_mm),
    )


def _gauge_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=min(p.gauge.numeral_height_mm, p.gauge.word_height_mm),
        engraving_depth_mm=max(p.ruler.mark_depth_mm, p.text.depth_mm),
    )


def _pivot_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(
        text_height_mm=min(p.pivot.numeral_height_mm, p.advance_numeral_height_mm),
        engraving_depth_mm=p.text.depth_mm,
    )


def _objective_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(text_height_mm=p.objective.name_height_mm, engraving_depth_mm=p.text.depth_mm)


def _card_notes(p: SquadronsParams) -> PrintNotes:
    d = p.stat_dial
    return PrintNotes(
        text_height_mm=d.numeral_height_mm,
        engraving_depth_mm=max(p.text.depth_mm, d.detent_depth_mm),
        engraved_below_mm=d.detent_depth_mm,
    )


def _flagship_notes(p: SquadronsParams) -> PrintNotes:
    return PrintNotes(engraving_depth_mm=p.text.depth_mm)


def _mission_notes(p: SquadronsParams) -> PrintNotes:
    d = p.mission_card
    return PrintNotes(
        text_height_mm=d.numeral_height_mm,
        engraving_depth_mm=max(p.text.depth_mm, d.detent_depth_mm),
        engraved_below_mm=d.detent_depth_mm,
    )


def _symbol_base(p: SquadronsParams) -> float:
    return float(p.objective.thickness_mm)


def _base_recess_floor(p: SquadronsParams) -> float:
    """The player's marks stand from their recess floor: the marks' colour from there."""
    return float(p.base.thickness_mm - p.text.depth_mm)


def _card_recess_floor(p: SquadronsParams) -> float:
    return float(p.stat_dial.card_thickness_mm - p.text.depth_mm)


def _ships_rule(number: int) -> Any:
    def count(p: SquadronsParams) -> int:
        return p.players if number <= p.base.per_player else 0

    return count


def _clips(p: SquadronsParams) -> int:
    """A Command and a Hit Points clip per ship, and the mission tracker's."""
    return len(p.stat_dial.labels) * p.base.per_player * p.players + 1


def _markers(kind: str) -> Any:
    def count(p: SquadronsParams) -> int:
        return constants.markers_needed(p.players)[kind]

    return count


def _base(number: int) -> Part:
    return Part(
        base_part(number),
        f"Ship base {number}: zone lines, Fixed line, number {number}, player's mark, peg socket",
        ship_base.builder(number),
        "player",
        player_builder=ship_base.player_builder(number),
        count_rule=_ships_rule(number),
        orientation="lines up",
        colour="player",
        accent_from_mm=_base_recess_floor,
        accent_within=ship_base.mark_outlines,
        print_notes=_base_notes,
        noun=f"ship base {number}",
    )


def _ruler(index: int) -> Part:
    return Part(
        ruler_part(index),
        f"Range ruler section {index} of {constants.RULER_SECTIONS} (4 inches, dovetail joint)",
        rulers.section_builder(index),
        "shared",
        per_kit=1,
        orientation="ticks up",
        print_notes=_ruler_notes,
        noun=f"ruler section {index}",
    )


def _card(number: int) -> Part:
    return Part(
        card_part(number),
        f"Ship tracker card {number}: Command and Hit Points rows 0..6, number {number}, "
        "player's mark",
        tracker.card_builder(number),
        "player",
        player_builder=tracker.card_player_builder(number),
        count_rule=_ships_rule(number),
        orientation="numerals up",
        colour="player",
        accent_from_mm=_card_recess_floor,
        accent_within=tracker.mark_outline,
        print_notes=_card_notes,
        noun=f"tracker card {number}",
    )


def _objective(name: str, kind: str, title: str, group: Group = "shared") -> Part:
    """A 40 mm marker; entry points belong to the players (two each in mission 1), so the
    entry markers print in the players' colours and travel in their ship boxes."""
    return Part(
        name,
        title,
        objectives.builder(kind),
        group,
        count_rule=_markers(kind),
        colour="player" if group == "player" else "neutral",
        orientation="symbol up",
        accent_from_mm=_symbol_base,
        print_notes=_objective_notes,
        noun=name.replace("_", " "),
    )


PARTS: tuple[Part, ...] = (
    *(_base(n) for n in range(1, MAX_SHIPS + 1)),
    *(_card(n) for n in range(1, MAX_SHIPS + 1)),
    Part(
        "tracker_clip",
        "Tracker clip: slides along a row, clicks at each value (ships' and mission tracker)",
        tracker.build_clip,
        "player",
        count_rule=_clips,
        orientation="on its side, C profile on the bed",
        colour="player",
        noun="tracker clip",
    ),
    *(_ruler(k) for k in range(1, constants.RULER_SECTIONS + 1)),
    Part(
        "movement_gauge",
        "Movement gauge: 8 inches, 2 (Advance, Evasion), +3 (Boost), 6, 7, 8",
        rulers.build_gauge,
        "shared",
        per_kit=1,
        orientation="ticks up",
        print_notes=_gauge_notes,
        noun="movement gauge",
    ),
    Part(
        "pivot_guide",
        "Pivot guide: a cup round the base's front corners, the 45-degree limit about its "
        "centre, the 180 Advance pivot",
        pivot_guide.build,
        "shared",
        per_kit=1,
        orientation="flat",
        print_notes=_pivot_notes,
        noun="pivot guide",
    ),
    _objective("objective_scan", "scan", "Scan objective: 40 mm, raised sensor sweep"),
    _objective("objective_recover", "recover", "Recover objective: 40 mm, raised arrow"),
    _objective("objective_destroy", "destroy", "Destroy objective: burst, D4+ T4, two HP notches"),
    _objective("entry_marker", "entry", "Entry marker: 40 mm, raised arrow", "player"),
    Part(
        "flagship_marker",
        "Squadron Leader's marker: a plate with a star, threaded on the leader's flight peg",
        flagship.build,
        "player",
        per_player=1,
        orientation="flat",
        colour="player",
        print_notes=_flagship_notes,
        noun="Squadron Leader's marker",
    ),
    Part(
        "mission_tracker",
        "Mission tracker: rounds 1..4 under a clip, triangles over the rounds the missions change",
        tracker.build_mission_card,
        "shared",
        per_kit=1,
        orientation="numerals up",
        print_notes=_mission_notes,
        noun="mission tracker",
    ),
    Part(
        "box",
        "Box: the table's pieces (ruler, gauge, pivot guide, objectives, mission tracker), "
        "sized to fit the container",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
        slow_render=True,
    ),
    Part(
        "box_lid",
        "Box lid: a cap whose lip laps the box's tongue; turned over, a tray",
        box.build_lid,
        "box",
        per_kit=1,
        orientation="top down, skirt up",
        noun="box lid",
    ),
    Part(
        "ship_box",
        "Ship box: one player's squadron (bases, tracker cards and clips, the leader's marker, "
        "entry markers), sized to fit its container",
        box.build_ship_box,
        "player",
        per_player=1,
        orientation="floor down",
        colour="player",
        slow_render=True,
        noun="ship box",
    ),
    Part(
        "ship_box_lid",
        "Ship box lid: a cap whose lip laps the ship box's tongue",
        box.build_ship_box_lid,
        "player",
        per_player=1,
        orientation="top down, skirt up",
        colour="player",
        noun="ship box lid",
    ),
)

"""The kit's parts, in one list.

Ship numbers: the engine's Part is one STL whose count is per player, per kit or a rule,
and it has no per-copy parameter; so each ship number is a part of its own
(ship_base_1..ship_base_15, the most the rules allow), and those above base.per_player
count 0. The ruler's four 4-inch sections are four parts, as Squadron Leader's are.
"""

from __future__ import annotations

from typing import Any

from squadron_cad.kit import Part, PrintNotes
from squadron_cad.kits.squadrons import constants as C
from squadron_cad.kits.squadrons.constants import base_part, ruler_part
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import (
    box,
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
        # "BOOST +3" and its counters fall short (issue 34): the Squadrons fix of the
        # gauge's words lifts this.
        text_spacing_waived="the gauge's words are being redrawn (issue 34)",
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


def _symbol_base(p: SquadronsParams) -> float:
    return float(p.objective.thickness_mm)


def _ships_rule(number: int) -> Any:
    def count(p: SquadronsParams) -> int:
        return p.players if number <= p.base.per_player else 0

    return count


def _trackers(p: SquadronsParams) -> int:
    return p.base.per_player * p.players


def _clips(p: SquadronsParams) -> int:
    return len(p.stat_dial.labels) * p.base.per_player * p.players


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
        print_notes=_base_notes,
        noun=f"ship base {number}",
    )


def _ruler(index: int) -> Part:
    return Part(
        ruler_part(index),
        f"Range ruler section {index} of {C.RULER_SECTIONS} (4 inches, dovetail joint)",
        rulers.section_builder(index),
        "shared",
        per_kit=1,
        orientation="ticks up",
        print_notes=_ruler_notes,
        noun=f"ruler section {index}",
    )


def _objective(name: str, kind: str, title: str, count: int) -> Part:
    return Part(
        name,
        title,
        objectives.builder(kind),
        "shared",
        per_kit=count,
        orientation="symbol up",
        accent_from_mm=_symbol_base,
        print_notes=_objective_notes,
        noun=name.replace("_", " "),
    )


PARTS: tuple[Part, ...] = (
    *(_base(n) for n in range(1, MAX_SHIPS + 1)),
    Part(
        "tracker_card",
        "Ship tracker card: Command and Hit Points rows, 0..6",
        tracker.build_card,
        "player",
        count_rule=_trackers,
        orientation="numerals up",
        colour="player",
        print_notes=_card_notes,
        slow_render=True,
        noun="tracker card",
    ),
    Part(
        "tracker_clip",
        "Ship tracker clip: slides along a row, clicks at each value",
        tracker.build_clip,
        "player",
        count_rule=_clips,
        orientation="on its side, C profile on the bed",
        colour="player",
        noun="tracker clip",
    ),
    *(_ruler(k) for k in range(1, C.RULER_SECTIONS + 1)),
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
    _objective("objective_scan", "scan", "Scan objective: 40 mm, raised sensor sweep", 1),
    _objective("objective_recover", "recover", "Recover objective: 40 mm, raised arrow", 1),
    _objective(
        "objective_destroy", "destroy", "Destroy objective: burst, D4+ T4, two HP notches", 1
    ),
    _objective("entry_marker", "entry", "Entry marker: 40 mm, raised arrow", C.ENTRY_MARKERS),
    Part(
        "box",
        "Box: a pocket for each unit, sized to fit the container",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
        slow_render=True,
    ),
)

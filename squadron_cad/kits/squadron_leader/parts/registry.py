"""The kit's parts, in one list: builders, counts, groups, print orientation, colour role,
what the printability checks must know, and what the fit summary calls one piece.

Adding a part means one module in parts/ and one entry here. Counts follow the game's
components: each player has a plane, four altitude tokens and a stat dial; the table shares
one set of templates, one ruler and the box.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from squadron_cad.kit import Part, PrintNotes
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import (
    altitude_token,
    box,
    box_lid,
    move_templates,
    plane_token,
    range_ruler,
    stat_dial,
    template_all,
)

if TYPE_CHECKING:
    from solid2.core.object_base import OpenSCADObject

    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

    Builder = Callable[[SquadronLeaderDesign], OpenSCADObject]


def _engraved(depth: float, height: float | None = None, below: float = 0.0) -> PrintNotes:
    return PrintNotes(text_height_mm=height, engraving_depth_mm=depth, engraved_below_mm=below)


def _plane_notes(p: SquadronLeaderParams) -> PrintNotes:
    return _engraved(p.plane.groove_depth_mm)


def _card_notes(p: SquadronLeaderParams) -> PrintNotes:
    dial = p.stat_dial
    return _engraved(
        max(p.text.depth_mm, dial.detent_depth_mm), dial.numeral_height_mm, dial.detent_depth_mm
    )


def _template_notes(p: SquadronLeaderParams) -> PrintNotes:
    depth = p.templates.guide_groove_depth_mm
    return _engraved(depth, below=depth)


def _ruler_notes(p: SquadronLeaderParams) -> PrintNotes:
    return _engraved(max(p.ruler.mark_depth_mm, p.text.depth_mm), p.ruler.numeral_height_mm)


def _lid_notes(p: SquadronLeaderParams) -> PrintNotes:
    """The title is cut into the top's outer face, which lies on the bed."""
    depth = p.text.depth_mm
    return PrintNotes(
        text_height_mm=p.box.title_height_mm, engraved_below_mm=depth, text_on_bed=True
    )


def _box_notes(p: SquadronLeaderParams) -> PrintNotes:
    return _engraved(p.text.depth_mm)


def _silhouette_base(p: SquadronLeaderParams) -> float:
    """The plane's silhouette stands on the token's top face: drawn darker from there."""
    return float(p.token.height_mm)


def _token_recess_floor(p: SquadronLeaderParams) -> float:
    """The player's mark stands flush in a recess of the top: from the recess floor up,
    the top, the mark and the pegs are the marks' colour (one filament change colours
    them; the recess around the mark shows the body's colour)."""
    return float(p.token.height_mm - p.text.depth_mm)


def _card_recess_floor(p: SquadronLeaderParams) -> float:
    """Mark and numerals are cut text.depth_mm deep: the top above their floor is the
    marks' colour, so the numerals, the labels and the recess round the mark show the
    body's colour in it (one filament change colours them)."""
    return float(p.stat_dial.card_thickness_mm - p.text.depth_mm)


def _altitude_notes(p: SquadronLeaderParams) -> PrintNotes:
    return _engraved(p.text.depth_mm)


def _clips(p: SquadronLeaderParams) -> int:
    """One clip per stat row for each player."""
    return len(p.stat_dial.labels) * p.players


def _template(name: str, title: str, builder: Builder) -> Part:
    return Part(
        name,
        title,
        builder,
        "shared",
        orientation="flat",
        alternative_to="template_all",
    )


def _ruler_section(index: int, title: str, builder: Builder) -> Part:
    return Part(
        f"range_ruler_{index}",
        title,
        builder,
        "shared",
        per_kit=1,
        orientation="marks up",
        print_notes=_ruler_notes,
        noun=f"ruler section {index}",
    )


PARTS: tuple[Part, ...] = (
    Part(
        "plane_token",
        "Plane token: octagon, raised silhouette, firing arc, sockets",
        plane_token.build,
        "player",
        per_player=1,
        player_builder=plane_token.build_for,
        orientation="sockets down, silhouette up",
        colour="player",
        accent_from_mm=_silhouette_base,
        print_notes=_plane_notes,
        slow_render=True,
        noun="plane token",
    ),
    Part(
        "altitude_token",
        "Altitude token: octagon ring, 4 pegs on top, 8 sockets below",
        altitude_token.build,
        "player",
        per_player=constants.ALTITUDE_TOKENS_PER_STACK,
        player_builder=altitude_token.build_for,
        orientation="sockets down, pegs up",
        colour="player",
        accent_from_mm=_token_recess_floor,
        print_notes=_altitude_notes,
        slow_render=True,
        noun="altitude token",
    ),
    Part(
        "stat_dial_card",
        "Stat dial card: Health, Defense, Attack, Manoeuvrability rows 0..max",
        stat_dial.build_card,
        "player",
        per_player=1,
        player_builder=stat_dial.build_card_for,
        orientation="numerals up",
        colour="player",
        accent_from_mm=_card_recess_floor,
        print_notes=_card_notes,
        slow_render=True,
        noun="stat dial card",
    ),
    Part(
        "stat_dial_clip",
        "Stat dial clip: slides along a row, clicks at each value",
        stat_dial.build_clip,
        "player",
        count_rule=_clips,
        orientation="on its side, C profile on the bed",
        colour="player",
        noun="stat dial clip",
    ),
    _template(
        "template_straight", "Straight move template (cost 1)", move_templates.build_straight
    ),
    _template("template_bank", "Bank move template (cost 2)", move_templates.build_bank),
    _template("template_turn", "Turn move template (cost 3)", move_templates.build_turn),
    Part(
        "template_all",
        "All-in-one move template: straight, bank and turn on one start edge",
        template_all.build,
        "shared",
        per_kit=1,
        orientation="flat",
        print_notes=_template_notes,
        slow_render=True,
        noun="all-in-one template",
    ),
    Part(
        "range_ruler",
        "Range ruler, one piece: three straight lengths",
        range_ruler.build_one_piece,
        "shared",
        orientation="marks up",
        alternative_to="range_ruler_1",
        also_replaces=("range_ruler_2", "range_ruler_3"),
        print_notes=_ruler_notes,
    ),
    _ruler_section(1, "Range ruler section 1 (dovetail tab)", range_ruler.build_section_1),
    _ruler_section(2, "Range ruler section 2 (slot and tab)", range_ruler.build_section_2),
    _ruler_section(3, "Range ruler section 3 (slot)", range_ruler.build_section_3),
    Part(
        "box",
        "Box: pockets for every piece, sized to fit the tin",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
        print_notes=_box_notes,
        slow_render=True,
    ),
    Part(
        "box_lid",
        "Box lid: a cap on the box's wall; turned over, a dice tray; title engraved",
        box_lid.build,
        "box",
        per_kit=1,
        orientation="top on the bed, rim up (a tray); title cut into the bed face",
        print_notes=_lid_notes,
    ),
)

_BY_NAME = {spec.name: spec for spec in PARTS}


def part(name: str) -> Part:
    return _BY_NAME[name]


def part_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)

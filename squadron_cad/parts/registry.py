"""The explicit list of parts: file names, builders, counts, groups and print orientation.

Adding a part means one module in parts/ and one entry here. Counts follow the game's
components: each player has a plane, four altitude tokens and a stat dial; the table shares
one set of templates, one ruler and the box.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from solid2.core.object_base import OpenSCADObject

from squadron_cad import constants as C
from squadron_cad.params import KitParams
from squadron_cad.parts import (
    altitude_token,
    box,
    box_lid,
    move_templates,
    plane_token,
    range_ruler,
    stat_dial,
    template_all,
)

Group = Literal["player", "shared", "box"]
Builder = Callable[[KitParams], OpenSCADObject]


@dataclass(frozen=True)
class PartSpec:
    """One printable part and how many of it a kit needs."""

    name: str
    title: str
    builder: Builder
    group: Group
    per_player: int = 0
    per_kit: int = 0
    orientation: str = "flat, as modelled"
    bodies: int = 1
    alternative_to: str | None = None  # an optional variant of another part
    per_row: bool = False  # one per stat_dial label
    also_replaces: tuple[str, ...] = ()  # further parts the alternative stands in for

    @property
    def file_name(self) -> str:
        return f"{self.name}.stl"

    @property
    def replaces(self) -> tuple[str, ...]:
        """Every part an optional variant stands in for (the one-piece ruler: 3 sections)."""
        return () if self.alternative_to is None else (self.alternative_to, *self.also_replaces)

    def count(self, params: KitParams) -> int:
        """How many to print for the configured number of players."""
        per_player = self.per_player * (len(params.stat_dial.labels) if self.per_row else 1)
        return per_player * params.players + self.per_kit


PARTS: tuple[PartSpec, ...] = (
    PartSpec(
        "plane_token",
        "Plane token: octagon, raised silhouette, firing arc, sockets",
        plane_token.build,
        "player",
        per_player=1,
        orientation="sockets down, silhouette up",
    ),
    PartSpec(
        "altitude_token",
        "Altitude token: octagon ring, 4 pegs on top, 8 sockets below",
        altitude_token.build,
        "player",
        per_player=C.ALTITUDE_TOKENS_PER_STACK,
        orientation="sockets down, pegs up",
    ),
    PartSpec(
        "stat_dial_card",
        "Stat dial card: Health, Defense, Attack, Speed rows 0..max",
        stat_dial.build_card,
        "player",
        per_player=1,
        orientation="numerals up",
    ),
    PartSpec(
        "stat_dial_clip",
        "Stat dial clip: slides along a row, clicks at each value",
        stat_dial.build_clip,
        "player",
        per_player=1,
        per_row=True,
        orientation="on its side, C profile on the bed",
    ),
    PartSpec(
        "template_straight",
        "Straight move template (cost 1)",
        move_templates.build_straight,
        "shared",
        orientation="flat",
        alternative_to="template_all",
    ),
    PartSpec(
        "template_bank",
        "Bank move template (cost 2)",
        move_templates.build_bank,
        "shared",
        orientation="flat",
        alternative_to="template_all",
    ),
    PartSpec(
        "template_turn",
        "Turn move template (cost 3)",
        move_templates.build_turn,
        "shared",
        orientation="flat",
        alternative_to="template_all",
    ),
    PartSpec(
        "template_all",
        "All-in-one move template: straight, bank and turn on one start edge",
        template_all.build,
        "shared",
        per_kit=1,
        orientation="flat",
    ),
    PartSpec(
        "range_ruler",
        "Range ruler, one piece: three straight lengths",
        range_ruler.build_one_piece,
        "shared",
        orientation="marks up",
        alternative_to="range_ruler_1",
        also_replaces=("range_ruler_2", "range_ruler_3"),
    ),
    PartSpec(
        "range_ruler_1",
        "Range ruler section 1 (dovetail tab)",
        range_ruler.build_section_1,
        "shared",
        per_kit=1,
        orientation="marks up",
    ),
    PartSpec(
        "range_ruler_2",
        "Range ruler section 2 (slot and tab)",
        range_ruler.build_section_2,
        "shared",
        per_kit=1,
        orientation="marks up",
    ),
    PartSpec(
        "range_ruler_3",
        "Range ruler section 3 (slot)",
        range_ruler.build_section_3,
        "shared",
        per_kit=1,
        orientation="marks up",
    ),
    PartSpec(
        "box",
        "Box: pockets for every piece, sized to fit the tin",
        box.build,
        "box",
        per_kit=1,
        orientation="floor down",
    ),
    PartSpec(
        "box_lid",
        "Box lid: drops into the box's rebate, title engraved",
        box_lid.build,
        "box",
        per_kit=1,
        orientation="title up",
    ),
)

_BY_NAME = {spec.name: spec for spec in PARTS}


def part(name: str) -> PartSpec:
    return _BY_NAME[name]


def part_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)

"""The Space Planes kit's parameter model: the game's sections on top of the engine's.

Values come from this kit's default.yaml, then a tin preset, --params files and --set
overrides. The rules' facts live in the derived sizes: a long move is the card's long edge
minus the cube's side, a short move its short edge minus the side; the six cubes are shared
evenly among the players; a cube's footprint recess covers its face but for the rounded
edge and a rim. Cross-field rules raise one line naming every key involved.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.geometry.marks import player_mark
from squadron_cad.kits.space_planes.constants import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ships_per_player,
)
from squadron_cad.params import (
    ChecksParams,
    FitRange,
    KitParamsBase,
    Mm,
    Section,
    TinParams,
    TrayParams,
    mm,
)

FLOOR_MM = 0.8  # least material left under any engraving or recess
GAP_MM = 1.0  # engraved words stand this far from the fences
MIN_MOVE_MM = 10.0  # a short move shorter than this is no move
# Between a cube face's key (the top's: the player's mark) and its recess's walls: the
# mark reads as a symbol of its own (checks.min_mark_clearance_mm, a word space).
KEY_GAP_MM = 1.1  # (a hair over the checks.min_mark_clearance_mm default 1.0: facets)
PAPER_GAP_MM = 0.4  # a footprint's cut-off corner clears the key by this much
KEY_CUT_SHARE = 0.2  # the footprint's cut-off corner takes at most this share of its area
ROOT2 = 2**0.5
# A player's mark's narrowest stroke, as a share of its size (geometry.marks): the marks
# not listed are stouter than the cross.
MARK_STROKES = {"ring": 0.22, "chevron": 0.23, "cross": 0.34}


def text_width(text: str, height: float, stroke: float) -> float:
    """Ink width of our stroke text (geometry.shapes.text)."""
    _, em = layout_text(text)
    return em * (height - stroke) + stroke


def move_label(word: str, distance: float) -> str:
    return f"{word} {distance:.1f}"


class CardParams(Section):
    """The playing card (its edges are the moves: the joker gauge) and the deck the box
    holds, sleeved or not."""

    long_mm: Annotated[Mm, mm("Long edge of a playing card (poker: 88.9)", 40, 150)]
    short_mm: Annotated[Mm, mm("Short edge of a playing card (poker: 63.5)", 30, 120)]
    deck_thickness_mm: Annotated[
        Mm, mm("Thickness of the unsleeved deck, squared up (measure it)", 5, 40)
    ]
    deck_cards: Annotated[int, Field(ge=1, le=200, description="Cards in the deck")]
    sleeved: Annotated[bool, Field(description="The deck is stowed in sleeves")]
    sleeve_long_mm: Annotated[Mm, mm("Long outside edge of a sleeved card", 40, 160)]
    sleeve_short_mm: Annotated[Mm, mm("Short outside edge of a sleeved card", 30, 130)]
    sleeve_thickness_mm: Annotated[
        Mm, mm("What a sleeve adds to one card's thickness (both films)", 0.01, 1)
    ]

    @property
    def stowed_size_mm(self) -> tuple[float, float, float]:
        """The deck as the box holds it: sleeved (each card thicker) or not."""
        if not self.sleeved:
            return self.long_mm, self.short_mm, self.deck_thickness_mm
        thickness = self.deck_thickness_mm + self.deck_cards * self.sleeve_thickness_mm
        return self.sleeve_long_mm, self.sleeve_short_mm, thickness

    @model_validator(mode="after")
    def _ordered(self) -> CardParams:
        if self.short_mm > self.long_mm:
            raise ValueError(
                f"card.short_mm ({self.short_mm}) exceeds card.long_mm ({self.long_mm})"
            )
        if self.sleeve_long_mm < self.long_mm or self.sleeve_short_mm < self.short_mm:
            raise ValueError(
                f"card.sleeve_long_mm x card.sleeve_short_mm ({self.sleeve_long_mm:g} x "
                f"{self.sleeve_short_mm:g}) must hold card.long_mm x card.short_mm "
                f"({self.long_mm:g} x {self.short_mm:g}): give the sleeve's outside size"
            )
        return self


class GaugeParams(Section):
    thickness_mm: Annotated[Mm, mm("Thickness of the joker gauge's plate", 1.5, 6)]
    fence_height_mm: Annotated[Mm, mm("Height of the fences above the bed", 2, 12)]
    fence_width_mm: Annotated[Mm, mm("Width of a fence along the edge", 1.6, 10)]
    mark_width_mm: Annotated[Mm, mm("Width of an engraved end-point or corner mark", 0.6, 3)]
    mark_depth_mm: Annotated[Mm, mm("Depth of the engraved marks", 0.4, 2)]
    mark_length_mm: Annotated[Mm, mm("Length of a mark on the plate", 2, 20)]
    numeral_height_mm: Annotated[Mm, mm("Height of the engraved move distances", 2, 12)]

    @model_validator(mode="after")
    def _fits(self) -> GaugeParams:
        if self.fence_height_mm < self.thickness_mm + 1:
            raise ValueError(
                f"gauge.fence_height_mm ({self.fence_height_mm}) must stand 1 mm above "
                f"gauge.thickness_mm ({self.thickness_mm})"
            )
        if self.mark_depth_mm > self.thickness_mm - FLOOR_MM:
            raise ValueError(
                f"gauge.mark_depth_mm ({self.mark_depth_mm}) must leave {FLOOR_MM} mm under "
                f"the marks in gauge.thickness_mm ({self.thickness_mm})"
            )
        return self


class CubeParams(Section):
    side_mm: Annotated[Mm, mm("Side of a cubeship (a standard d6: 16)", 8, 30)]
    corner_radius_mm: Annotated[
        Mm,
        mm("Radius of the cube's edges and corners (small: corners touch)", 0, 2, allow_zero=True),
    ]
    rim_mm: Annotated[
        Mm, mm("Flat rim around each face's footprint recess, past the rounded edge", 0.4, 5)
    ]
    recess_depth_mm: Annotated[
        Mm, mm("Depth of a face's footprint recess (a printed footprint lies in it)", 0.2, 1.5)
    ]
    mark_mm: Annotated[
        Mm,
        mm(
            "The player's mark in the top face's key corner, across (the other faces' key "
            "is a square as wide across its corners)",
            2,
            8,
        ),
    ]

    @property
    def footprint_mm(self) -> float:
        """A face's recess, and the printed footprint in it: the face less the rounded edge
        and the rim on each side."""
        return self.side_mm - 2 * (self.corner_radius_mm + self.rim_mm)

    @property
    def key_centre_mm(self) -> float:
        """The key's (or mark's) centre, this far from both walls at the recess's key corner."""
        return KEY_GAP_MM + self.mark_mm / 2

    @property
    def key_cut_mm(self) -> float:
        """The legs of the corner a footprint has cut off to clear the key."""
        return 2 * self.key_centre_mm + (self.mark_mm / 2 + PAPER_GAP_MM) * ROOT2

    @property
    def key_square_mm(self) -> float:
        """The key on the faces without the mark: a square as wide across its corners."""
        return self.mark_mm / ROOT2

    @model_validator(mode="after")
    def _fits(self) -> CubeParams:
        if self.corner_radius_mm > self.side_mm / 8:
            raise ValueError(
                f"cube.corner_radius_mm ({self.corner_radius_mm}) must be at most an eighth of "
                f"cube.side_mm ({self.side_mm}): the rules' moves are corner to corner"
            )
        share = self.key_cut_mm**2 / 2 / self.footprint_mm**2
        if share > KEY_CUT_SHARE:
            raise ValueError(
                f"cube.mark_mm ({self.mark_mm}) is too big for the {self.footprint_mm:.1f} mm "
                f"footprint that cube.side_mm ({self.side_mm}), cube.corner_radius_mm "
                f"({self.corner_radius_mm}) and cube.rim_mm ({self.rim_mm}) leave: its key "
                f"corner would take {share:.0%} of it (at most {KEY_CUT_SHARE:.0%})"
            )
        return self


class HolderParams(Section):
    die_size_mm: Annotated[Mm, mm("Edge of the plane die (a d6)", 8, 25)]
    clearance_mm: Annotated[Mm, mm("Gap around the die in its holder, per side", 0.1, 1.5)]
    wall_mm: Annotated[Mm, mm("Wall of the holder", 0.8, 5)]
    floor_mm: Annotated[Mm, mm("Floor of the holder", 0.6, 5)]
    rim_height_mm: Annotated[Mm, mm("How high the wall holds the die, above the floor", 2, 20)]

    @model_validator(mode="after")
    def _shows(self) -> HolderParams:
        if self.rim_height_mm > self.die_size_mm - 2:
            raise ValueError(
                f"holder.rim_height_mm ({self.rim_height_mm}) must leave 2 mm of "
                f"holder.die_size_mm ({self.die_size_mm}) above the rim to pick the die up"
            )
        return self


class SpacePlanesChecksParams(ChecksParams):
    """The engine's check limits plus the clearance range of this kit's own fit."""

    holder_fit: FitRange


class SpacePlanesParams(KitParamsBase):
    """Everything a Space Planes build needs; sections mirror the kit's default.yaml."""

    players: Annotated[
        int,
        Field(
            ge=MIN_PLAYERS,
            le=MAX_PLAYERS,
            description="Number of players: the rules' two to six share the six cubeships",
        ),
    ]
    card: CardParams
    gauge: GaugeParams
    cube: CubeParams
    holder: HolderParams
    tin: TinParams
    box: TrayParams
    checks: SpacePlanesChecksParams

    @property
    def ships_per_player(self) -> int:
        return ships_per_player(self.players)

    @property
    def ships(self) -> int:
        """Cubeships in play: the six shared evenly, players x floor(6 / players)."""
        return self.players * self.ships_per_player

    @property
    def long_move_mm(self) -> float:
        return self.card.long_mm - self.cube.side_mm

    @property
    def short_move_mm(self) -> float:
        return self.card.short_mm - self.cube.side_mm

    @property
    def long_label(self) -> str:
        return move_label("LONG", self.long_move_mm)

    @property
    def short_label(self) -> str:
        return move_label("SHORT", self.short_move_mm)

    @property
    def label_centre_mm(self) -> float:
        """A move label's centre, this far from its fence's outer edge (past the marks)."""
        g = self.gauge
        return g.fence_width_mm + g.mark_length_mm + GAP_MM + g.numeral_height_mm / 2

    @property
    def label_band_mm(self) -> float:
        """The far side of a move label from its fence's outer edge."""
        return self.label_centre_mm + self.gauge.numeral_height_mm / 2

    @model_validator(mode="after")
    def _cross_rules(self) -> SpacePlanesParams:
        c, g, card = self.cube, self.gauge, self.card
        if self.box.lid is None:
            raise ValueError("box.lid: the Space Planes box needs its lid (see default.yaml)")
        if self.short_move_mm < MIN_MOVE_MM:
            raise ValueError(
                f"card.short_mm ({card.short_mm}) minus cube.side_mm ({c.side_mm}) leaves a "
                f"short move under {MIN_MOVE_MM:g} mm"
            )
        if self.cube.side_mm + g.mark_width_mm > self.long_move_mm:
            raise ValueError(
                f"cube.side_mm ({c.side_mm}) is too big for card.long_mm ({card.long_mm}): the "
                "start and end marks of a long move would meet"
            )
        band = self.label_band_mm  # the short label's band, which the long label clears
        if text_width(self.long_label, g.numeral_height_mm, self.text.stroke_mm) > (
            card.long_mm - 2 * (band + GAP_MM)
        ):
            raise ValueError(
                f"gauge.numeral_height_mm ({g.numeral_height_mm}) is too big: {self.long_label!r} "
                f"does not fit along card.long_mm ({card.long_mm}) past gauge.mark_length_mm"
            )
        if text_width(self.short_label, g.numeral_height_mm, self.text.stroke_mm) > (
            card.short_mm - 2 * (g.fence_width_mm + 2 * GAP_MM + g.mark_length_mm / 2)
        ):
            raise ValueError(
                f"gauge.numeral_height_mm ({g.numeral_height_mm}) is too big: "
                f"{self.short_label!r} does not fit along card.short_mm ({card.short_mm})"
            )
        if 2 * band > card.short_mm:
            raise ValueError(
                f"gauge.fence_width_mm, gauge.mark_length_mm and gauge.numeral_height_mm "
                f"({g.fence_width_mm}, {g.mark_length_mm}, {g.numeral_height_mm}) leave no room "
                f"on card.short_mm ({card.short_mm})"
            )
        if c.footprint_mm > self.checks.max_bridge_mm:
            raise ValueError(
                f"the {c.footprint_mm:.1f} mm footprint recess (cube.side_mm less "
                f"cube.corner_radius_mm and cube.rim_mm) exceeds checks.max_bridge_mm "
                f"({self.checks.max_bridge_mm}): the recess on the face on the bed is bridged"
            )
        self._marks_print()
        return self

    def _marks_print(self) -> None:
        """Each player's mark, at cube.mark_mm, has strokes of at least checks.min_wall_mm."""
        size, wall = self.cube.mark_mm, self.checks.min_wall_mm
        for player in range(self.players):
            mark = player_mark(self, player)
            share = MARK_STROKES.get(mark)
            if share is not None and size * share < wall:
                raise ValueError(
                    f"player {player + 1}'s mark {mark} at cube.mark_mm {size:g} has "
                    f"{size * share:.2f} mm strokes, under checks.min_wall_mm ({wall:g}): "
                    f"give cube.mark_mm {wall / share:.1f} or more, or another mark"
                )

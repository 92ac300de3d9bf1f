"""The Squadrons kit's parameter model: the game's sections on top of the engine's.

Values come from this kit's default.yaml, then a tin preset, --params files and --set
overrides. The rules' fixed facts (the inch, the 45-degree pivot) live in `constants`;
the ruler joint and the tracker are the engine's components (squadron_cad.components).
Cross-field rules raise one line naming every key involved.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Field, model_validator

from squadron_cad.components.ruler_joint.params import SectionedRulerParams, check_joint
from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.fit.shortfall import mm_up_to_tenth
from squadron_cad.geometry.expr import Number, sqrt
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.kits.squadrons import constants
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

FLOOR_MM = 0.8  # least material left under any socket or engraving (two layers and more)
EDGE_MM = 1.0  # engraved lines stop this far inside a base's edge
LINE_GAP_MM = 1.0  # zone lines start this far outside the peg socket
PIVOT_BAND_MM = 15  # the pivot guide's least depth, from its inner arc to pivot.radius_mm
MIN_ADVANCE_NUMERAL_MM = 2.5  # the guide's "180" shrinks to fit its band, not below this
TAG_MARGIN_MM = 0.8  # a tracker's number and mark stay this far inside its tag column
TRACKER_MARK_MM = 3.0  # the least player's mark on a tracker (Squadron Leader's token mark)


class BaseParams(Section):
    per_player: Annotated[int, Field(ge=5, le=15, description="Ships (bases) per player")]
    size_mm: Annotated[Mm, mm("Side of the square base", 20, 80)]
    thickness_mm: Annotated[Mm, mm("Base thickness", 2, 10)]
    line_width_mm: Annotated[Mm, mm("Width of the engraved zone and Fixed lines", 0.6, 3)]
    line_depth_mm: Annotated[Mm, mm("Depth of the engraved zone and Fixed lines", 0.4, 3)]
    numeral_height_mm: Annotated[Mm, mm("Height of the ship number", 2, 20)]
    mark_size_mm: Annotated[
        Mm, mm("Size of the player's mark engraved in each side zone (player_colours.mark)", 2, 20)
    ]
    peg_socket: Annotated[bool, Field(description="Cut a socket for a model's flight peg")]
    socket_diameter_mm: Annotated[Mm, mm("Flight-peg socket diameter (peg + clearance)", 1, 12)]
    socket_depth_mm: Annotated[Mm, mm("Flight-peg socket depth", 0.5, 9)]

    @model_validator(mode="after")
    def _fits(self) -> BaseParams:
        if self.socket_depth_mm > self.thickness_mm - FLOOR_MM:
            raise ValueError(
                f"base.socket_depth_mm ({self.socket_depth_mm}) must leave {FLOOR_MM} mm under "
                f"the socket in base.thickness_mm ({self.thickness_mm})"
            )
        if self.line_depth_mm > self.thickness_mm - FLOOR_MM:
            raise ValueError(
                f"base.line_depth_mm ({self.line_depth_mm}) must leave {FLOOR_MM} mm below "
                f"the lines in base.thickness_mm ({self.thickness_mm})"
            )
        if self.socket_diameter_mm / 2 + LINE_GAP_MM + 5 > self.size_mm / 2 - EDGE_MM:
            raise ValueError(
                f"base.socket_diameter_mm ({self.socket_diameter_mm}) leaves under 5 mm of zone "
                f"line on base.size_mm ({self.size_mm})"
            )
        return self


class InchRulerParams(SectionedRulerParams):
    """The sectioned ruler component's section (its joint keys) plus the inch ruler's own."""

    width_mm: Annotated[Mm, mm("Width of the range ruler", 8, 40)]
    tick_length_mm: Annotated[Mm, mm("Length of an inch tick from the edge", 1, 15)]
    label_tick_length_mm: Annotated[Mm, mm("Length of a labelled tick", 1, 20)]


class FlagshipParams(Section):
    size_mm: Annotated[
        Mm, mm("Side of the Squadron Leader's plate (at least a finger notch's 12 mm)", 12.5, 40)
    ]
    thickness_mm: Annotated[Mm, mm("Thickness of the Squadron Leader's plate", 1.2, 5)]


class GaugeParams(Section):
    width_mm: Annotated[Mm, mm("Width of the movement gauge", 8, 40)]
    thickness_mm: Annotated[Mm, mm("Thickness of the movement gauge", 1.5, 10)]
    tick_length_mm: Annotated[Mm, mm("Length of an inch tick", 1, 15)]
    label_tick_length_mm: Annotated[Mm, mm("Length of a labelled tick", 1, 20)]
    numeral_height_mm: Annotated[Mm, mm("Height of the numerals", 2, 15)]
    word_height_mm: Annotated[Mm, mm("Height of the words (ADV/EVA, BOOST)", 2, 15)]


WORDS_FOOT_MM = 1.0  # the gauge's lower word line stands this far inside its foot edge
WORDS_LINE_GAP_MM = 0.8  # between the gauge's word lines, and up to its numerals


class PivotParams(Section):
    radius_mm: Annotated[
        Mm, mm("Reach of the pivot guide (its outer arc) from the base's centre", 20, 150)
    ]
    thickness_mm: Annotated[Mm, mm("Thickness of the pivot guide", 1.5, 10)]
    base_clearance_mm: Annotated[
        Mm,
        mm(
            "Gap between the base's front corners and the guide's inner arc",
            0,
            2,
            allow_zero=True,
        ),
    ]
    line_width_mm: Annotated[Mm, mm("Width of the guide's engraved lines", 0.6, 3)]
    numeral_height_mm: Annotated[Mm, mm("Height of the 45 and 180 numerals", 2, 15)]


class ObjectiveParams(Section):
    diameter_mm: Annotated[Mm, mm("Objective token diameter (the rules: typically 40)", 20, 80)]
    thickness_mm: Annotated[Mm, mm("Token thickness under the symbol", 1.5, 10)]
    symbol_size_mm: Annotated[Mm, mm("Size of the raised symbol", 8, 60)]
    symbol_height_mm: Annotated[Mm, mm("How far the symbol stands proud", 0.4, 3)]
    name_height_mm: Annotated[Mm, mm("Height of the engraved name", 2, 10)]
    notch_width_mm: Annotated[Mm, mm("Width of a hit-point notch at the rim", 1, 10)]
    notch_depth_mm: Annotated[Mm, mm("Depth of a hit-point notch into the rim", 0.8, 10)]

    @model_validator(mode="after")
    def _fits(self) -> ObjectiveParams:
        if self.symbol_size_mm > self.diameter_mm * 0.6:
            raise ValueError(
                f"objective.symbol_size_mm ({self.symbol_size_mm}) must be at most 0.6 of "
                f"objective.diameter_mm ({self.diameter_mm}): the name goes under it"
            )
        if self.notch_depth_mm > self.diameter_mm / 8:
            raise ValueError(
                f"objective.notch_depth_mm ({self.notch_depth_mm}) must be at most an eighth "
                f"of objective.diameter_mm ({self.diameter_mm})"
            )
        return self


class SquadronsChecksParams(ChecksParams):
    """The engine's check limits plus the clearance range of each of this kit's fits."""

    ruler_joint_fit: FitRange
    clip_fit: FitRange


class SquadronsParams(KitParamsBase):
    """Everything a Squadrons build needs; sections mirror the kit's default.yaml."""

    base: BaseParams
    ruler: InchRulerParams
    gauge: GaugeParams
    pivot: PivotParams
    objective: ObjectiveParams
    stat_dial: StatCardParams  # the ship tracker: the stat card component's card and clips
    flagship: FlagshipParams
    tin: TinParams  # the container of the kit's box (the table's pieces)
    ship_tin: TinParams  # the container of each player's ship box (one squadron)
    box: TrayParams
    checks: SquadronsChecksParams

    @property
    def tracker_tag_mm(self) -> float:
        """The ship tracker's tag column: the widest ship number and a margin each side."""
        digits = "8" * len(str(self.base.per_player))
        stroke, height = self.text.stroke_mm, self.stat_dial.numeral_height_mm
        number = layout_text(digits)[1] * (height - stroke) + stroke
        mark = TRACKER_MARK_MM + 2 * constants.MARK_FRAME_MM
        return float(max(number, mark) + 2 * TAG_MARGIN_MM)

    @property
    def tracker_mark_mm(self) -> float:
        """The player's mark on a ship tracker: what the tag column leaves inside its recess
        (at least TRACKER_MARK_MM)."""
        return self.tracker_tag_mm - 2 * (constants.MARK_FRAME_MM + TAG_MARGIN_MM)

    @property
    def mission_card(self) -> StatCardParams:
        """The mission tracker: the ship tracker's card with one row, the rounds."""
        return self.stat_dial.model_copy(
            update={
                "labels": (constants.MISSION_LABEL,),
                "min_value": 1,
                "max_value": constants.ROUNDS,
            }
        )

    @property
    def mission_legend_mm(self) -> float:
        """The band above the mission tracker's row: as tall as a numeral and its margins."""
        return float(self.stat_dial.numeral_height_mm) + 2 * constants.LEGEND_MARGIN_MM

    @property
    def ruler_section_mm(self) -> Number:
        return constants.RULER_LENGTH_IN * constants.INCH_MM / constants.RULER_SECTIONS

    @property
    def zone_line_start_mm(self) -> Number:
        return self.base.socket_diameter_mm / 2 + LINE_GAP_MM

    @property
    def zone_line_end_mm(self) -> Number:
        """Along a diagonal: the line's end stays EDGE_MM (and half a line) inside both edges."""
        return (self.base.size_mm / 2 - EDGE_MM - self.base.line_width_mm / 2) * sqrt(2)

    @property
    def numeral_width_mm(self) -> Number:
        """Ink width of the widest ship number (digits are tabular)."""
        _, em = layout_text("8" * len(str(self.base.per_player)))
        h = self.base.numeral_height_mm
        return em * (h - self.text.stroke_mm) + self.text.stroke_mm

    @property
    def numeral_bar_mm(self) -> tuple[Number, Number]:
        """The bar under a number that reads as another turned (6, 9): its gap under the
        digits and its thickness (a text stroke and a line width)."""
        return self.text.stroke_mm, self.base.line_width_mm

    def numeral_ink_mm(self, number: int) -> Number:
        _, em = layout_text(str(number))
        return em * (self.base.numeral_height_mm - self.text.stroke_mm) + self.text.stroke_mm

    def _advance_reach_mm(self, h: float) -> float:
        """How far past the cup's inner arc the Advance's U-turn and "180" of numeral
        height h reach (as pivot_guide.build lays them out: the arrow's half circle of 0.7
        numeral heights, 3 mm, then the numerals), their corners included, and EDGE_MM
        inside the rim."""
        stroke = self.text.stroke_mm
        numerals = layout_text("180")[1] * (h - stroke) + stroke
        along = 4 + 2 * 0.7 * h + 3 + h + numerals / 2
        return float(sqrt(along**2 + (h / 2) ** 2)) + EDGE_MM

    @property
    def advance_numeral_height_mm(self) -> float:
        """pivot.numeral_height_mm, or less where the guide's band is too narrow for the
        U-turn and "180" at that height (at 8 mm, or a 45 mm radius, "80" ran off the rim)."""
        band = self.pivot.radius_mm - float(self.pivot_cup_radius_mm)
        h = float(self.pivot.numeral_height_mm)
        while h > MIN_ADVANCE_NUMERAL_MM and self._advance_reach_mm(h) > band:
            h = round(h - 0.1, 1)
        return max(h, MIN_ADVANCE_NUMERAL_MM)

    def words_line_y(self, line: int) -> float:
        """The centre (y) of the gauge's word line `line` (0 along the foot, 1 above it):
        ADV/EVA at 2" and BOOST +3 at 3" are wider than the inch between their ticks at a
        height whose letters print apart (at 3 mm their letters came 0.17 mm apart), so
        each word has a line of its own."""
        g = self.gauge
        return (
            -g.width_mm / 2
            + WORDS_FOOT_MM
            + g.word_height_mm / 2
            + line * (g.word_height_mm + WORDS_LINE_GAP_MM)
        )

    def _words_apart(self) -> None:
        """The word lines and the numerals over them, each clear of the next."""
        g = self.gauge
        top_line = self.words_line_y(len(constants.GAUGE_WORDS) - 1) + g.word_height_mm / 2
        numerals = g.width_mm / 2 - g.tick_length_mm - 1 - g.numeral_height_mm
        if top_line + WORDS_LINE_GAP_MM > numerals + 1e-9:
            most = (
                numerals
                - WORDS_LINE_GAP_MM
                + g.width_mm / 2
                - WORDS_FOOT_MM
                - WORDS_LINE_GAP_MM * (len(constants.GAUGE_WORDS) - 1)
            ) / len(constants.GAUGE_WORDS)
            raise ValueError(
                f"gauge.word_height_mm ({g.word_height_mm}) runs the gauge's two lines of "
                f"words into its numerals (gauge.numeral_height_mm {g.numeral_height_mm}, "
                f"gauge.width_mm {g.width_mm}); at most {math.floor(most * 10 + 1e-6) / 10:g}"
            )

    def _numeral_span(self) -> tuple[Number, Number]:
        """The range of x (behind the centre) where the number, and the bar under a 6 or a
        9, clear the rear zone lines."""
        b = self.base
        gap, bar = self.numeral_bar_mm
        reach = self.numeral_width_mm / 2 + b.numeral_height_mm / 2
        for number in constants.UNDERLINED_NUMBERS:
            if number <= b.per_player:
                reach = max(reach, self.numeral_ink_mm(number) / 2 + b.numeral_height_mm / 2
                            + gap + bar)  # fmt: skip
        low = reach + sqrt(2) * (b.line_width_mm / 2 + 0.6)
        high = b.size_mm / 2 - EDGE_MM - self.numeral_width_mm / 2
        return low, high

    def _mark_span(self) -> tuple[Number, Number]:
        """The range of y (off the forward axis) where the player's mark (its circle)
        clears the side zone's lines and stays EDGE_MM inside the base's edge."""
        b = self.base
        reach = b.mark_size_mm / 2 + constants.MARK_FRAME_MM  # the mark and the recess round it
        low = sqrt(2) * (reach + b.line_width_mm / 2 + 0.6)
        high = b.size_mm / 2 - EDGE_MM - reach
        return low, high

    @property
    def mark_centre_mm(self) -> Number:
        """How far off the forward axis the player's mark sits, in each side zone."""
        low, high = self._mark_span()
        return (low + high) / 2

    @property
    def numeral_centre_mm(self) -> Number:
        """How far behind the centre the ship number sits, in the rear zone."""
        low, high = self._numeral_span()
        return (low + high) / 2

    @property
    def pivot_cup_radius_mm(self) -> Number:
        """The pivot guide's inner radius: half the base's diagonal (where its front corners
        run while it pivots about its centre) and the clearance."""
        return self.base.size_mm / sqrt(2) + self.pivot.base_clearance_mm

    @model_validator(mode="after")
    def _cross_rules(self) -> SquadronsParams:
        self._words_apart()
        low, high = self._numeral_span()
        if float(low) > float(high):
            raise ValueError(
                f"base.numeral_height_mm ({self.base.numeral_height_mm}) is too big for the "
                f"rear zone of base.size_mm ({self.base.size_mm}); lower it or raise the size"
            )
        low, high = self._mark_span()
        if float(low) > float(high):
            raise ValueError(
                f"base.mark_size_mm ({self.base.mark_size_mm}) is too big for the side zones "
                f"of base.size_mm ({self.base.size_mm}); lower it or raise the size"
            )
        band = max(PIVOT_BAND_MM, self._advance_reach_mm(MIN_ADVANCE_NUMERAL_MM))
        if self.pivot.radius_mm < float(self.pivot_cup_radius_mm) + band:
            raise ValueError(
                f"pivot.radius_mm ({self.pivot.radius_mm}) must reach {band:.1f} mm past "
                f"the pivot guide's inner radius, {float(self.pivot_cup_radius_mm):.2f} mm "
                f"(half the diagonal of base.size_mm {self.base.size_mm} and "
                f"pivot.base_clearance_mm {self.pivot.base_clearance_mm}), to hold the U-turn "
                f"and a {MIN_ADVANCE_NUMERAL_MM:g} mm 180: at least "
                f"{mm_up_to_tenth(float(self.pivot_cup_radius_mm) + band)}"
            )
        d = self.stat_dial
        if d.min_value != 0 or d.max_value != constants.TRACKER_MAX:
            raise ValueError(
                f"stat_dial.min_value and stat_dial.max_value ({d.min_value}, {d.max_value}) "
                f"must be 0 and {constants.TRACKER_MAX}: Command and Hit Points run "
                f"0..{constants.TRACKER_MAX}"
            )
        if tuple(d.labels) != constants.TRACKER_LABELS:
            raise ValueError(
                f"stat_dial.labels ({list(d.labels)}) must be {list(constants.TRACKER_LABELS)}: "
                "one row for Command, one for Hit Points"
            )
        r = self.ruler
        check_joint(r, r.width_mm, "ruler.width_mm", self.ruler_section_mm)
        if r.tick_length_mm > r.label_tick_length_mm:
            raise ValueError(
                f"ruler.tick_length_mm ({r.tick_length_mm}) must not exceed "
                f"ruler.label_tick_length_mm ({r.label_tick_length_mm})"
            )
        if r.tick_length_mm + r.numeral_height_mm + 2 > r.width_mm:
            raise ValueError(
                f"ruler.tick_length_mm + ruler.numeral_height_mm ({r.tick_length_mm} + "
                f"{r.numeral_height_mm}) + 2 mm must fit in ruler.width_mm ({r.width_mm})"
            )
        return self

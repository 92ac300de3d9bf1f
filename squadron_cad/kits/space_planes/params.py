"""The Space Planes kit's parameter model: the game's sections on top of the engine's.

Values come from this kit's default.yaml, then a tin preset, --params files and --set
overrides. The rules' facts live in the derived sizes: a long move is the card's long edge
minus the cube's side, a short move its short edge minus the side. Cross-field rules raise
one line naming every key involved.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.params import KitParamsBase, Mm, Section, TinParams, TrayParams, mm

FLOOR_MM = 0.8  # least material left under any engraving or recess
EDGE_MM = 0.8  # a numeral stays this far inside the cube's rounded edge (no slivers)
GAP_MM = 1.0  # engraved words stand this far from the fences
MIN_MOVE_MM = 10.0  # a short move shorter than this is no move
FACET_MM = 0.05  # the rounding's facets lower the cube's faces by a few microns


def text_width(text: str, height: float, stroke: float) -> float:
    """Ink width of our stroke text (geometry.shapes.text)."""
    _, em = layout_text(text)
    return em * (height - stroke) + stroke


def move_label(word: str, distance: float) -> str:
    return f"{word} {distance:.1f}"


class CardParams(Section):
    long_mm: Annotated[Mm, mm("Long edge of a playing card (poker: 88.9)", 40, 150)]
    short_mm: Annotated[Mm, mm("Short edge of a playing card (poker: 63.5)", 30, 120)]
    deck_thickness_mm: Annotated[Mm, mm("Thickness of the deck of 54 cards, squared up", 5, 40)]

    @model_validator(mode="after")
    def _ordered(self) -> CardParams:
        if self.short_mm > self.long_mm:
            raise ValueError(
                f"card.short_mm ({self.short_mm}) exceeds card.long_mm ({self.long_mm})"
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
    ships: Annotated[int, Field(ge=1, le=6, description="Cubeships in the kit (the rules: 6)")]
    side_mm: Annotated[Mm, mm("Side of a cubeship (a standard d6: 16)", 8, 30)]
    corner_radius_mm: Annotated[
        Mm,
        mm("Radius of the cube's edges and corners (small: corners touch)", 0, 2, allow_zero=True),
    ]
    panel_mm: Annotated[Mm, mm("Side of the recessed panel for a paper footprint", 4, 28)]
    panel_depth_mm: Annotated[Mm, mm("Depth of a panel (paper lies in it, not proud)", 0.2, 1.5)]
    key_mm: Annotated[Mm, mm("Leg of the panel's cut-off corner: the orientation key", 1, 8)]
    numbered: Annotated[bool, Field(description="Engrave the ship's number 1-6 on a top corner")]
    numeral_height_mm: Annotated[Mm, mm("Height of the ship's number", 1.5, 8)]

    @property
    def border_mm(self) -> float:
        return (self.side_mm - self.panel_mm) / 2

    @model_validator(mode="after")
    def _fits(self) -> CubeParams:
        if self.border_mm < self.corner_radius_mm + 1:
            raise ValueError(
                f"cube.panel_mm ({self.panel_mm}) must leave 1 mm of flat face past the "
                f"rounding on each side of cube.side_mm ({self.side_mm}), cube.corner_radius_mm "
                f"({self.corner_radius_mm})"
            )
        if self.key_mm > self.panel_mm / 2:
            raise ValueError(
                f"cube.key_mm ({self.key_mm}) must be at most half of cube.panel_mm "
                f"({self.panel_mm})"
            )
        if self.corner_radius_mm > self.side_mm / 8:
            raise ValueError(
                f"cube.corner_radius_mm ({self.corner_radius_mm}) must be at most an eighth of "
                f"cube.side_mm ({self.side_mm}): the rules' moves are corner to corner"
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


class SpacePlanesParams(KitParamsBase):
    """Everything a Space Planes build needs; sections mirror the kit's default.yaml."""

    card: CardParams
    gauge: GaugeParams
    cube: CubeParams
    holder: HolderParams
    tin: TinParams
    box: TrayParams

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
    def numeral_centre_mm(self) -> float:
        """The ship number's centre, this far from the key corner's two edges (top face)."""
        c = self.cube
        return c.corner_radius_mm + EDGE_MM + c.numeral_height_mm / 2

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
        if c.numbered:
            self._number_clears_panel()
        if c.numbered and c.panel_depth_mm < self.checks.min_text_depth_mm + FACET_MM:
            raise ValueError(
                f"cube.panel_depth_mm ({c.panel_depth_mm}) must be at least "
                f"checks.min_text_depth_mm ({self.checks.min_text_depth_mm}) + {FACET_MM} when "
                "cube.numbered: the printability check reads the top panel as an engraving"
            )
        if c.panel_mm > self.checks.max_bridge_mm:
            raise ValueError(
                f"cube.panel_mm ({c.panel_mm}) exceeds checks.max_bridge_mm "
                f"({self.checks.max_bridge_mm}): the panel on the bed face is bridged"
            )
        return self

    def _number_clears_panel(self) -> None:
        """The number sits in the key corner, outside the panel's cut-off corner."""
        c = self.cube
        h = c.numeral_height_mm
        w = text_width(str(c.ships), h, self.text.stroke_mm)
        centre = self.numeral_centre_mm  # from the corner, along both edges
        # The cut-off corner's line, measured from the face's corner: x + y = border*2 + key.
        line = 2 * c.border_mm + c.key_mm
        nearest = 2 * centre + (w + h) / 2  # the digit box's far corner, in x + y
        if nearest + GAP_MM * 2**0.5 > line:
            raise ValueError(
                f"cube.numeral_height_mm ({h}) does not fit in the key corner left by "
                f"cube.panel_mm ({c.panel_mm}) and cube.key_mm ({c.key_mm}) on cube.side_mm "
                f"({c.side_mm})"
            )

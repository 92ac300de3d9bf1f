"""The stat dial: a card with one row per stat and a sliding clip on each row.

Each row is a finger of the card with the numerals min..max (1-4 by default, as on the
reference stat wheel) engraved along it. A clip rides on the finger's lower edge and
frames the current value in its window. The clip clears the card by a running fit on
every face; a bump on its lower jaw clicks into a groove under the card at each value,
and between values the jaws spread by the grip (stat_dial.grip_mm), so the setting holds,
even carried in a pocket. Card and clips print flat, without supports: the card top up,
each clip standing on its side (its profile on the bed).

Card frame: x along the rows, y up the card, z up from the bed; row 0 is the top row.
Clip frame (as modelled, print orientation): x = across the finger, inward from the
finger's edge (u); y = through the card's thickness (w, card bottom at 0); z = along the
row, the clip's width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from solid2 import cube, difference, linear_extrude, rotate, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.marks import flush_mark, player_mark
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, v_prism
from squadron_cad.kits.squadron_leader.params import KitParams, token_mark_mm

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronDesign

WINDOW_MARGIN_MM = 0.4  # window larger than the numeral it frames, each side
FINGER_END_MM = 1.0  # finger runs past the last clip position so the clip stays on
JAW_TIP_MARGIN_MM = 0.5  # jaw stops short of the finger's far edge
BUMP_LENGTH_MM = 1.5  # length of the detent ridge across the finger


@dataclass(frozen=True)
class DialLayout:
    """Where everything on the card sits, shared by card, clip and checks."""

    p: KitParams

    @property
    def rows(self) -> int:
        return len(self.p.stat_dial.labels)

    @property
    def row_pitch(self) -> Number:
        d = self.p.stat_dial
        return d.row_width_mm + d.slot_width_mm

    def row_bottom(self, row: int) -> Number:
        """y of a row's lower edge (where its clip rides); row 0 is at the top."""
        return (self.rows - 1 - row) * self.row_pitch

    @property
    def height(self) -> Number:
        return self.row_bottom(0) + self.p.stat_dial.row_width_mm

    @property
    def values(self) -> range:
        d = self.p.stat_dial
        return range(d.min_value, d.max_value + 1)

    def value_x(self, value: int) -> Number:
        d = self.p.stat_dial
        first = d.label_width_mm + d.clip_clearance_mm + d.clip_width_mm / 2
        return first + (value - d.min_value) * d.clip_pitch_mm

    @property
    def length(self) -> Number:
        d = self.p.stat_dial
        return self.value_x(d.max_value) + d.clip_width_mm / 2 + FINGER_END_MM

    @property
    def numeral_centre_u(self) -> Number:
        return self.p.stat_dial.row_width_mm / 2

    @property
    def jaw_length(self) -> Number:
        return self.p.stat_dial.row_width_mm - JAW_TIP_MARGIN_MM

    @property
    def window_u(self) -> tuple[Number, Number]:
        half = self.p.stat_dial.numeral_height_mm / 2 + WINDOW_MARGIN_MM
        return self.numeral_centre_u - half, self.numeral_centre_u + half

    @property
    def window_width(self) -> Number:
        # A numeral is 0.6 em wide: the ink is at most 0.6 of its height plus a stroke.
        d = self.p.stat_dial
        return 0.6 * d.numeral_height_mm + self.p.text.stroke_mm + 2 * WINDOW_MARGIN_MM

    @property
    def bump_u(self) -> tuple[Number, Number]:
        """The detent ridge sits near the jaw tip, where the jaw bends most easily."""
        end = self.jaw_length - JAW_TIP_MARGIN_MM
        return end - BUMP_LENGTH_MM, end

    @property
    def bump_height(self) -> Number:
        """The bump spans the clearance below the card and, once the top jaw rests on the
        card, the grip: the jaws spread that much to pass between two values."""
        d = self.p.stat_dial
        return 2 * d.clip_clearance_mm + d.grip_mm


def _engraving(p: KitParams, layout: DialLayout) -> OpenSCADObject:
    d, text = p.stat_dial, p.text
    marks = []
    for row, label in enumerate(d.labels):
        centre_y = layout.row_bottom(row) + layout.numeral_centre_u
        marks.append(
            translate([d.label_width_mm / 2, centre_y])(
                centred_text(label, d.numeral_height_mm, text.stroke_mm)
            )
        )
        for value in layout.values:
            marks.append(
                translate([layout.value_x(value), centre_y])(
                    centred_text(str(value), d.numeral_height_mm, text.stroke_mm)
                )
            )
    return union()(*marks)


def _detent_grooves(p: KitParams, layout: DialLayout) -> OpenSCADObject:
    """V grooves under each row at every value, across the finger where the bump runs."""
    d = p.stat_dial
    start, end = layout.bump_u
    length = end - start + 2 * JAW_TIP_MARGIN_MM
    # Along y: a prism along x turned a quarter about z.
    groove = rotate([0, 0, 90])(
        translate([0, 0, -EPSILON_MM])(
            v_prism(length, d.detent_depth_mm + EPSILON_MM, d.detent_depth_mm + EPSILON_MM)
        )
    )
    first_y = start - JAW_TIP_MARGIN_MM
    return union()(
        *(
            translate([layout.value_x(value), layout.row_bottom(row) + first_y, 0])(groove)
            for row in range(layout.rows)
            for value in layout.values
        )
    )


def card_outline(p: KitParams, layout: DialLayout) -> OpenSCADObject:
    d = p.stat_dial
    fingers = [
        translate([0, layout.row_bottom(row)])(square([layout.length, d.row_width_mm]))
        for row in range(layout.rows)
    ]
    spine = square([d.label_width_mm, layout.height])
    return union()(spine, *fingers)


def card_mark_centre(p: KitParams) -> tuple[Number, Number]:
    """The player's mark: in the label column, between the first two rows' labels
    (the clips ride on the fingers, never over the column)."""
    layout = DialLayout(p)
    second = min(1, layout.rows - 1)
    return p.stat_dial.label_width_mm / 2, (layout.row_bottom(0) + layout.row_bottom(second)
                                             + p.stat_dial.row_width_mm) / 2  # fmt: skip


def build_card(design: SquadronDesign) -> OpenSCADObject:
    """The representative card (player 1's): what the kit's checks measure."""
    return build_card_for(design, 0)


def build_card_for(design: SquadronDesign, player: int) -> OpenSCADObject:
    """Player `player`'s card (0-based): their mark flush in the label column."""
    p = design.params
    x, y = card_mark_centre(p)
    mark = translate([x, y, p.stat_dial.card_thickness_mm])(
        flush_mark(player_mark(p, player), token_mark_mm(p), p.marks.frame_mm, p.text.depth_mm)
    )
    return difference()(_card(p), mark)


def build_unmarked_card(design: Any) -> OpenSCADObject:
    """The card without a player's mark (for a kit that has no marks section)."""
    return _card(design.params)


def _card(p: Any) -> OpenSCADObject:
    d = p.stat_dial
    layout = DialLayout(p)
    body = linear_extrude(height=d.card_thickness_mm)(card_outline(p, layout))
    engraving = translate([0, 0, d.card_thickness_mm - p.text.depth_mm])(
        linear_extrude(height=p.text.depth_mm + EPSILON_MM)(_engraving(p, layout))
    )
    return difference()(body, engraving, _detent_grooves(p, layout))


@dataclass(frozen=True)
class ClipShape:
    """A clip's C profile, all in mm, in the clip frame (u across the finger from its
    edge, w through the card, card bottom at 0)."""

    card_thickness: Number
    jaw_thickness: Number
    spine_thickness: Number
    reach: Number  # how far the jaws run across the finger from its edge


def clip_shape(p: KitParams) -> ClipShape:
    d = p.stat_dial
    return ClipShape(
        d.card_thickness_mm, d.clip_jaw_thickness_mm, d.clip_spine_thickness_mm,
        DialLayout(p).jaw_length,
    )  # fmt: skip


def clip_profile(shape: ClipShape, clearance: Number) -> OpenSCADObject:
    """The C that wraps the finger's edge: spine outside the edge, jaws above and below,
    `clearance` from the card on every face (a running fit: it slides, it does not rub)."""
    jaw = shape.jaw_thickness
    spine_inner = -clearance
    spine_outer = spine_inner - shape.spine_thickness
    bottom = -clearance - jaw
    top_face = shape.card_thickness + clearance
    top = top_face + jaw
    reach = shape.reach
    # The jaws reach EPSILON into the spine (a clean union); the spine's face stays exact.
    jaw_start = spine_inner - EPSILON_MM
    return union()(
        translate([spine_outer, bottom])(square([spine_inner - spine_outer, top - bottom])),
        translate([jaw_start, top_face])(square([reach - jaw_start, jaw])),
        translate([jaw_start, bottom])(square([reach - jaw_start, jaw])),
    )


def clip_top_face(p: KitParams) -> Number:
    """Height of the top jaw's underside (the card's top is at card_thickness_mm)."""
    d = p.stat_dial
    return d.card_thickness_mm + d.clip_clearance_mm


def build_clip(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    d = p.stat_dial
    layout = DialLayout(p)
    width = d.clip_width_mm
    body = linear_extrude(height=width)(clip_profile(clip_shape(p), d.clip_clearance_mm))
    w0, w1 = layout.window_u
    window = translate([w0, clip_top_face(p) - EPSILON_MM, (width - layout.window_width) / 2])(
        cube([w1 - w0, d.clip_jaw_thickness_mm + 2 * EPSILON_MM, layout.window_width])
    )
    b0, b1 = layout.bump_u
    height = layout.bump_height
    # The ridge's V faces lean 45 degrees, so it prints on its side without support.
    # Apex turned from +z to +y: the ridge rises from the lower jaw towards the card.
    ridge = translate([b0, -d.clip_clearance_mm - EPSILON_MM, width / 2])(
        rotate([-90, 0, 0])(v_prism(b1 - b0, height + EPSILON_MM, height + EPSILON_MM))
    )
    return union()(difference()(body, window), ridge)

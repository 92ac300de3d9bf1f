"""The stat card and its clip as solids.

Each row is a finger of the card with the numerals min..max engraved along it. A clip
rides on the finger's lower edge and frames the current value in its window. The clip
clears the card by a running fit on every face; a bump on its lower jaw clicks into a
groove under the card at each value, and between values the jaws spread by the grip
(stat_dial.grip_mm), so the setting holds, even carried in a pocket. Card and clips print
flat, without supports: the card top up, each clip standing on its side (its profile on
the bed).

An optional tag column (DialLayout.tag_width) stands before the labels, at x < 0, for what
tells one card from another (a number, an owner's mark): the clips never ride over it.

Card frame: x along the rows, y up the card, z up from the bed; row 0 is the top row.
Clip frame (as modelled, print orientation): x = across the finger, inward from the
finger's edge (u); y = through the card's thickness (w, card bottom at 0); z = along the
row, the clip's width.
"""

from __future__ import annotations

from dataclasses import dataclass

from solid2 import cube, difference, linear_extrude, rotate, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.geometry.expr import Number, smax, smin
from squadron_cad.geometry.frames import Bounds
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, v_prism
from squadron_cad.params import TextParams

WINDOW_MARGIN_MM = 0.4  # window larger than the numeral it frames, each side
FINGER_END_MM = 1.0  # finger runs past the last clip position so the clip stays on
JAW_TIP_MARGIN_MM = 0.5  # jaw stops short of the finger's far edge
BUMP_LENGTH_MM = 1.5  # length of the detent ridge across the finger
MARK_MARGIN_MM = 0.05  # labels kept this much past the mark's clearance (STL rounding)


@dataclass(frozen=True)
class DialLayout:
    """Where everything on the card sits, shared by card, clip and checks."""

    card: StatCardParams
    text: TextParams
    # A player's mark between the first two rows' labels (card_mark_centre): its size
    # across, frame included (0: no mark), and the clear space its neighbours keep from it.
    mark_mm: Number = 0.0
    mark_clearance_mm: Number = 0.0
    tag_width: Number = 0.0  # the tag column before the labels (0: none)

    @property
    def rows(self) -> int:
        return len(self.card.labels)

    @property
    def row_pitch(self) -> Number:
        return self.card.row_width_mm + self.card.slot_width_mm

    def row_bottom(self, row: int) -> Number:
        """y of a row's lower edge (where its clip rides); row 0 is at the top."""
        return (self.rows - 1 - row) * self.row_pitch

    @property
    def height(self) -> Number:
        return self.row_bottom(0) + self.card.row_width_mm

    def label_centre_y(self, row: int) -> Number:
        """A row's label: on the row's centre line, except the two beside the mark, moved
        apart (within their rows) so they keep mark_clearance_mm from it."""
        centre = self.row_bottom(row) + self.numeral_centre_u
        if not self.mark_mm or self.rows < 2 or row > 1:
            return centre
        half_label = self.card.numeral_height_mm / 2
        _x, mark_y = card_mark_centre(self)
        away = 1 if row == 0 else -1  # row 0 lies above the mark
        room = away * (centre - mark_y) - half_label - self.mark_mm / 2
        wanted = self.mark_clearance_mm + MARK_MARGIN_MM
        shift = smin(smax(wanted - room, 0.0), self.numeral_centre_u - half_label)
        return centre + away * shift

    @property
    def values(self) -> range:
        return range(self.card.min_value, self.card.max_value + 1)

    def value_x(self, value: float) -> Number:
        d = self.card
        first = d.label_width_mm + d.clip_clearance_mm + d.clip_width_mm / 2
        return first + (value - d.min_value) * d.clip_pitch_mm

    @property
    def length(self) -> Number:
        d = self.card
        return self.value_x(d.max_value) + d.clip_width_mm / 2 + FINGER_END_MM

    @property
    def numeral_centre_u(self) -> Number:
        return self.card.row_width_mm / 2

    @property
    def jaw_length(self) -> Number:
        return self.card.row_width_mm - JAW_TIP_MARGIN_MM

    @property
    def window_u(self) -> tuple[Number, Number]:
        half = self.card.numeral_height_mm / 2 + WINDOW_MARGIN_MM
        return self.numeral_centre_u - half, self.numeral_centre_u + half

    @property
    def window_width(self) -> Number:
        # A numeral is 0.6 em wide: the ink is at most 0.6 of its height plus a stroke.
        d = self.card
        return 0.6 * d.numeral_height_mm + self.text.stroke_mm + 2 * WINDOW_MARGIN_MM

    @property
    def bump_u(self) -> tuple[Number, Number]:
        """The detent ridge sits near the jaw tip, where the jaw bends most easily."""
        end = self.jaw_length - JAW_TIP_MARGIN_MM
        return end - BUMP_LENGTH_MM, end

    @property
    def bump_height(self) -> Number:
        """The bump spans the clearance below the card and, once the top jaw rests on the
        card, the grip: the jaws spread that much to pass between two values."""
        d = self.card
        return 2 * d.clip_clearance_mm + d.grip_mm


def _engraving(layout: DialLayout) -> OpenSCADObject:
    d, text = layout.card, layout.text
    marks = []
    for row, label in enumerate(d.labels):
        centre_y = layout.row_bottom(row) + layout.numeral_centre_u
        marks.append(
            translate([d.label_width_mm / 2, layout.label_centre_y(row)])(
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


def _detent_grooves(layout: DialLayout) -> OpenSCADObject:
    """V grooves under each row at every value, across the finger where the bump runs."""
    d = layout.card
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


def card_outline(layout: DialLayout) -> OpenSCADObject:
    d = layout.card
    fingers = [
        translate([0, layout.row_bottom(row)])(square([layout.length, d.row_width_mm]))
        for row in range(layout.rows)
    ]
    spine = square([d.label_width_mm, layout.height])
    if layout.tag_width:
        tag = translate([-layout.tag_width, 0])(square([layout.tag_width, layout.height]))
        return union()(tag, spine, *fingers)
    return union()(spine, *fingers)


def tag_centres(layout: DialLayout, slots: int) -> list[tuple[Number, Number]]:
    """The centres of `slots` equal bands down the tag column, top first."""
    band = layout.height / slots
    return [(-layout.tag_width / 2, layout.height - band * (k + 0.5)) for k in range(slots)]


def card_mark_centre(layout: DialLayout) -> tuple[Number, Number]:
    """Where a mark goes on the card: in the label column, between the first two rows'
    labels (the clips ride on the fingers, never over the column)."""
    second = min(1, layout.rows - 1)
    return layout.card.label_width_mm / 2, (layout.row_bottom(0) + layout.row_bottom(second)
                                            + layout.card.row_width_mm) / 2  # fmt: skip


def card(layout: DialLayout) -> OpenSCADObject:
    """The card: fingers, engraved labels and numerals, detent grooves underneath."""
    d, text = layout.card, layout.text
    body = linear_extrude(height=d.card_thickness_mm)(card_outline(layout))
    engraving = translate([0, 0, d.card_thickness_mm - text.depth_mm])(
        linear_extrude(height=text.depth_mm + EPSILON_MM)(_engraving(layout))
    )
    return difference()(body, engraving, _detent_grooves(layout))


@dataclass(frozen=True)
class ClipShape:
    """A clip's C profile, all in mm, in the clip frame (u across the finger from its
    edge, w through the card, card bottom at 0)."""

    card_thickness: Number
    jaw_thickness: Number
    spine_thickness: Number
    reach: Number  # how far the jaws run across the finger from its edge


def clip_shape(layout: DialLayout) -> ClipShape:
    d = layout.card
    return ClipShape(
        d.card_thickness_mm, d.clip_jaw_thickness_mm, d.clip_spine_thickness_mm,
        layout.jaw_length,
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


def clip_bounds(layout: DialLayout) -> Bounds:
    """The clip as modelled (its C profile extruded along z), in the clip frame: what a
    kit's stowing packs."""
    d = layout.card
    spine_outer = -d.clip_clearance_mm - d.clip_spine_thickness_mm
    bottom = -d.clip_clearance_mm - d.clip_jaw_thickness_mm
    top = d.card_thickness_mm + d.clip_clearance_mm + d.clip_jaw_thickness_mm
    return (spine_outer, bottom, 0.0), (float(layout.jaw_length), top, d.clip_width_mm)


def clip_top_face(d: StatCardParams) -> Number:
    """Height of the top jaw's underside (the card's top is at card_thickness_mm)."""
    return d.card_thickness_mm + d.clip_clearance_mm


def clip(layout: DialLayout) -> OpenSCADObject:
    """The clip in print orientation: the C profile, its window, the detent bump."""
    d = layout.card
    width = d.clip_width_mm
    body = linear_extrude(height=width)(clip_profile(clip_shape(layout), d.clip_clearance_mm))
    w0, w1 = layout.window_u
    window = translate([w0, clip_top_face(d) - EPSILON_MM, (width - layout.window_width) / 2])(
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

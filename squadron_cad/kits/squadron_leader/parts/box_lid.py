"""The box lid: a flat plate that drops into the rebate at the top of the box wall.

It is `box.lid_thickness_mm` thick, so it lies flush with the wall top, and
`box.lid_clearance_mm` smaller than the rebate on every side, so it drops in and lifts
out freely. Nothing latches it: the box travels in its tin, whose own lid closes
`box.tin_clearance_mm` above it, so the lid cannot come off in a pocket, and there is no
friction lip to wear or to print too tight. A finger slot through the plate near one end
lifts it; the title is engraved in our stroke font, centred on the rest (on two lines
when one is too long for a small lid). Printed title up.

Frame: centred on the origin, underside on z = 0, the finger slot towards +x (towards +y
when the tin is given wider than it is long).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import circle, difference, hull, linear_extrude, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.errors import InputError
from squadron_cad.geometry.expr import Number, smax, smin
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, rounded_rectangle
from squadron_cad.kits.squadron_leader.params import KitParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronDesign

SLOT_WIDTH_MM = 9.0  # a fingertip goes in, a 12 mm die does not fall out
SLOT_LENGTH_MM = 20.0
SLOT_EDGE_MM = 3.0  # plate left between the slot and the lid's edge
TITLE_MARGIN_MM = 3.0  # clear plate around the title
LINE_PITCH = 1.5  # two title lines sit this many letter heights apart
SLOT_FACETS = 24  # the slot's round ends; a coarse curve is plenty at 9 mm


def box_outer(p: KitParams) -> tuple[Number, Number, Number]:
    """The box's outside length, width and corner radius (the solver computes the same)."""
    clearance = p.box.tin_clearance_mm
    length = p.tin.inner_length_mm - 2 * clearance
    width = p.tin.inner_width_mm - 2 * clearance
    radius = smin(smax(p.tin.corner_radius_mm - clearance, p.box.wall_mm), smin(length, width) / 2)
    return length, width, radius


def lid_inside(p: KitParams, outer: tuple[Number, Number, Number]) -> tuple[Number, Number, Number]:
    """A lid for a box of this outside (length, width, corner radius): less the rim and
    the lid clearance on each side (the tolerance coupons use it on a small box)."""
    length, width, radius = outer
    inset = p.box.rim_mm + p.box.lid_clearance_mm
    return length - 2 * inset, width - 2 * inset, radius - inset


def lid_outline(p: KitParams) -> tuple[Number, Number, Number]:
    """The plate: the box outside, less the rim and the lid clearance on each side."""
    return lid_inside(p, box_outer(p))


def landscape(p: KitParams) -> tuple[Number, Number, bool]:
    """The lid's long and short sides, and whether the long one runs along y (a tin given
    narrower than it is wide): slot and title then turn a quarter with it."""
    length, width, _ = lid_outline(p)
    if float(width) > float(length):
        return width, length, True
    return length, width, False


def slot_centre_x(p: KitParams) -> Number:
    length, _, _ = landscape(p)
    return length / 2 - SLOT_EDGE_MM - SLOT_WIDTH_MM / 2


def title_centre_x(p: KitParams) -> Number:
    """The title sits centred between the lid's far edge and the finger slot."""
    length, _, _ = landscape(p)
    left = -length / 2 + TITLE_MARGIN_MM
    right = slot_centre_x(p) - SLOT_WIDTH_MM / 2 - TITLE_MARGIN_MM
    return (left + right) / 2


def title_room(p: KitParams) -> tuple[float, float]:
    """Room for the title along the long side (beside the slot) and across it, in mm."""
    length, width, _ = landscape(p)
    left = -float(length) / 2 + TITLE_MARGIN_MM
    right = float(slot_centre_x(p)) - SLOT_WIDTH_MM / 2 - TITLE_MARGIN_MM
    return right - left, float(width) - 2 * TITLE_MARGIN_MM


def ink_width(p: KitParams, text: str) -> float:
    """A line's ink width, as shapes.text draws it."""
    _, width_em = layout_text(text)
    stroke = p.text.stroke_mm
    return width_em * (p.box.title_height_mm - stroke) + stroke


def title_lines(p: KitParams) -> tuple[str, ...]:
    """The title on one line, or on two (split at the best space) when one is too wide."""
    title = " ".join(p.box.title.split())
    if not title:
        return ()
    room_x, _ = title_room(p)
    if ink_width(p, title) <= room_x or " " not in title:
        return (title,)
    words = title.split(" ")
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    return min(splits, key=lambda lines: max(ink_width(p, line) for line in lines))


def title_block_height(p: KitParams, lines: int) -> float:
    return p.box.title_height_mm * (1 + (lines - 1) * LINE_PITCH)


def check_title(p: KitParams) -> None:
    """Refuse a title the lid cannot carry, before anything is rendered."""
    lines = title_lines(p)
    if not lines:
        return
    room_x, room_y = title_room(p)
    width = max(ink_width(p, line) for line in lines)
    height = title_block_height(p, len(lines))
    if width > room_x or height > room_y:
        raise InputError(
            f"box.title {p.box.title!r} at box.title_height_mm {p.box.title_height_mm:g} "
            f"needs {width:.1f} x {height:.1f} mm; the lid has room for "
            f"{max(room_x, 0):.1f} x {max(room_y, 0):.1f} mm beside its finger slot: shorten "
            "the title or lower box.title_height_mm"
        )


def title(p: KitParams) -> OpenSCADObject:
    """The title's lines, centred on the title area."""
    lines = title_lines(p)
    height = p.box.title_height_mm
    shapes = []
    for index, line in enumerate(lines):
        offset_y = height * (LINE_PITCH * ((len(lines) - 1) / 2 - index))
        shape = centred_text(line, height, p.text.stroke_mm)
        shapes.append(translate([0, offset_y])(shape) if len(lines) > 1 else shape)
    return translate([title_centre_x(p), 0])(union()(*shapes))


def finger_slot(p: KitParams) -> OpenSCADObject:
    half = (SLOT_LENGTH_MM - SLOT_WIDTH_MM) / 2
    end = circle(d=SLOT_WIDTH_MM, _fn=SLOT_FACETS)
    return translate([slot_centre_x(p), 0])(
        hull()(translate([0, -half])(end), translate([0, half])(end))
    )


def build(design: SquadronDesign) -> OpenSCADObject:
    p = design.params
    length, width, radius = lid_outline(p)
    thickness = p.box.lid_thickness_mm
    plate = linear_extrude(height=thickness)(rounded_rectangle(length, width, radius))
    slot = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=thickness + 2 * EPSILON_MM)(finger_slot(p))
    )
    cuts = [slot]
    if title_lines(p):
        depth = p.text.depth_mm
        cuts.append(
            translate([0, 0, thickness - depth])(
                linear_extrude(height=depth + EPSILON_MM)(title(p))
            )
        )
    if landscape(p)[2]:
        cuts = [rotate([0, 0, 90])(cut) for cut in cuts]
    return difference()(plate, *cuts)

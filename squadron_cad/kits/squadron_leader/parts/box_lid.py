"""The box lid: a cap that closes the box and, turned over, is a dice tray.

It has the box's outline: a top `box.lid_thickness_mm` thick and a skirt of the box's
wall thickness rising `box.lid_tray_depth_mm` above it (the tray's depth, at least 6 mm:
half a rolled 16 mm die). Closed, it lies upside down on the box, its skirt standing on
the box's wall and continuing it; the skirt's last `box.lid_lip_mm` keeps only its outer
`box.rim_mm`, a lip that laps the box's tongue (the inner rest of its wall) with
`box.lid_clearance_mm` per side, so the lid cannot slide off. The tin's own lid closes
`box.tin_clearance_mm` above it. A finger slot through the top near one end lifts it;
the title is engraved in our stroke font into the top's outer face, centred on the rest
(on two lines when one is too long for a small lid).

Printed as a tray: top on the bed, skirt up, no overhang; the title is cut into the bed
face, mirrored, so it reads right way round when the lid is closed.

Frame: centred on the origin, top's outer face on z = 0, skirt up, the finger slot
towards +x (towards +y when the tin is given wider than it is long). Closed on the box it
is turned half a turn about x (`closed_pose`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import circle, difference, hull, linear_extrude, mirror, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.errors import InputError
from squadron_cad.geometry import frames
from squadron_cad.geometry.expr import Number, smax, smin
from squadron_cad.geometry.frames import Matrix
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, rounded_rectangle
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

SLOT_WIDTH_MM = 9.0  # a fingertip goes in, a 12 mm die does not fall out
SLOT_LENGTH_MM = 20.0
SLOT_EDGE_MM = 3.0  # plate left between the slot and the lid's edge
TITLE_MARGIN_MM = 3.0  # clear plate around the title
LINE_PITCH = 1.5  # two title lines sit this many letter heights apart
SLOT_FACETS = 24  # the slot's round ends; a coarse curve is plenty at 9 mm


def box_outer(p: SquadronLeaderParams) -> tuple[Number, Number, Number]:
    """The box's outside length, width and corner radius (the solver computes the same)."""
    clearance = p.box.tin_clearance_mm
    length = p.tin.inner_length_mm - 2 * clearance
    width = p.tin.inner_width_mm - 2 * clearance
    radius = smin(smax(p.tin.corner_radius_mm - clearance, p.box.wall_mm), smin(length, width) / 2)
    return length, width, radius


def lid_outline(p: SquadronLeaderParams) -> tuple[Number, Number, Number]:
    """The lid's top: the box's outline (the lid continues its wall)."""
    return box_outer(p)


def lid_height(p: SquadronLeaderParams) -> Number:
    """The lid as built: its top plus the tray's depth."""
    return p.box.lid_thickness_mm + p.box.lid_tray_depth_mm


def closed_pose(height: float) -> Matrix:
    """Lid as built -> box frame, closed: turned over about x, its top at `height`."""
    return frames.compose(frames.translate(0, 0, height), frames.rotate_x(180))


def tongue_outline(
    p: SquadronLeaderParams, outer: tuple[Number, Number, Number]
) -> tuple[Number, Number, Number]:
    """The box's tongue for a box of this outside (length, width, corner radius): less the
    lid's lip and the lid clearance on each side (box.py cuts it; the tolerance coupons
    use it on a small box)."""
    length, width, radius = outer
    inset = p.box.rim_mm + p.box.lid_clearance_mm
    return length - 2 * inset, width - 2 * inset, smax(radius - inset, 0)


def landscape(p: SquadronLeaderParams) -> tuple[Number, Number, bool]:
    """The lid's long and short sides, and whether the long one runs along y (a tin given
    narrower than it is wide): slot and title then turn a quarter with it."""
    length, width, _ = lid_outline(p)
    if float(width) > float(length):
        return width, length, True
    return length, width, False


def slot_centre_x(p: SquadronLeaderParams) -> Number:
    length, _, _ = landscape(p)
    return length / 2 - SLOT_EDGE_MM - SLOT_WIDTH_MM / 2


def title_centre_x(p: SquadronLeaderParams) -> Number:
    """The title sits centred between the lid's far edge and the finger slot."""
    length, _, _ = landscape(p)
    left = -length / 2 + TITLE_MARGIN_MM
    right = slot_centre_x(p) - SLOT_WIDTH_MM / 2 - TITLE_MARGIN_MM
    return (left + right) / 2


def title_room(p: SquadronLeaderParams) -> tuple[float, float]:
    """Room for the title along the long side (beside the slot) and across it, in mm."""
    length, width, _ = landscape(p)
    left = -float(length) / 2 + TITLE_MARGIN_MM
    right = float(slot_centre_x(p)) - SLOT_WIDTH_MM / 2 - TITLE_MARGIN_MM
    return right - left, float(width) - 2 * TITLE_MARGIN_MM


def ink_width(p: SquadronLeaderParams, text: str) -> float:
    """A line's ink width, as shapes.text draws it."""
    _, width_em = layout_text(text)
    stroke = p.text.stroke_mm
    return width_em * (p.box.title_height_mm - stroke) + stroke


def title_lines(p: SquadronLeaderParams) -> tuple[str, ...]:
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


def title_block_height(p: SquadronLeaderParams, lines: int) -> float:
    return p.box.title_height_mm * (1 + (lines - 1) * LINE_PITCH)


def check_title(p: SquadronLeaderParams) -> None:
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


def title(p: SquadronLeaderParams) -> OpenSCADObject:
    """The title's lines, centred on the title area."""
    lines = title_lines(p)
    height = p.box.title_height_mm
    shapes = []
    for index, line in enumerate(lines):
        offset_y = height * (LINE_PITCH * ((len(lines) - 1) / 2 - index))
        shape = centred_text(line, height, p.text.stroke_mm)
        shapes.append(translate([0, offset_y])(shape) if len(lines) > 1 else shape)
    return translate([title_centre_x(p), 0])(union()(*shapes))


def finger_slot(p: SquadronLeaderParams) -> OpenSCADObject:
    half = (SLOT_LENGTH_MM - SLOT_WIDTH_MM) / 2
    end = circle(d=SLOT_WIDTH_MM, _fn=SLOT_FACETS)
    return translate([slot_centre_x(p), 0])(
        hull()(translate([0, -half])(end), translate([0, half])(end))
    )


def _inner(p: SquadronLeaderParams) -> OpenSCADObject:
    """The tray's inside: the box's inside outline (the skirt is as thick as its wall)."""
    length, width, radius = box_outer(p)
    wall = p.box.wall_mm
    return rounded_rectangle(length - 2 * wall, width - 2 * wall, smax(radius - wall, 0))


def _lip_inside(p: SquadronLeaderParams) -> OpenSCADObject:
    """Inside the lip: all but the skirt's outer `box.rim_mm`."""
    length, width, radius = box_outer(p)
    rim = p.box.rim_mm
    return rounded_rectangle(length - 2 * rim, width - 2 * rim, smax(radius - rim, 0))


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    length, width, radius = lid_outline(p)
    thickness = p.box.lid_thickness_mm
    height = lid_height(p)
    lip = p.box.lid_lip_mm
    shell = linear_extrude(height=height)(rounded_rectangle(length, width, radius))
    tray = translate([0, 0, thickness])(linear_extrude(height=height)(_inner(p)))
    lip_cut = translate([0, 0, height - lip])(linear_extrude(height=lip + 1)(_lip_inside(p)))
    slot = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=thickness + 2 * EPSILON_MM)(finger_slot(p))
    )
    marks = [slot]
    if title_lines(p):
        depth = p.text.depth_mm
        # Cut into the bed face, mirrored: closed (turned over about x) it reads right.
        marks.append(
            translate([0, 0, -EPSILON_MM])(
                linear_extrude(height=depth + EPSILON_MM)(mirror([0, 1, 0])(title(p)))
            )
        )
    if landscape(p)[2]:
        marks = [rotate([0, 0, 90])(cut) for cut in marks]
    return difference()(shell, tray, lip_cut, *marks)

"""The box lid's plan: its outline (the box's outside), its pose closed on the box, where
its finger slot sits and how the title is laid out beside it.

Plain numbers, no shapes: the design refuses a title the lid cannot carry and the stowing
solver places the lid before any part is built; parts.box_lid builds the lid from them.
"""

from __future__ import annotations

from squadron_cad.errors import InputError
from squadron_cad.geometry import frames
from squadron_cad.geometry.expr import Number, smax, smin
from squadron_cad.geometry.frames import Matrix
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

SLOT_WIDTH_MM = 9.0  # a fingertip goes in, a 12 mm die does not fall out
SLOT_EDGE_MM = 3.0  # plate left between the slot and the lid's edge
TITLE_MARGIN_MM = 3.0  # clear plate around the title
LINE_PITCH = 1.5  # two title lines sit this many letter heights apart


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


def closed_pose(height: float) -> Matrix:
    """Lid as built -> box frame, closed: turned over about x, its top at `height`."""
    return frames.compose(frames.translate(0, 0, height), frames.rotate_x(180))


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

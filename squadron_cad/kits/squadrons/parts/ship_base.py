"""The ship base: a flat square whose footprint is the game's measuring shape.

Frame: centred on x and y, forward along +x, bed at z = 0. Engraved on top: the four zone
boundaries (the diagonals: front, rear, left and right zones of 90 degrees each), the
forward Fixed line on +x, the ship's number in the rear zone (a bar under 6 and 9, so a
turned 6 does not read as 9), and the player's mark (player_colours.mark, our own
polygons) in each side zone, standing flush in a recess (the plates give it the marks'
colour), so two squadrons differ in shape, not only in colour; an
optional socket at the centre takes a model's flight peg. One part per ship number (the
engine's parts are one STL each, so a number cannot be a per-copy parameter), and one copy
of each per player (Part.player_builder: the mark).
"""

from __future__ import annotations

from typing import Any

from solid2 import cube, cylinder, difference, rotate, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.marks import flush_mark, mark_shape, player_mark
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.parts.common import bar, engrave

ZONE_BOUNDARIES_DEG = (45, 135, 225, 315)  # between front, left, rear and right


def _line(start: Any, end: Any, width: Any, angle_deg: float) -> OpenSCADObject:
    """A straight line of `width` from radius `start` to `end` along `angle_deg`."""
    return rotate([0, 0, angle_deg])(bar(start, -width / 2, end, width / 2))


def numeral(p: Any, number: int) -> list[OpenSCADObject]:
    """The ship number centred at the origin, reading along +x; under a 6 or a 9, a bar as
    wide as the digit (so the two differ when the base is turned)."""
    b = p.base
    shapes = [centred_text(str(number), b.numeral_height_mm, p.text.stroke_mm)]
    underline = numeral_bar_box(p, number)
    if underline is not None:
        shapes.append(bar(*underline))
    return shapes


def numeral_bar_box(p: Any, number: int) -> tuple[Any, Any, Any, Any] | None:
    """(x0, y0, x1, y1) of the bar under a 6 or a 9, the number centred at the origin."""
    if number not in constants.UNDERLINED_NUMBERS:
        return None
    gap, thickness = p.numeral_bar_mm
    half_w, below = p.numeral_ink_mm(number) / 2, p.base.numeral_height_mm / 2 + gap
    return (-half_w, -below - thickness, half_w, -below)


def engraved_lines(p: Any) -> list[tuple[Any, Any, Any, float]]:
    """(start radius, end radius, width, angle) of the four zone boundaries and the Fixed
    line, each a straight bar from the centre outward."""
    b = p.base
    start = p.zone_line_start_mm
    lines: list[tuple[Any, Any, Any, float]] = [
        (start, p.zone_line_end_mm, b.line_width_mm, a) for a in ZONE_BOUNDARIES_DEG
    ]
    fixed_end = b.size_mm / 2 - 1.0 - b.line_width_mm / 2
    lines.append((start, fixed_end, b.line_width_mm, 0))
    return lines


def mark_centres(p: Any) -> list[tuple[Any, Any]]:
    """The player's mark in the left and the right zone, on the cross axis."""
    return [(0, side * p.mark_centre_mm) for side in (1, -1)]


def marks(p: Any, player: int) -> list[OpenSCADObject]:
    """What to cut so the player's mark stands flush in its recess, in each side zone."""
    b = p.base
    recess = flush_mark(
        player_mark(p, player), b.mark_size_mm, constants.MARK_FRAME_MM, p.text.depth_mm
    )
    return [translate([x, y, b.thickness_mm])(recess) for x, y in mark_centres(p)]


def mark_outlines(p: Any, player: int) -> list[list[tuple[float, float]]]:
    """The marks' own outlines grown halfway across their recess: the marks' volume on the
    plates is the marks, not the top round them."""
    outlines = []
    for x, y in mark_centres(p):
        shape = mark_shape(player_mark(p, player), p.base.mark_size_mm, (float(x), float(y)))
        grown = shape.buffer(constants.MARK_FRAME_MM / 2)
        outlines.append([(float(a), float(b)) for a, b in grown.exterior.coords[:-1]])
    return outlines


def build(design: Any, number: int, player: int = 0) -> OpenSCADObject:
    p = design.params
    b = p.base
    body = translate([-b.size_mm / 2, -b.size_mm / 2, 0])(
        cube([b.size_mm, b.size_mm, b.thickness_mm])
    )
    lines = [_line(*line) for line in engraved_lines(p)]
    number_shapes = [translate([-p.numeral_centre_mm, 0])(s) for s in numeral(p, number)]
    top = b.thickness_mm
    result = engrave(body, top, [(b.line_depth_mm, lines), (p.text.depth_mm, number_shapes)])
    result = difference()(result, *marks(p, player))
    if b.peg_socket:
        socket = translate([0, 0, top - b.socket_depth_mm])(
            cylinder(d=b.socket_diameter_mm, h=b.socket_depth_mm + EPSILON_MM, _fn=32)
        )
        result = result - socket
    return result


def builder(number: int) -> Any:
    def build_number(design: Any) -> OpenSCADObject:
        return build(design, number)

    build_number.__name__ = f"build_ship_base_{number}"
    return build_number


def player_builder(number: int) -> Any:
    """Player `player`'s copy of base `number` (0-based player): their mark."""

    def build_number_for(design: Any, player: int) -> OpenSCADObject:
        return build(design, number, player)

    build_number_for.__name__ = f"build_ship_base_{number}_for"
    return build_number_for

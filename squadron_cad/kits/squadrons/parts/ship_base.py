"""The ship base: a flat square whose footprint is the game's measuring shape.

Frame: centred on x and y, forward along +x, bed at z = 0. Engraved on top: the four zone
boundaries (the diagonals: front, rear, left and right zones of 90 degrees each), the
forward Fixed line on +x, and the ship's number in the rear zone; an optional socket at
the centre takes a model's flight peg. One part per ship number (the engine's parts are
one STL each, so a number cannot be a per-copy parameter).
"""

from __future__ import annotations

from typing import Any

from solid2 import cube, cylinder, rotate, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadrons.parts.common import bar, engrave

ZONE_BOUNDARIES_DEG = (45, 135, 225, 315)  # between front, left, rear and right


def _line(start: Any, end: Any, width: Any, angle_deg: float) -> OpenSCADObject:
    """A straight line of `width` from radius `start` to `end` along `angle_deg`."""
    return rotate([0, 0, angle_deg])(bar(start, -width / 2, end, width / 2))


def build(design: Any, number: int) -> OpenSCADObject:
    p = design.params
    b = p.base
    body = translate([-b.size_mm / 2, -b.size_mm / 2, 0])(
        cube([b.size_mm, b.size_mm, b.thickness_mm])
    )
    start = p.zone_line_start_mm
    lines = [_line(start, p.zone_line_end_mm, b.line_width_mm, a) for a in ZONE_BOUNDARIES_DEG]
    fixed_end = b.size_mm / 2 - 1.0 - b.line_width_mm / 2
    lines.append(_line(start, fixed_end, b.line_width_mm, 0))
    numeral = translate([-p.numeral_centre_mm, 0])(
        centred_text(str(number), b.numeral_height_mm, p.text.stroke_mm)
    )
    top = b.thickness_mm
    result = engrave(body, top, [(b.line_depth_mm, lines), (p.text.depth_mm, [numeral])])
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

"""The Squadron Leader's marker: a small square plate with a five-pointed star engraved,
that lies on the leader's base threaded over the model's flight peg (a hole at its
centre), so it travels with the ship and leaves the base's footprint, the game's measuring
shape, as it is. Without peg sockets it lies on the base as it is, with no hole.

Square, not star-shaped: stowed under a lid, a star's point slid 1.6 mm into the finger
notch beside its pocket; the plate's straight sides span any notch (fit.notches).

Frame: centred on x and y, bed at z = 0; the star's first point along +x.
"""

from __future__ import annotations

import math
from typing import Any

from solid2 import circle, difference, linear_extrude, polygon, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.parts.common import engrave

POINTS = 5
FACETS = 32
CORNER_MM = 0.5  # the plate's corners: its sides stay straight almost to the end
STAR_SHARE = 0.8  # the star across, as a share of the plate's side


def star_points(size: float) -> list[list[float]]:
    """The star's outline, `size` across its points, the first point along +x."""
    outer, inner = size / 2, size / 2 * constants.FLAGSHIP_INNER_RATIO
    corners = []
    for k in range(2 * POINTS):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi * k / POINTS
        corners.append([round(radius * math.cos(angle), 4), round(radius * math.sin(angle), 4)])
    return corners


def hole_diameter(p: Any) -> float:
    """The hole the flight peg passes: the peg (the socket less its fit) with room to slide."""
    return float(p.base.socket_diameter_mm) + constants.FLAGSHIP_HOLE_PLAY_MM


def build(design: Any) -> OpenSCADObject:
    p = design.params
    f = p.flagship
    plate = linear_extrude(height=f.thickness_mm)(
        rounded_rectangle(f.size_mm, f.size_mm, CORNER_MM)
    )
    star = polygon(star_points(float(f.size_mm) * STAR_SHARE))
    marked = engrave(plate, f.thickness_mm, [(p.text.depth_mm, [star])])
    if not p.base.peg_socket:
        return marked
    hole = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=f.thickness_mm + 2 * EPSILON_MM)(
            circle(d=hole_diameter(p), _fn=FACETS)
        )
    )
    return difference()(marked, hole)

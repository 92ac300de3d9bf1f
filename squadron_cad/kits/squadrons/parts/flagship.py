"""The Squadron Leader's marker: a flat five-pointed star that lies on the leader's base,
threaded over the model's flight peg (a hole at its centre), so it travels with the ship
and leaves the base's footprint, the game's measuring shape, as it is. Without peg
sockets it lies on the base as it is, with no hole.

Frame: centred on x and y, bed at z = 0.
"""

from __future__ import annotations

import math
from typing import Any

from solid2 import circle, difference, linear_extrude, polygon, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM
from squadron_cad.kits.squadrons import constants as C

POINTS = 5
FACETS = 32


def star_points(size: float) -> list[list[float]]:
    """The star's outline, `size` across its points, the first point forward (+x)."""
    outer, inner = size / 2, size / 2 * C.FLAGSHIP_INNER_RATIO
    corners = []
    for k in range(2 * POINTS):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi * k / POINTS
        corners.append([round(radius * math.cos(angle), 4), round(radius * math.sin(angle), 4)])
    return corners


def hole_diameter(p: Any) -> float:
    """The hole the flight peg passes: the peg (the socket less its fit) with room to slide."""
    return float(p.base.socket_diameter_mm) + C.FLAGSHIP_HOLE_PLAY_MM


def build(design: Any) -> OpenSCADObject:
    p = design.params
    f = p.flagship
    star = linear_extrude(height=f.thickness_mm)(polygon(star_points(float(f.size_mm))))
    if not p.base.peg_socket:
        return star
    hole = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=f.thickness_mm + 2 * EPSILON_MM)(
            circle(d=hole_diameter(p), _fn=FACETS)
        )
    )
    return difference()(star, hole)

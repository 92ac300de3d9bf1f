"""Objective markers (Scan, Recover, Destroy) and entry markers: round tokens, each with its
own raised symbol (our own polygons, drawn here in a unit square and scaled) and its name
engraved under it. The Destroy token also carries its profile (Defence 4+, Toughness 4)
and two hit-point notches in its rim.

Frame: centred on x and y, bed at z = 0; the symbol stands on the top face.
"""

from __future__ import annotations

import math
from typing import Any

from solid2 import cylinder, linear_extrude, polygon, scale, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.parts.common import engrave

Points = list[tuple[float, float]]
FACETS = 120  # the rim: 3 degrees a facet, every vertex on the 40 mm circle
NOTCH_ANGLES_DEG = (-60.0, -120.0)  # hit-point notches low on the rim, clear of the symbol


def _ring_sector(r0: float, r1: float, a0: float, a1: float, steps: int = 12) -> Points:
    out = [(r1 * math.cos(math.radians(a)), r1 * math.sin(math.radians(a)))
           for a in (a0 + (a1 - a0) * k / steps for k in range(steps + 1))]  # fmt: skip
    back = [(r0 * math.cos(math.radians(a)), r0 * math.sin(math.radians(a)))
            for a in (a1 - (a1 - a0) * k / steps for k in range(steps + 1))]  # fmt: skip
    return out + back


def _disc(r: float, cx: float, cy: float, steps: int = 12) -> Points:
    return [(cx + r * math.cos(2 * math.pi * k / steps), cy + r * math.sin(2 * math.pi * k / steps))
            for k in range(steps)]  # fmt: skip


def _shift(points: Points, dx: float, dy: float) -> Points:
    return [(x + dx, y + dy) for x, y in points]


def scan_symbol() -> list[Points]:
    """A sensor sweep: a dot and three arcs opening upward."""
    origin = -0.42
    arcs = [_shift(_ring_sector(r, r + 0.1, 50, 130), 0, origin) for r in (0.22, 0.46, 0.7)]
    return [_disc(0.1, 0, origin), *arcs]


def recover_symbol() -> list[Points]:
    """An arrow lifting out of a tray."""
    arrow = [(-0.1, -0.22), (-0.1, 0.15), (-0.26, 0.15), (0, 0.5), (0.26, 0.15), (0.1, 0.15),
             (0.1, -0.22)]  # fmt: skip
    tray = [(-0.48, -0.5), (0.48, -0.5), (0.48, -0.05), (0.34, -0.05), (0.34, -0.36),
            (-0.34, -0.36), (-0.34, -0.05), (-0.48, -0.05)]  # fmt: skip
    return [arrow, tray]


def destroy_symbol() -> list[Points]:
    """A burst: an eight-pointed star."""
    points = []
    for k in range(16):
        r = 0.5 if k % 2 == 0 else 0.24
        a = math.pi / 2 + k * math.pi / 8
        points.append((r * math.cos(a), r * math.sin(a)))
    return [points]


def entry_symbol() -> list[Points]:
    """A broad arrow pointing in."""
    return [[(0, 0.5), (0.45, 0.05), (0.18, 0.05), (0.18, -0.5), (-0.18, -0.5), (-0.18, 0.05),
             (-0.45, 0.05)]]  # fmt: skip


SYMBOLS = {
    "scan": scan_symbol,
    "recover": recover_symbol,
    "destroy": destroy_symbol,
    "entry": entry_symbol,
}


def notch_points(o: Any, angle_deg: float) -> list[list[Any]]:
    """The V notch at angle_deg: its tip inside the rim, its mouth past it."""
    r = o.diameter_mm / 2
    a = math.radians(angle_deg)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    tip = r - o.notch_depth_mm
    outer = r + 1
    half = o.notch_width_mm / 2
    return [
        [tip * ux, tip * uy],
        [outer * ux + (half + 1) * vx, outer * uy + (half + 1) * vy],
        [outer * ux - (half + 1) * vx, outer * uy - (half + 1) * vy],
    ]


def notch_angles(kind: str) -> tuple[float, ...]:
    """Where the rim carries hit-point notches (the Destroy token's only)."""
    return NOTCH_ANGLES_DEG if kind == "destroy" else ()


def _notch(o: Any, angle_deg: float) -> OpenSCADObject:
    """A V notch cut straight down through the rim at angle_deg."""
    return translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=o.thickness_mm + 2 * EPSILON_MM)(polygon(notch_points(o, angle_deg)))
    )


def symbol_lift(o: Any, kind: str) -> Any:
    """How far above the token's centre its symbol's centre sits."""
    return o.diameter_mm * 0.17 if kind != "destroy" else o.diameter_mm * 0.2


def word_lines(o: Any, kind: str) -> list[tuple[str, Any]]:
    """(text, centre y) of the engraved name, and the Destroy token's profile under it."""
    h = o.name_height_mm
    lines = [("ENTRY" if kind == "entry" else kind.upper(), -o.diameter_mm * 0.14)]
    if kind == "destroy":
        lines.append((constants.DESTROY_PROFILE, -o.diameter_mm * 0.14 - h - 2))
    return lines


def build(design: Any, kind: str) -> OpenSCADObject:
    p = design.params
    o = p.objective
    disc = cylinder(d=o.diameter_mm, h=o.thickness_mm, _fn=FACETS)
    shapes = [polygon([list(pt) for pt in outline]) for outline in SYMBOLS[kind]()]
    symbol = translate([0, symbol_lift(o, kind), o.thickness_mm - EPSILON_MM])(
        linear_extrude(height=o.symbol_height_mm + EPSILON_MM)(
            scale([o.symbol_size_mm, o.symbol_size_mm])(union()(*shapes))
        )
    )
    h = o.name_height_mm
    words = [
        translate([0, y])(centred_text(line, h, p.text.stroke_mm))
        for line, y in word_lines(o, kind)
    ]
    body = engrave(disc, o.thickness_mm, [(p.text.depth_mm, words)])
    if notch_angles(kind):
        body = body - union()(*(_notch(o, a) for a in notch_angles(kind)))
    return union()(body, symbol)


def builder(kind: str) -> Any:
    def build_kind(design: Any) -> OpenSCADObject:
        return build(design, kind)

    build_kind.__name__ = f"build_{kind}"
    return build_kind

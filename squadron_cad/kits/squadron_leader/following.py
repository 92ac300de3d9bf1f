"""Squadron Leader's defaults that follow the maker's token width and clearances.

default.yaml sizes a 26 mm token. The defaults a maker leaves alone follow what they set:

- drawn on the token and the templates (the silhouette, where the forward guides start,
  the cost chevrons, the ruler's numerals): scaled with token.width_mm, both ways;
- fitted (the pegs, the ruler joint's tab): scaled down with a smaller token and kept on
  a larger one (they locate and hold; a bigger token asks no more of them);
- the paper mat's hex: the counter plus the default's room around it;

and, at any width, fitted to the room the rules leave:

- the text's stroke thins (to the checks' least) with the ruler's small numerals;
- the joint's snap ridges stand as far past ruler.joint_clearance_mm as the default's;
- the joint's tab narrows where the slot's walls would be thinner than WALL_MM;
- the altitude token's hole shrinks where its wall to the sockets, or the ring left for
  a player's mark, would be too thin.

A key the maker sets is theirs: kept as given, and refused if it does not fit. Only
numbers are followed; a value of the wrong kind is left for the model to refuse.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.mark_room import MARK_MIN_MM, MARK_WALL_MM
from squadron_cad.kits.squadron_leader.sections import (
    MOUTH_WALL_MM,
    WALL_MM,
    SquadronLeaderSections,
    peg_circle_radius,
)

WIDTH = "token.width_mm"
DRAWN = (  # scaled with the token both ways
    "plane.silhouette_length_mm",
    "plane.silhouette_span_mm",
    "plane.guide_start_mm",
    "templates.chevron_width_mm",
    "templates.chevron_length_mm",
    "templates.chevron_stroke_mm",
    "templates.chevron_pitch_mm",
    "ruler.numeral_height_mm",
)
FITTED = (  # scaled down with a smaller token, kept on a larger one
    "stacking.peg_diameter_mm",
    "stacking.peg_tip_diameter_mm",
    "stacking.peg_height_mm",
    "ruler.tab_width_mm",
    "ruler.tab_length_mm",
    "ruler.tab_flare_mm",
)
HEX = "paper.hex_across_flats_mm"
TAB_LEAST_MM = 0.8  # ruler.tab_width_mm's least (its field's bound)
LEAST_BITE_MM = 0.1  # a narrowed tab's shoulders stand at least this far past the clearance
STROKE_PER_HEIGHT = 0.2  # the default 0.7 mm stroke is 0.18 of the 4 mm numerals
STROKE_MARGIN_MM = 0.03  # over the least stroke: facets make the measured stroke a hair thinner
Given = Callable[[str], bool]


@cache
def reference() -> dict[str, float]:
    """The defaults the followed sizes are scaled from: the engine's, then this kit's."""
    from squadron_cad.paramfile import load_yaml_file
    from squadron_cad.resolve import ENGINE_DEFAULTS

    merged: dict[str, float] = {}
    for path in (ENGINE_DEFAULTS, constants.DEFAULTS_FILE):
        merged |= _leaves(load_yaml_file(path, "defaults"))
    return merged


def _leaves(tree: dict[str, Any], prefix: str = "") -> dict[str, float]:
    found: dict[str, float] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            found |= _leaves(value, f"{prefix}{key}.")
        elif _is_number(value):
            found[f"{prefix}{key}"] = float(value)
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


class _Follower:
    """The merged values, the defaults derived so far, and the maker's keys."""

    def __init__(self, values: dict[str, Any], given: Given) -> None:
        self.values, self.given = values, given
        self.derived: dict[str, float] = {}

    def now(self, path: str) -> float | None:
        """The value in use: derived, else the merged one if it is a number its field
        allows (else None: nothing follows from a value the model will refuse)."""
        if path in self.derived:
            return self.derived[path]
        value = _given_value(self, path)
        return value if value is not None and _allowed(path, value) else None

    def free(self, *paths: str) -> bool:
        """Whether every key is a default (the maker set none) holding a number."""
        return all(not self.given(path) and self.now(path) is not None for path in paths)

    def derive(self, path: str, value: float) -> None:
        if self.free(path):
            self.derived[path] = value


def follow(values: dict[str, Any], given: Given) -> dict[str, float]:
    """The defaults that follow, by dotted key (only those whose value changes)."""
    ref = reference()
    f = _Follower(values, given)
    width = f.now(WIDTH)
    if width is None or width <= 0:
        return {}
    scale = width / ref[WIDTH]
    for path in DRAWN:
        f.derive(path, round(ref[path] * scale, 2))
    for path in FITTED:
        f.derive(path, round(ref[path] * min(scale, 1.0), 2))
    f.derive(HEX, round(width + ref[HEX] - ref[WIDTH], 2))
    _numerals_fit_the_ruler(f, width)
    _stroke_fits_the_numerals(f)
    _tab_fits_the_slot(f, width)
    _snap_follows_the_clearance(f, ref)
    _hole_fits_the_ring(f, width)
    return {path: value for path, value in f.derived.items() if value != _given_value(f, path)}


def _allowed(path: str, value: float) -> bool:
    """Whether the field at this dotted path takes the value (its bounds)."""
    model: Any = SquadronLeaderSections
    info = None
    for part in path.split("."):
        fields = getattr(model, "model_fields", {})
        if part not in fields:
            return False
        info = fields[part]
        model = info.annotation
    checks = {"ge": value.__ge__, "gt": value.__gt__, "le": value.__le__, "lt": value.__lt__}
    for bound in info.metadata if info else ():
        for name, holds in checks.items():
            limit = getattr(bound, name, None)
            if limit is not None and not holds(limit):
                return False
    return True


def _given_value(f: _Follower, path: str) -> float | None:
    value: Any = f.values
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return float(value) if _is_number(value) else None


def _floor(value: float) -> float:
    """Down to 0.01 mm: a size fitted to a room must not round past it."""
    return math.floor(value * 100 + 1e-9) / 100


def _numerals_fit_the_ruler(f: _Follower, width: float) -> None:
    """At least the checks' least letter, at most 1 mm less than the ruler is wide."""
    height, least = f.now("ruler.numeral_height_mm"), f.now("checks.min_text_height_mm")
    if height is None or least is None:
        return
    most = _floor(width / constants.RULER_WIDTH_DIVISOR - 1)
    if least <= most:
        f.derive("ruler.numeral_height_mm", min(max(height, least), most))


def _stroke_fits_the_numerals(f: _Follower) -> None:
    """The text's stroke at most STROKE_PER_HEIGHT of the ruler's numerals, down to the
    checks' least stroke: a 2.46 mm "2" (a 16 mm token's ruler) in 0.7 mm strokes left a
    0.20 mm land between its strokes (under checks.min_text_gap_mm), in 0.6 mm none."""
    height, stroke = f.now("ruler.numeral_height_mm"), f.now("text.stroke_mm")
    least = f.now("checks.min_text_stroke_mm")
    if height is None or stroke is None or least is None:
        return
    fitted = max(_floor(height * STROKE_PER_HEIGHT), least + STROKE_MARGIN_MM)
    if fitted < stroke:
        f.derive("text.stroke_mm", fitted)


def _tab_fits_the_slot(f: _Follower, width: float) -> None:
    """Neck and shoulders narrowed together until the slot keeps WALL_MM each side, the
    shoulders kept at least LEAST_BITE_MM past the clearance (the head catches on them)."""
    neck, flare = "ruler.tab_width_mm", "ruler.tab_flare_mm"
    clearance = f.now("ruler.joint_clearance_mm")
    if clearance is None or not f.free(neck, flare):
        return
    now_neck, now_flare = f.now(neck) or 0.0, f.now(flare) or 0.0
    room = width / constants.RULER_WIDTH_DIVISOR - 2 * WALL_MM - 2 * clearance
    if now_neck + 2 * now_flare <= room:
        return
    scale = room / (now_neck + 2 * now_flare)
    shoulder = max(_floor(now_flare * scale), math.ceil((clearance + LEAST_BITE_MM) * 100) / 100)
    narrower = _floor(room - 2 * shoulder)
    if narrower >= TAB_LEAST_MM:
        f.derive(neck, narrower)
        f.derive(flare, shoulder)


def _snap_follows_the_clearance(f: _Follower, ref: dict[str, float]) -> None:
    """The snap ridges stand past the joint clearance by the default's share of the tab's
    shoulder (0.15 of 0.5 mm), so they hold whatever the clearance and the tab."""
    snap, clearance, flare = "ruler.joint_snap_mm", "ruler.joint_clearance_mm", "ruler.tab_flare_mm"
    gap, shoulder = f.now(clearance), f.now(flare)
    if gap is None or shoulder is None:
        return
    share = (ref[snap] - ref[clearance]) / ref[flare]
    f.derive(snap, round(gap + share * shoulder, 3))


def _hole_fits_the_ring(f: _Follower, width: float) -> None:
    """The altitude token's hole at most as wide as leaves WALL_MM to the sockets
    (MOUTH_WALL_MM at their chamfered mouths) and room for the smallest player's mark."""
    hole = "altitude.hole_scale"
    peg, gap = f.now("stacking.peg_diameter_mm"), f.now("stacking.peg_socket_clearance_mm")
    chamfer, frame = f.now("stacking.socket_chamfer_mm"), f.now("marks.frame_mm")
    if peg is None or gap is None or chamfer is None or frame is None or not f.free(hole):
        return
    token = _Token(width)
    socket = peg + gap
    circle = float(peg_circle_radius(token, socket, chamfer))
    half = circle - socket / 2 - max(WALL_MM, MOUTH_WALL_MM + chamfer)
    ring = MARK_MIN_MM + 2 * MARK_WALL_MM + 2 * frame
    largest = _floor(min(2 * half / token.across_flats_mm, 1 - 2 * ring / token.across_flats_mm))
    current = f.now(hole)
    if current is not None and 0 < largest < current:
        f.derive(hole, largest)


class _Token:
    """The token's sizes from a width (TokenParams' derived ones, for plain numbers)."""

    def __init__(self, width: float) -> None:
        self.width_mm = width
        self.across_flats_mm = width * math.cos(math.radians(constants.OCTAGON_CORNER_OFFSET_DEG))

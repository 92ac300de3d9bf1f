"""The ship trackers and the mission tracker: the stat card component
(squadron_cad.components.stat_card) and its clip.

A ship tracker has a Command row and a Hit Points row, 0..6, and a tag column before its
labels: the ship's number over its player's mark (standing flush in a recess, so the plates
give it the marks' colour), so a card is tied to one ship of one squadron. One part per
ship number, as the bases are, and one copy of each per player.

The mission tracker is the same card with one row, the rounds 1..4, and a band above the
row where a triangle points at each round on which the missions' tables change; the ship
trackers' clip rides on it (same card thickness and row width).
"""

from __future__ import annotations

from typing import Any

from solid2 import difference, linear_extrude, polygon, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.stat_card import shape
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.geometry.marks import flush_mark, mark_shape, player_mark
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.parts.common import engrave

Outlines = list[list[tuple[float, float]]]


def tracker_layout(p: Any) -> DialLayout:
    return DialLayout(p.stat_dial, p.text, tag_width=p.tracker_tag_mm)


def mission_layout(p: Any) -> DialLayout:
    return DialLayout(p.mission_card, p.text)


def number_centre(p: Any) -> tuple[float, float]:
    top, _bottom = shape.tag_centres(tracker_layout(p), 2)
    return float(top[0]), float(top[1])


def mark_centre(p: Any) -> tuple[float, float]:
    _top, bottom = shape.tag_centres(tracker_layout(p), 2)
    return float(bottom[0]), float(bottom[1])


def build_card(design: Any, number: int, player: int = 0) -> OpenSCADObject:
    """Ship `number`'s card of player `player` (0-based): its number and their mark."""
    p = design.params
    layout = tracker_layout(p)
    card = shape.card(layout)
    x, y = number_centre(p)
    numeral = translate([x, y])(
        centred_text(str(number), p.stat_dial.numeral_height_mm, p.text.stroke_mm)
    )
    engraved = engrave(card, p.stat_dial.card_thickness_mm, [(p.text.depth_mm, [numeral])])
    mx, my = mark_centre(p)
    mark = translate([mx, my, p.stat_dial.card_thickness_mm])(
        flush_mark(
            player_mark(p, player), p.tracker_mark_mm, constants.MARK_FRAME_MM, p.text.depth_mm
        )
    )
    return difference()(engraved, mark)


def card_builder(number: int) -> Any:
    def build_number(design: Any) -> OpenSCADObject:
        return build_card(design, number)

    build_number.__name__ = f"build_tracker_card_{number}"
    return build_number


def card_player_builder(number: int) -> Any:
    def build_number_for(design: Any, player: int) -> OpenSCADObject:
        return build_card(design, number, player)

    build_number_for.__name__ = f"build_tracker_card_{number}_for"
    return build_number_for


def mark_outline(p: Any, player: int) -> Outlines:
    """The flush mark's own outline grown halfway across its recess (the marks' volume on
    the plates: the mark, not the top round it)."""
    x, y = mark_centre(p)
    outline = mark_shape(player_mark(p, player), p.tracker_mark_mm, (x, y))
    grown = outline.buffer(constants.MARK_FRAME_MM / 2)
    return [[(float(a), float(b)) for a, b in grown.exterior.coords[:-1]]]


def build_clip(design: Any) -> OpenSCADObject:
    return shape.clip(tracker_layout(design.params))


# ---- the mission tracker -------------------------------------------------------------------


def legend_band(p: Any) -> tuple[float, float]:
    """The band above the row (y from, to) where the change rounds are pointed at: the
    clip's jaws end short of the row's top edge, so they never reach it."""
    bottom = float(mission_layout(p).height)
    return bottom, bottom + p.mission_legend_mm


def change_triangle(p: Any, value: int) -> OpenSCADObject:
    """A triangle in the band pointing down at round `value`'s numeral."""
    x = float(mission_layout(p).value_x(value))
    low, high = legend_band(p)
    half = (high - low) / 2 - constants.LEGEND_MARGIN_MM
    centre = (low + high) / 2
    return polygon([[x - half, centre + half], [x + half, centre + half], [x, centre - half]])


def build_mission_card(design: Any) -> OpenSCADObject:
    """The rounds 1..4 on one row, the band above it, a triangle over each change round."""
    p = design.params
    layout = mission_layout(p)
    low, high = legend_band(p)
    start, end = p.mission_card.label_width_mm, layout.length
    band = translate([start, low - EPSILON_MM, 0])(
        linear_extrude(height=p.mission_card.card_thickness_mm)(
            square([end - start, high - low + EPSILON_MM])
        )
    )
    body = union()(shape.card(layout), band)
    triangles = [change_triangle(p, value) for value in constants.MISSION_CHANGE_ROUNDS]
    return engrave(body, p.mission_card.card_thickness_mm, [(p.text.depth_mm, triangles)])

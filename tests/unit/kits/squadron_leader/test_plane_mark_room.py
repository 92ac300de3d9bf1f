"""The room for a player's mark beside the plane's silhouette, measured without shapely
(every parameter check runs it): the same distance as shapely's, inside and out."""

from __future__ import annotations

import random

import pytest
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry.icons import PLANE_SILHOUETTE
from squadron_cad.kits.squadron_leader.mark_room import (
    MARK_WALL_MM,
    SILHOUETTE_GROWTH_MM,
    distance_to_outline,
    plane_mark_mm,
)
from squadron_cad.resolve import resolve

PARTS = [[(u * 20.0, v * 16.0) for u, v in part] for part in PLANE_SILHOUETTE]
SHAPE = unary_union([Polygon(part) for part in PARTS])


def test_the_distance_is_shapelys_inside_and_outside_the_silhouette() -> None:
    draw = random.Random(7)
    points = [(draw.uniform(-14, 14), draw.uniform(-12, 12)) for _ in range(400)]
    inside = 0
    for point in points:
        expected = SHAPE.distance(Point(point))
        inside += expected == 0
        assert distance_to_outline(PARTS, point) == pytest.approx(expected, abs=1e-9), point
    assert 20 < inside < 380  # both sides of the outline were tried


@pytest.mark.parametrize("width", [16, 22, 26, 30, 45, 80, 120])
def test_the_plane_tokens_mark_is_as_shapely_measured_it(width: int) -> None:
    big_tin = ["tin.inner_length_mm=400", "tin.inner_width_mm=300", "tin.inner_depth_mm=80"]
    kit = resolve(overrides=[f"token.width_mm={width}", *big_tin])
    x, y = (width * f for f in constants.PLANE_MARK_AT_WIDTHS)
    length, span = float(kit.plane.silhouette_length_mm), float(kit.plane.silhouette_span_mm)
    outline = unary_union(
        [Polygon([(u * length, v * span) for u, v in part]) for part in PLANE_SILHOUETTE]
    )
    clear = outline.distance(Point(x, y)) - kit.checks.min_mark_clearance_mm - SILHOUETTE_GROWTH_MM
    room = 2 * (float(kit.token.across_flats_mm) / 2 - MARK_WALL_MM - (x * x + y * y) ** 0.5)
    assert plane_mark_mm(kit) == pytest.approx(
        min(float(kit.marks.plane_size_mm), room, 2 * clear), abs=1e-9
    )

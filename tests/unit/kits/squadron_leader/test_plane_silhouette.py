"""Squadron Leader's plane silhouette (its geometry.icons): one simple polygon in the unit
box, few vertices, no feature too thin to print."""

import pytest

from squadron_cad.kits.squadron_leader.geometry.icons import PLANE_SILHOUETTE, silhouette_union


def test_silhouette_is_one_polygon_spanning_unit_box() -> None:
    union = silhouette_union()
    assert union.geom_type == "Polygon"
    assert union.is_valid
    assert union.bounds == pytest.approx((-0.5, -0.5, 0.5, 0.5))


def test_silhouette_parts_are_simple_and_ccw() -> None:
    from shapely.geometry import Polygon

    for points in PLANE_SILHOUETTE:
        polygon = Polygon(points)
        assert polygon.is_valid, points
        assert polygon.exterior.is_simple, points
        assert polygon.exterior.is_ccw, points
        assert polygon.area > 0


def test_silhouette_vertex_budget() -> None:
    assert sum(len(p) for p in PLANE_SILHOUETTE) <= 60


def test_silhouette_minimum_feature_width() -> None:
    # An opening by radius 0.03 erases anything narrower than 0.06; little may be lost.
    union = silhouette_union()
    opened = union.buffer(-0.03).buffer(0.03)
    assert opened.geom_type == "Polygon"
    assert opened.area >= 0.97 * union.area

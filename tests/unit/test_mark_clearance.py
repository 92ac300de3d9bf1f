"""A player's mark clear of the labels beside it, measured where players' copies differ
(checks.mark_clearance), on copies built on purpose."""

from __future__ import annotations

import manifold3d
import pytest
import shapely
from shapely.geometry import Point, box

from squadron_cad.checks.mark_clearance import mark_clearance, top_features
from squadron_cad.checks.meshgeo import to_trimesh

DEPTH, THICK = 0.5, 2.0


def copy_with(*cuts: shapely.Geometry):
    """A 30 x 20 x 2 mm card with each shape engraved DEPTH deep into its top."""
    card = manifold3d.Manifold.cube([30, 20, THICK])
    for cut in cuts:
        rings = [list(cut.exterior.coords)[:-1], *(list(r.coords)[:-1] for r in cut.interiors)]
        section = manifold3d.CrossSection(rings, manifold3d.FillRule.EvenOdd)
        card -= section.extrude(DEPTH + 1).translate((0, 0, THICK - DEPTH))
    return to_trimesh(card)


def features(label_gap: float) -> list[list]:
    """Player 1 a round mark, player 2 a square one, both 4 mm across centred at (8, 10);
    the label a bar `label_gap` right of the round mark's edge."""
    label = box(10 + label_gap, 8, 11 + label_gap, 12)
    circle, square = Point(8, 10).buffer(2, quad_segs=16), box(6.6, 8.6, 9.4, 11.4)
    return [top_features(copy_with(mark, label), DEPTH) for mark in (circle, square)]


@pytest.mark.parametrize("gap", [0.5, 1.5])
def test_the_clearance_is_measured_from_each_players_mark(gap: float) -> None:
    found = features(gap)
    assert mark_clearance(found, 0).mm == pytest.approx(gap, abs=0.03)  # the round mark
    assert mark_clearance(found, 1).mm == pytest.approx(gap + 0.6, abs=0.03)  # the square


def test_a_label_fused_into_a_mark_measures_zero() -> None:
    found = features(-0.2)  # the bar cuts into the round mark
    assert mark_clearance(found, 0).mm == pytest.approx(0.0, abs=1e-6)


def test_copies_that_do_not_differ_carry_no_mark() -> None:
    same = top_features(copy_with(box(10, 8, 11, 12)), DEPTH)
    assert mark_clearance([same, same], 0) is None

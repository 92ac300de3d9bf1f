"""The rules measured on stand-in meshes: exact geometry passes, the original's errors fail."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from shapely import affinity
from shapely.geometry import LineString, Polygon, box
from shapely.ops import unary_union

from squadron_cad.checks import meshgeo
from squadron_cad.kits.squadron_leader.checks import invariants as I
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.resolve import resolve


@pytest.fixture(scope="module")
def params() -> SquadronLeaderParams:
    return resolve()


def octagon(width: float, x: float = 0.0, y: float = 0.0, turn: float = 0.0) -> Polygon:
    """Across the corners `width`, flats facing the axes (corners at 22.5 + k * 45 deg)."""
    angles = np.radians(22.5 + 45 * np.arange(8) + turn)
    radius = width / 2
    return Polygon(np.column_stack([x + radius * np.cos(angles), y + radius * np.sin(angles)]))


def straight_template(end_shift: float = 0.0) -> trimesh.Trimesh:
    """A straight template 26 x 78 with both notches and one chevron hole cut through."""
    offset = 26 / 6
    outline = (
        box(0, -13, 78, 13)
        .difference(octagon(26, -offset))
        .difference(octagon(26, 78 + offset + end_shift))
    )
    outline = outline.difference(box(37, -3, 41, 3))  # the cost mark, through
    return trimesh.creation.extrude_polygon(outline, 4)


def by_name(found: list[dict], start: str) -> dict:
    return next(item for item in found if item["name"].startswith(start))


def test_an_exact_straight_template_passes(params: SquadronLeaderParams) -> None:
    fit = I.measure_template(straight_template(), params, ("straight",))
    found = I.move_invariants(params, {"straight": fit})
    assert all(item["ok"] for item in found), found
    assert by_name(found, "straight: plane travels")["measured"] == pytest.approx(78 + 2 * 26 / 6)
    assert fit.start is not None
    assert fit.start.across_flats_mm == pytest.approx(26 * math.cos(math.radians(22.5)), abs=1e-3)


def test_a_misplaced_end_notch_is_caught(params: SquadronLeaderParams) -> None:
    # The original's bank notch was about 0.38 mm off: the same error on a straight one.
    fit = I.measure_template(straight_template(end_shift=0.38), params, ("straight",))
    found = I.move_invariants(params, {"straight": fit})
    assert not by_name(found, "straight: plane travels")["ok"]
    assert by_name(found, "straight: end notch off")["measured"] == pytest.approx(0.38, abs=1e-3)


def test_a_bank_measures_its_turn(params: SquadronLeaderParams) -> None:
    path = move_paths.paths(params)["bank"]
    offset = float(params.notch_offset_mm)
    centre = (0.0, float(path.centre_radius))
    inner = float(path.inner_radius)
    ring = affinity.translate(_annulus(inner, inner + 26), *centre)
    ring = ring.intersection(_wedge(centre, -90, -45))
    end = path.beyond_end(offset)
    outline = ring.difference(octagon(26, -offset)).difference(
        octagon(26, float(end.x), float(end.y), float(end.heading_deg))
    )
    outline = outline.difference(box(40, 4, 42, 8)).difference(box(46, 8, 48, 12))
    fit = I.measure_template(trimesh.creation.extrude_polygon(outline, 4), params, ("bank",))
    found = I.move_invariants(params, {"bank": fit})
    assert by_name(found, "bank: plane turns")["measured"] == pytest.approx(45, abs=0.05)
    assert by_name(found, "bank: cost chevrons")["ok"]
    assert all(item["ok"] for item in found), found


def _annulus(inner: float, outer: float) -> Polygon:
    return Polygon(
        np.array([[math.cos(a), math.sin(a)] for a in np.radians(np.arange(0, 360, 0.5))]) * outer
    ).difference(
        Polygon(np.array([[math.cos(a), math.sin(a)] for a in np.radians(np.arange(0, 360, 0.5))])
                * inner)
    )  # fmt: skip


def _wedge(centre: tuple[float, float], start: float, end: float) -> Polygon:
    far = 1000
    points = [centre] + [
        (centre[0] + far * math.cos(math.radians(a)), centre[1] + far * math.sin(math.radians(a)))
        for a in np.linspace(start, end, 16)
    ]
    return Polygon(points)


def grooved_token(
    arc_half_angle: float = 45.0,
    guide_y: float = 3.25,
    guide_start: float = 3.5,
    covered: tuple[float, float] | None = None,
) -> trimesh.Trimesh:
    """An octagon plate 4 thick with the firing arc lines and forward guides cut 1 deep.
    The arc lines start 6 out: on the token the silhouette hides them where they would
    cross the guides' start. `covered`: an x range where something covers the guides."""
    body = trimesh.creation.extrude_polygon(octagon(26), 4)
    reach = 14.0
    lines = [
        LineString([(6 * math.cos(math.radians(a)), 6 * math.sin(math.radians(a))),
                    (reach * math.cos(math.radians(a)), reach * math.sin(math.radians(a)))])
        for a in (arc_half_angle, -arc_half_angle)
    ] + [LineString([(guide_start, y), (reach, y)]) for y in (guide_y, -guide_y)]  # fmt: skip
    grooves = unary_union([line.buffer(0.5, cap_style="flat") for line in lines])
    if covered is not None:
        grooves = grooves.difference(box(covered[0], -20, covered[1], 20))
    solid = meshgeo.to_manifold(body)
    for groove in meshgeo.polygons(grooves):
        cutter = trimesh.creation.extrude_polygon(groove, 2)
        cutter.apply_translation([0, 0, 3])
        solid = solid - meshgeo.to_manifold(cutter)
    return meshgeo.to_trimesh(solid)


def test_the_firing_arc_and_guides_are_measured(params: SquadronLeaderParams) -> None:
    found = I.groove_invariants(params, grooved_token(), None)
    assert all(item["ok"] for item in found), found
    assert by_name(found, "forward guides apart")["measured"] == pytest.approx(6.5, abs=1e-3)


def test_a_narrow_firing_arc_is_caught(params: SquadronLeaderParams) -> None:
    found = I.groove_invariants(params, grooved_token(arc_half_angle=40), None)
    assert by_name(found, "firing arc lines apart")["measured"] == pytest.approx(80, abs=0.05)
    assert not by_name(found, "firing arc lines apart")["ok"]


def test_guides_under_the_wing_and_propeller_are_caught(params: SquadronLeaderParams) -> None:
    """Issue 19: the guides showed from 4.7 mm, with the propeller over 1.3 mm of them."""
    found = I.groove_invariants(params, grooved_token(guide_start=4.7, covered=(7.4, 8.7)), None)
    start = by_name(found, "forward guides start")
    visible = by_name(found, "forward guides visible")
    assert start["measured"] == pytest.approx(4.7, abs=1e-3)
    assert not start["ok"]
    assert visible["measured"] == pytest.approx(6.01, abs=0.01)
    assert not visible["ok"]


def test_guides_too_far_apart_are_caught(params: SquadronLeaderParams) -> None:
    found = I.groove_invariants(params, grooved_token(guide_y=4.0), None)
    assert not by_name(found, "forward guides apart")["ok"]


def test_an_invariant_records_what_it_compared() -> None:
    item = I.invariant("thing (mm)", 10.0, 10.04, 0.05)
    assert item == {
        "name": "thing (mm)", "expected": 10.0, "measured": 10.04, "tolerance": 0.05, "ok": True
    }  # fmt: skip
    assert not I.invariant("thing", 1.0, None, 0.1)["ok"]

"""The sectioned ruler's snap joint (squadron_cad.components.ruler_joint), measured on
stand-in meshes: the snap joint holds, a tapered dovetail stretches and lifts off, a zero
clearance and a straight tab are caught."""

from __future__ import annotations

import math

import manifold3d
import pytest
import trimesh
from shapely.geometry import Polygon, box

from squadron_cad.checks import meshgeo
from squadron_cad.checks.fits import FitLimits
from squadron_cad.components.ruler_joint.measure import joint_findings, measure_joint
from squadron_cad.components.ruler_joint.params import SectionedRulerParams
from squadron_cad.params import FitRange

M = manifold3d.Manifold
LIMITS = FitLimits(FitRange(min_mm=0.1, max_mm=0.3), "ruler_joint_fit", 0.02)


@pytest.fixture(scope="module")
def ruler() -> SectionedRulerParams:
    """The default ruler section: 3.25 mm neck, 0.5 mm flare, 5 mm tab, 0.15 / 0.05 mm."""
    return SectionedRulerParams(
        thickness_mm=4, mark_width_mm=1, mark_depth_mm=0.6, numeral_height_mm=4,
        tab_width_mm=3.25, tab_length_mm=5, tab_flare_mm=0.5, joint_clearance_mm=0.15,
        joint_axial_clearance_mm=0.05, joint_snap_mm=0.3,
    )  # fmt: skip


def by_check(findings: list, check: str):
    return next(f for f in findings if f.check == check)


def dovetail(root_x: float, flare: float) -> Polygon:
    return Polygon([(root_x - 0.01, -1.625), (root_x + 5, -1.625 - flare),
                    (root_x + 5, 1.625 + flare), (root_x - 0.01, 1.625)])  # fmt: skip


def ruler_pair(clearance: float, flare: float = 0.5) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    strip = box(0, -3.25, 78, 3.25)
    first = strip.union(dovetail(78, flare))
    second = strip.difference(dovetail(0, flare).buffer(clearance, join_style="mitre"))
    return tuple(trimesh.creation.extrude_polygon(p, 4) for p in (first, second))


def snap_ruler_pair(
    clearance: float = 0.15, axial: float = 0.05, snap: float = 0.3
) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    """The joint the component builds from the default ruler, as stand-ins: a neck
    (3.25 x 2.5) and a head (4.25 x 2.5) whose shoulders bear, V snap ridges at mid-height."""
    strip = box(0, -3.25, 78, 3.25)
    tab = box(77.99, -1.625, 80.5, 1.625).union(box(80.5, -2.125, 83, 2.125))
    slot = box(-1, -1.625 - clearance, 2.5 - axial, 1.625 + clearance).union(
        box(2.5 - axial, -2.125 - clearance, 5 + clearance, 2.125 + clearance)
    )
    first = meshgeo.to_manifold(trimesh.creation.extrude_polygon(strip.union(tab), 4))
    second = meshgeo.to_manifold(trimesh.creation.extrude_polygon(strip.difference(slot), 4))

    def ridges(x0: float, x1: float, grow: float) -> M:
        apex, base = 1.625 + snap + grow * math.sqrt(2), 1.625 - 0.01 - grow
        reach = apex - base
        triangle = Polygon([(base, 2 - reach), (apex, 2), (base, 2 + reach)])
        ridge = trimesh.creation.extrude_polygon(triangle, x1 - x0)  # (y, z) extruded along x
        ridge.apply_transform([[0, 0, 1, x0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
        one = meshgeo.to_manifold(ridge)
        return one + one.mirror([0, 1, 0])

    first = first + ridges(78, 80.5, 0)
    second = second - ridges(-1, 2.5 - axial + 0.01, clearance)
    return meshgeo.to_trimesh(first), meshgeo.to_trimesh(second)


def test_a_snap_joint_with_its_clearances_holds(ruler: SectionedRulerParams) -> None:
    joint = measure_joint(*snap_ruler_pair())
    assert joint.offset_mm == pytest.approx(78)
    assert joint.play_mm["pull"] == pytest.approx(0.05, abs=1e-3)
    assert joint.play_mm["push"] == pytest.approx(0.0, abs=1e-3)
    assert joint.lateral_mm == pytest.approx(0.15, abs=1e-3)
    assert joint.lift_mm == pytest.approx(0.15 * math.sqrt(2), abs=2e-3)
    assert not [f for f in joint_findings(ruler, LIMITS, joint, "r1+r2", 3) if f.failed]


def test_the_tapered_dovetail_stretches_and_lifts_off(ruler: SectionedRulerParams) -> None:
    """The joint of issue 19: a 0.5 mm flare over 5 mm, 0.15 mm clearance all round."""
    joint = measure_joint(*ruler_pair(0.15))
    assert joint.play_mm["pull"] == pytest.approx(1.51, abs=0.01)
    assert math.isinf(joint.play_mm["up"])
    assert math.isinf(joint.play_mm["down"])
    findings = joint_findings(ruler, LIMITS, joint, "r1+r2", 3)
    assert by_check(findings, "joint_pull_play").failed
    assert by_check(findings, "joint_lift_play").failed


def test_a_zero_clearance_joint_is_caught(ruler: SectionedRulerParams) -> None:
    joint = measure_joint(*snap_ruler_pair(clearance=0.0))
    assert by_check(joint_findings(ruler, LIMITS, joint, "r1+r2", 3), "joint_side_play").failed


def test_a_straight_tab_pulls_out(ruler: SectionedRulerParams) -> None:
    joint = measure_joint(*ruler_pair(0.15, flare=0))
    assert math.isinf(joint.play_mm["pull"])
    assert by_check(joint_findings(ruler, LIMITS, joint, "r1+r2", 3), "joint_pull_play").failed

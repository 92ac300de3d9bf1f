"""Fits between parts, on small stand-in meshes: zero clearance and bottoming out are caught."""

from __future__ import annotations

import math

import manifold3d
import pytest
import trimesh
from shapely.geometry import Polygon, box

from squadron_cad.checks import meshgeo
from squadron_cad.checks.meshgeo import to_trimesh
from squadron_cad.kits.squadron_leader.checks import clearances as C
from squadron_cad.kits.squadron_leader.params import KitParams
from squadron_cad.params import FitRange
from squadron_cad.resolve import resolve

M = manifold3d.Manifold
SEGMENTS = 16
PEG_RADIUS = 6.0


@pytest.fixture(scope="module")
def params() -> KitParams:
    return resolve()


def around(angles: range | tuple[int, ...], shape: M) -> M:
    placed = [
        shape.translate([PEG_RADIUS * math.cos(math.radians(a)),
                         PEG_RADIUS * math.sin(math.radians(a)), 0])
        for a in angles
    ]  # fmt: skip
    return M.batch_boolean(placed, manifold3d.OpType.Add)


def token(clearance: float, socket_depth: float, pegs: bool) -> trimesh.Trimesh:
    """A round stand-in token: 8 sockets below, 4 pegs (3 mm, 1.5 tall) on the diagonals."""
    body = M.cylinder(4, 10, circular_segments=64)
    socket = M.cylinder(socket_depth + 0.01, (3 + clearance) / 2, circular_segments=SEGMENTS)
    body = body - around(range(0, 360, 45), socket.translate([0, 0, -0.01]))
    if pegs:
        peg = M.cylinder(1.51, 1.5, circular_segments=SEGMENTS).translate([0, 0, 3.99])
        body = body + around((45, 135, 225, 315), peg)
    return to_trimesh(body)


def stack(clearance: float, socket_depth: float = 1.625) -> C.StackMeasure:
    lower = token(clearance, socket_depth, pegs=True)
    upper = token(clearance, socket_depth, pegs=False)
    return C.measure_stack(lower, upper, "stand_in")


def by_check(findings: list, check: str):
    return next(f for f in findings if f.check == check)


def test_designed_clearance_seats_at_every_turn(params: KitParams) -> None:
    measured = stack(0.25)
    assert all(measured.seats.values())
    assert measured.pitch_mm == pytest.approx(4.0)
    assert measured.radial_gap_mm == pytest.approx(0.125 * math.cos(math.pi / SEGMENTS), abs=1e-3)
    assert measured.tip_gap_mm == pytest.approx(0.125, abs=1e-3)
    assert not [f for f in C.stack_findings(params, measured) if f.failed]


def test_a_zero_clearance_fit_is_caught(params: KitParams) -> None:
    findings = C.stack_findings(params, stack(0.0))
    gap = by_check(findings, "stack_peg_gap")
    assert gap.failed
    assert "no clearance" in gap.message


def test_pegs_that_bottom_out_are_caught(params: KitParams) -> None:
    findings = C.stack_findings(params, stack(0.25, socket_depth=1.4))
    assert by_check(findings, "stack_seats").failed
    assert by_check(findings, "stack_tip_gap").failed


# ---- ruler joint -------------------------------------------------------------------------


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
    """The joint range_ruler.py builds, as stand-ins: a neck (3.25 x 2.5) and a head
    (4.25 x 2.5) whose shoulders bear, V snap ridges at mid-height on the neck."""
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


def test_a_snap_joint_with_its_clearances_holds(params: KitParams) -> None:
    joint = C.measure_joint(*snap_ruler_pair())
    assert joint.offset_mm == pytest.approx(78)
    assert joint.play_mm["pull"] == pytest.approx(0.05, abs=1e-3)
    assert joint.play_mm["push"] == pytest.approx(0.0, abs=1e-3)
    assert joint.lateral_mm == pytest.approx(0.15, abs=1e-3)
    assert joint.lift_mm == pytest.approx(0.15 * math.sqrt(2), abs=2e-3)
    assert not [f for f in C.joint_findings(params, joint, "r1+r2") if f.failed]


def test_the_tapered_dovetail_stretches_and_lifts_off(params: KitParams) -> None:
    """The joint of issue 19: a 0.5 mm flare over 5 mm, 0.15 mm clearance all round."""
    joint = C.measure_joint(*ruler_pair(0.15))
    assert joint.play_mm["pull"] == pytest.approx(1.51, abs=0.01)
    assert math.isinf(joint.play_mm["up"])
    assert math.isinf(joint.play_mm["down"])
    findings = C.joint_findings(params, joint, "r1+r2")
    assert by_check(findings, "joint_pull_play").failed
    assert by_check(findings, "joint_lift_play").failed


def test_a_zero_clearance_joint_is_caught(params: KitParams) -> None:
    joint = C.measure_joint(*snap_ruler_pair(clearance=0.0))
    assert by_check(C.joint_findings(params, joint, "r1+r2"), "joint_side_play").failed


def test_a_straight_tab_pulls_out(params: KitParams) -> None:
    joint = C.measure_joint(*ruler_pair(0.15, flare=0))
    assert math.isinf(joint.play_mm["pull"])
    assert by_check(C.joint_findings(params, joint, "r1+r2"), "joint_pull_play").failed


# ---- fit ranges --------------------------------------------------------------------------


def test_a_gap_off_its_parameter_fails_and_off_its_norm_warns() -> None:
    fit = FitRange(min_mm=0.2, max_mm=0.3)
    assert C.fit_finding("a+b", "gap", 0.25, 0.25, fit, "clip_fit", 0.02).severity == "ok"
    assert C.fit_finding("a+b", "gap", 0.15, 0.25, fit, "clip_fit", 0.02).severity == "error"
    assert C.fit_finding("a+b", "gap", 0.12, 0.12, fit, "clip_fit", 0.02).severity == "warning"
    assert C.fit_finding("a+b", "gap", -0.1, 0.12, fit, "clip_fit", 0.02).severity == "error"


def test_a_piece_overlapping_its_pocket_is_caught() -> None:
    finding = C.overlap_finding("box+token", "in_pocket", 2.5, "token and box")
    assert finding.failed
    assert "2.500 mm3" in finding.message

"""Fits between parts, on small stand-in meshes: zero clearance and bottoming out are caught."""

from __future__ import annotations

import math

import manifold3d
import pytest
import trimesh

from squadron_cad.checks.meshgeo import to_trimesh
from squadron_cad.kits.squadron_leader.checks import clearances as C
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.params import FitRange
from squadron_cad.resolve import resolve

M = manifold3d.Manifold
SEGMENTS = 16
PEG_RADIUS = 6.0


@pytest.fixture(scope="module")
def params() -> SquadronLeaderParams:
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


def test_designed_clearance_seats_at_every_turn(params: SquadronLeaderParams) -> None:
    measured = stack(0.25)
    assert all(measured.seats.values())
    assert measured.pitch_mm == pytest.approx(4.0)
    assert measured.radial_gap_mm == pytest.approx(0.125 * math.cos(math.pi / SEGMENTS), abs=1e-3)
    assert measured.tip_gap_mm == pytest.approx(0.125, abs=1e-3)
    assert not [f for f in C.stack_findings(params, measured) if f.failed]


def test_a_zero_clearance_fit_is_caught(params: SquadronLeaderParams) -> None:
    findings = C.stack_findings(params, stack(0.0))
    gap = by_check(findings, "stack_peg_gap")
    assert gap.failed
    assert "no clearance" in gap.message


def test_pegs_that_bottom_out_are_caught(params: SquadronLeaderParams) -> None:
    findings = C.stack_findings(params, stack(0.25, socket_depth=1.4))
    assert by_check(findings, "stack_seats").failed
    assert by_check(findings, "stack_tip_gap").failed


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

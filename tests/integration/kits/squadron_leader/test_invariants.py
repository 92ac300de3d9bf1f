"""The rules' invariants, measured on real renders at several token widths."""

from __future__ import annotations

from pathlib import Path

import pytest
import trimesh
from helpers import MESHES_ONLY, TEST_JOBS

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.kits.squadron_leader.checks.kit import rule_invariants as invariants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

# Other widths need a few companion values (a 22 mm token has less room for pegs, a
# narrower ruler for its dovetail); draft quality: the invariants do not depend on curves.
WIDTHS: dict[int, list[str]] = {
    22: [
        "token.width_mm=22",
        "stacking.peg_diameter_mm=2.5",
        "altitude.hole_scale=0.54",
        "ruler.tab_width_mm=2.5",
        "ruler.tab_flare_mm=0.4",
        "plane.silhouette_length_mm=14.7",
        "plane.silhouette_span_mm=17.4",
        "quality=draft",
    ],
    30: ["token.width_mm=30", "box.leave_out=[dice]", "quality=draft"],
}

Kit = tuple[SquadronLeaderParams, dict[str, trimesh.Trimesh]]
# A check from each family kit_findings runs: stacks, ruler joint, clip, box and lid, rattle.
KIT_CHECKS = {"stack_seats", "joint_pull_play", "clip_gap_top", "detent_interference"}
KIT_CHECKS |= {"lid_gap", "closed_in_tin", "pocket_gap", "rattle"}


@pytest.fixture(scope="module", params=sorted(WIDTHS), ids=lambda w: f"width{w}")
def other_build(request, tmp_path_factory, shared_cache: Path) -> BuildReport:
    folder = tmp_path_factory.mktemp(f"width{request.param}")
    params = resolve(overrides=WIDTHS[request.param])
    options = BuildOptions(out_dir=folder, jobs=TEST_JOBS, cache_dir=shared_cache, **MESHES_ONLY)
    return build(params, options)


@pytest.fixture(scope="module")
def other_kit(other_build: BuildReport) -> Kit:
    return other_build.params, {r.spec.name: load_mesh(r.stl) for r in other_build.parts}


@pytest.fixture(scope="module")
def default(default_kit, default_meshes) -> Kit:
    return default_kit.params, default_meshes


def failed(found: list[dict]) -> list[dict]:
    return [item for item in found if not item["ok"]]


def test_the_invariants_hold_at_the_default_width(default: Kit) -> None:
    found = invariants(*default)
    assert len(found) >= 8
    assert not failed(found), failed(found)
    names = " | ".join(item["name"] for item in found)
    for rule in ("straight: plane travels", "bank: plane turns", "turn: plane turns",
                 "firing arc lines apart", "forward guides apart", "range mark 1",
                 "three-part ruler assembled", "plane on 4 altitude tokens",
                 "notch across flats", "all-in-one bank path"):  # fmt: skip
        assert rule in names


def test_the_invariants_hold_at_other_widths(other_kit: Kit) -> None:
    found = invariants(*other_kit)
    assert len(found) >= 8
    assert not failed(found), failed(found)


def test_the_straight_move_is_three_tokens_and_two_notch_offsets(default: Kit) -> None:
    found = {item["name"]: item for item in invariants(*default)}
    assert found["straight: plane travels (mm)"]["measured"] == pytest.approx(78 + 2 * 26 / 6,
                                                                              abs=0.01)  # fmt: skip
    assert found["plane on 4 altitude tokens stands (mm)"]["measured"] == pytest.approx(21)


def test_the_kit_checks_find_no_errors(default_kit: BuildReport, other_build: BuildReport) -> None:
    """The kit checks as each build ran them (kit_findings, its values kept by mesh content)."""
    for report in (default_kit, other_build):
        ran = {f.check for f in report.kit_findings}
        assert ran >= KIT_CHECKS, KIT_CHECKS - ran
        errors = [f.line() for f in report.kit_findings if f.failed]
        assert not errors, errors

"""Issue 19, measured on real renders of the parts at token widths 26 and 30: the ruler
joint holds its length and does not lift apart, the stat clip runs with clearance on every
face and clicks, the forward guides show in full.

Each test fails on the geometry before issue 19 (figures in the comments)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trimesh
from helpers import TEST_JOBS

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.components.ruler_joint import measure as joint
from squadron_cad.components.stat_card import measure as card
from squadron_cad.kits.squadron_leader.checks import clearances as C
from squadron_cad.kits.squadron_leader.checks import invariants as I
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

PARTS = (
    "range_ruler_1",
    "range_ruler_2",
    "range_ruler_3",
    "stat_dial_card",
    "stat_dial_clip",
    "plane_token",
)
WIDTHS = (26, 30)

Kit = tuple[SquadronLeaderParams, dict[str, trimesh.Trimesh]]


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"width{w}")
def kit(request, tmp_path_factory, shared_cache: Path) -> Kit:
    params = resolve(overrides=[f"token.width_mm={request.param}", "quality=draft"])
    options = BuildOptions(
        out_dir=tmp_path_factory.mktemp(f"parts{request.param}"),
        only=PARTS,
        jobs=TEST_JOBS,
        slice=False,
        plates=False,
        previews=False,
        keep_failed=True,
        cache_dir=shared_cache,
    )
    report = build(params, options)
    return params, {r.spec.name: load_mesh(r.stl) for r in report.parts}


def test_the_ruler_joints_do_not_stretch_or_lift(kit: Kit) -> None:
    """Before: pull 1.51 mm per joint, side 0.15, up and down free (no collision)."""
    params, meshes = kit
    for first, second in (("range_ruler_1", "range_ruler_2"), ("range_ruler_2", "range_ruler_3")):
        measured = joint.measure_joint(meshes[first], meshes[second])
        assert measured.overlap_mm3 <= 1e-3
        assert measured.play_mm["pull"] <= 0.1 + 1e-3
        assert measured.play_mm["push"] == pytest.approx(0, abs=1e-3)
        assert measured.lateral_mm == pytest.approx(params.ruler.joint_clearance_mm, abs=0.02)
        assert 0 < measured.play_mm["up"] <= 0.5
        assert 0 < measured.play_mm["down"] <= 0.5
        limits, name = C.joint_limits(params), f"{first}+{second}"
        findings = joint.joint_findings(params.ruler, limits, measured, name, C.SECTIONS)
        assert not [f for f in findings if f.failed]


def test_the_pulled_ruler_is_three_templates_long(kit: Kit) -> None:
    """Before: 234.0 pushed, 237.0 pulled (width 26)."""
    params, meshes = kit
    sections = [meshes[f"range_ruler_{i}"] for i in (1, 2, 3)]
    length = I.assembled_length(sections)
    assert length == pytest.approx(float(params.ruler_length_mm), abs=joint.RULER_STRETCH_MAX_MM)
    assert length >= float(params.ruler_length_mm) - 1e-3


def test_the_clip_runs_free_and_clicks(kit: Kit) -> None:
    """Before: top gap 0, bottom 0.20, edge 0.19, interference 0.40 mm, strain 1.6 %."""
    params, meshes = kit
    layout = C.dial_layout(params)
    dial = card.measure_dial(layout, meshes["stat_dial_card"], meshes["stat_dial_clip"])
    for gap in (dial.below_gap_mm, dial.edge_gap_mm, dial.top_gap_mm):
        assert 0.2 <= gap <= 0.3
        assert gap == pytest.approx(params.stat_dial.clip_clearance_mm, abs=0.01)
    assert 0.10 <= dial.interference_mm <= 0.20
    assert not dial.unseated
    assert dial.stray_overlap_mm3 <= 1e-3
    assert dial.strain <= card.CLIP_STRAIN_MAX
    findings = card.dial_findings(params.stat_dial, C.clip_limits(params), dial, C.DIAL_PAIR)
    assert not [f for f in findings if f.failed]


def test_the_forward_guides_show_in_full(kit: Kit) -> None:
    """Before: from 4.70 mm, 6.01 mm visible (the wing and propeller over them)."""
    params, meshes = kit
    found = {i["name"]: i for i in I.groove_invariants(params, meshes["plane_token"], None)}
    start = found["forward guides start ahead of the centre (mm)"]
    visible = found["forward guides visible, start to front flat (mm)"]
    begin = params.plane.guide_start_mm  # 3.5 at 26 mm, following the token
    assert start["measured"] == pytest.approx(begin, abs=0.05)
    assert visible["measured"] == pytest.approx(
        float(params.token.across_flats_mm) / 2 - begin, abs=0.05
    )
    assert all(item["ok"] for item in found.values())

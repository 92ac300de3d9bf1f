"""The engine's lidded tray rendered for a kit that only declares it (tests/toykit/lidded):
box and lid measured in play on their meshes (the lid clears the box by its fit, laps its
tongue and stays on; no stack rises or slides more than max_rattle_mm), a lid left
unseated fails those checks, and the lid's tolerance coupons measure their labels."""

from __future__ import annotations

from dataclasses import replace

import pytest
import trimesh
from helpers import TEST_JOBS, registered
from toykit.lidded import TOY_LID_KIT

from squadron_cad.checks.tray_play import measure_lid, tray_findings, unit_travels
from squadron_cad.geometry import frames
from squadron_cad.resolve import resolve
from squadron_cad.tolerance import Ladder, build_plate


@pytest.fixture(scope="module")
def lidded(render_parts, tmp_path_factory):
    """Registered for this module only: its part names are no words of the engine's."""
    with registered(TOY_LID_KIT):
        params = resolve(kit="toy-lid")
        parts = ("tile", "tray", "tray_lid")
        stl = render_parts(params, parts, tmp_path_factory.mktemp("lid") / "k")
        meshes = {name: trimesh.load_mesh(stl / f"{name}.stl") for name in parts}
        yield params, TOY_LID_KIT.design(params).layout, meshes


def test_the_closed_box_passes_its_checks_in_play(lidded) -> None:
    params, layout, meshes = lidded
    found = tray_findings(layout, meshes, params.tray, params.checks, params.tin, "tray")
    assert {f.check for f in found} == {"lid_gap", "lid_stays_on", "rattle"}
    assert [f.line() for f in found if f.severity != "ok"] == []
    assert sum(f.check == "rattle" for f in found) == 3  # two stacks and the lid


def test_measured_lid_gap_lap_and_travel(lidded) -> None:
    params, layout, meshes = lidded
    lid = params.tray.lid
    measured = measure_lid(layout, meshes, params.tin)
    assert measured.overlap_mm3 < 1e-3
    assert measured.gap_mm == pytest.approx(lid.clearance_mm, abs=0.03)
    assert measured.lap_mm == pytest.approx(lid.lip_mm, abs=0.03)
    assert measured.lift_mm == pytest.approx(params.tray.tin_clearance_mm, abs=1e-3)
    for way in measured.slide.values():
        assert way == pytest.approx(lid.clearance_mm, abs=0.03)
    for travel in unit_travels(layout, meshes):
        assert travel.up == pytest.approx(lid.headroom_mm, abs=0.02)
        for way in travel.sideways.values():
            assert way == pytest.approx(params.tray.pocket_clearance_mm, abs=0.03)


def test_a_lid_left_unseated_lets_the_stacks_rise_and_can_come_off(lidded) -> None:
    params, layout, meshes = lidded
    raised = frames.compose(frames.translate(0, 0, 1.6), layout.lid_pose)
    loose = replace(layout, lid_transform=raised)
    found = tray_findings(loose, meshes, params.tray, params.checks, None, "tray")
    failed = {(f.part, f.check) for f in found if f.failed}
    assert ("tray_lid", "lid_stays_on") in failed
    stacks = [f for f in found if f.check == "rattle" and f.part != "tray_lid"]
    assert stacks
    assert all(f.failed for f in stacks)
    assert measure_lid(loose, meshes, None).lap_mm == pytest.approx(0.4, abs=0.03)


def test_the_lid_coupons_measure_their_labels(lidded, tmp_path, shared_cache) -> None:
    params, _, _ = lidded
    ladder = Ladder.parse("0.10:0.30:0.10")
    out = tmp_path / "tol"
    plate = build_plate(params, out, ladder, jobs=TEST_JOBS, picture=False, cache_dir=shared_cache)
    assert [row["label_mm"] for row in plate.measures] == [0.1, 0.2, 0.3]
    for row in plate.measures:
        assert row["key"] == "tray.lid.clearance_mm"
        assert row["measured_mm"] == pytest.approx(row["label_mm"], abs=0.02)


def test_a_piece_loose_on_its_stack_rattles_though_the_stack_does_not(lidded) -> None:
    """A tile 2 mm smaller on top of a stack slides 1.4 mm where the stack slides 0.4: the
    unit alone would not tell (as a sleeved deck under a card-sized gauge)."""
    _, layout, meshes = lidded
    top = max(layout.placements, key=lambda q: q.bounds[1][2])
    small = meshes["tile"].copy()
    centre = (small.bounds[0] + small.bounds[1]) / 2
    small.apply_translation([-centre[0], -centre[1], 0])
    small.apply_scale([0.9, 0.9, 1.0])
    small.apply_translation([centre[0], centre[1], 0])
    loose = replace(
        layout,
        placements=tuple(
            replace(q, part="small_tile") if q is top else q for q in layout.placements
        ),
    )
    travels = {t.name: t for t in unit_travels(loose, {**meshes, "small_tile": small})}
    stack = travels[top.unit]
    assert max(stack.sideways.values()) == pytest.approx(0.4 + 1.0, abs=0.03)
    others = [t for name, t in travels.items() if name != top.unit]
    assert max(max(t.sideways.values()) for t in others) == pytest.approx(0.4, abs=0.03)

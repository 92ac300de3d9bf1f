"""The Space Planes kit really rendered, once for this module: the build passes with no
failing check, every invariant holds, and every piece fits its box pocket."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.checks import meshgeo
from squadron_cad.checks.tin import box_in_tin_findings, tin_proof
from squadron_cad.kit import design_of
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.verify import check_outputs
from squadron_cad.resolve import resolve


@pytest.fixture(scope="module")
def kit(built_kit) -> BuildReport:
    return built_kit("space-planes")


@pytest.fixture(scope="module")
def invariants(kit: BuildReport) -> dict[str, dict]:
    data = json.loads((kit.out_dir / "manifest.json").read_text())
    return {item["name"]: item for item in data["invariants"]}


def test_the_kit_builds_with_no_failing_check(kit: BuildReport) -> None:
    assert kit.committed
    assert [f.line() for f in kit.failures] == []
    counts = {r.spec.name: r.count for r in kit.parts}
    assert counts == {
        "joker_gauge": 1,
        **{f"cubeship_{n}": 1 for n in range(1, 7)},
        "die_holder": 6,
        "box": 1,
    }


def test_every_part_is_one_closed_body_flat_on_the_bed(kit: BuildReport) -> None:
    for result in kit.parts:
        mesh = trimesh.load_mesh(result.stl)
        assert mesh.is_watertight, result.spec.name
        assert len(mesh.split(only_watertight=False)) == 1, result.spec.name
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-6), result.spec.name
        checks = {f.check: f for f in result.findings}
        assert checks["overhangs"].severity == "ok", result.spec.name
        assert checks["bridges"].severity == "ok", result.spec.name


def test_every_invariant_holds(invariants: dict[str, dict]) -> None:
    assert len(invariants) > 20, "the kit measured too few invariants"
    assert [name for name, item in invariants.items() if not item["ok"]] == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("joker gauge: long move, gauge edge minus cube side (mm)", 88.9 - 16),
        ("joker gauge: short move, gauge edge minus cube side (mm)", 63.5 - 16),
        ("joker gauge: long-move end marks found", 2),
        ("joker gauge: short-move end marks found", 2),
        ("joker gauge: pivot corner angle (deg)", 90),
        ("cubeship 1: side (mm), worst axis", 16),
        ("cubeship 6: faces off 90 degrees (deg), worst pair", 0),
        ("cubeship 6: top panel side (mm)", 10),
        ("cubeship 6: top panel depth (mm)", 0.5),
        ("cubeship 6: bed panel depth (mm)", 0.5),
        ("cubeship 6: side panels depth (mm), mean of 4", 0.5),
        ("die holder: clearance around the die, per side (mm)", 0.3),
    ],
)
def test_measured_values(invariants: dict[str, dict], name: str, expected: float) -> None:
    item = invariants[name]
    assert item["measured"] == pytest.approx(expected, abs=item["tolerance"] + 1e-9)


def test_slide_distances_within_a_tenth(invariants: dict[str, dict]) -> None:
    for name in ("long", "short"):
        item = invariants[f"joker gauge: {name} move, gauge edge minus cube side (mm)"]
        assert abs(item["measured"] - item["expected"]) <= 0.1


def test_every_piece_fits_its_pocket(kit: BuildReport) -> None:
    out: Path = kit.out_dir
    layout = json.loads((out / "layout.json").read_text())
    assert len(layout["contents"]) == 20  # deck, gauge, 6 cubes, 6 holders, 6 dice
    box = trimesh.load_mesh(out / "stl" / "box.stl")
    for entry in layout["contents"]:
        piece = trimesh.load_mesh(out / entry["stl"])
        piece.apply_transform(entry["transform"])
        clash = trimesh.boolean.intersection([box, piece], engine="manifold")
        assert clash.is_empty or clash.volume < 1e-3, entry["name"]
    pockets = [f for f in kit.kit_findings if f.check in ("in_pocket", "pocket_gap")]
    assert len(pockets) == 3
    assert all(f.severity == "ok" for f in pockets)


def test_every_pocket_has_a_finger_notch_open_in_the_box(kit: BuildReport) -> None:
    """A cube 16 mm deep in a 24 mm pocket cannot be gripped from above: each pocket shares
    a notch through a divider, and the rendered box is open there down to the notch's bottom."""
    layout = design_of(resolve(kit="space-planes")).layout
    served = {name for notch in layout.notches for name in notch.pockets}
    assert served == {pocket.name for pocket in layout.pockets}
    box = trimesh.load_mesh(kit.out_dir / "stl" / "box.stl")
    for notch in layout.notches:
        x, y = notch.centre
        low = notch.z_bottom + 0.5  # just above the round bottom
        probes = [[x, y, low], [x, y, (low + notch.z_top) / 2]]
        assert not box.contains(probes).any(), notch.pockets
        # and the divider is there beside the notch
        beside = (
            [x, y + notch.radius + 1, low] if notch.axis == "x" else [x + notch.radius + 1, y, low]
        )
        assert box.contains([beside]).all(), notch.pockets


def test_the_footprint_sheet_is_written(tmp_path: Path) -> None:
    from squadron_cad.kit import load_kit

    kit = load_kit("space-planes")
    assert kit.paper is not None
    report = kit.paper(resolve(kit="space-planes"), tmp_path / "paper", False)
    assert report.pdf.name == "space_planes_paper_a4.pdf"
    assert (tmp_path / "paper" / report.pdf.name).stat().st_size > 0
    assert report.pages == ["footprints-1"]
    assert (tmp_path / "paper" / "laser" / "footprint.svg").exists()


def test_check_with_a_tin_too_small_fails_the_box(kit: BuildReport) -> None:
    """check --set tin 60 x 60 once said '0 failing check(s)' of a box that cannot go in."""
    small = resolve(
        kit="space-planes", overrides=["tin.inner_length_mm=60", "tin.inner_width_mm=60"]
    )
    built = design_of(kit.params)
    meshes = {"box": trimesh.load_mesh(kit.out_dir / "stl" / "box.stl")}
    found = {f.check: f for f in tin_proof(built, meshes, small.tin)}
    assert found["in_tin_outline"].failed
    assert "too long" in found["in_tin_outline"].message
    assert not [f for f in tin_proof(built, meshes, kit.params.tin) if f.failed]
    checked = check_outputs(kit.out_dir, small)  # the command's own path, end to end
    assert ("box", "in_tin_outline") in {(f.part, f.check) for f in checked.failures}


ROUND_TIN = ["tin.inner_length_mm=150", "tin.inner_width_mm=150", "tin.corner_radius_mm=75"]


def test_a_round_tins_box_renders_with_its_wall_whole(render_parts, tmp_path: Path) -> None:
    """In a 150 mm round tin the box once rendered as nothing (its outline offset a
    zero-size square) and its pockets cut 4.2 mm through its wall."""
    params = resolve(kit="space-planes", overrides=ROUND_TIN)
    stl = render_parts(params, ["box"], tmp_path / "kit")  # no failing check, the tin's too
    box = trimesh.load_mesh(stl / "box.stl")
    assert box.is_watertight
    assert len(box.split(only_watertight=False)) == 1
    radius = 75 - params.box.tin_clearance_mm
    top = meshgeo.section(box, float(box.bounds[1][2]) - 0.5)
    rim = np.asarray(max(top.geoms, key=lambda shape: shape.area).exterior.coords)
    reach = np.hypot(rim[:, 0], rim[:, 1])
    assert reach.max() <= radius + 1e-3
    assert reach.min() >= radius - 0.5  # a pocket through the wall dips it by the wall
    found = box_in_tin_findings(design_of(params).layout, {"box": box}, params.tin)
    assert [f.severity for f in found] == ["ok", "ok", "ok"]

"""The box against its tin (checks/tin.py), on meshes made here: outline, corners and depth,
either way round, the lid closed on top."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from squadron_cad.checks.tin import box_in_tin_findings
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.geometry import frames
from squadron_cad.params import TinParams


def tin(length: float, width: float, depth: float, radius: float) -> TinParams:
    return TinParams(
        name="t",
        inner_length_mm=length,
        inner_width_mm=width,
        inner_depth_mm=depth,
        corner_radius_mm=radius,
        approximate=False,
        source="here",
    )


def layout(lid_at: float | None = None) -> Layout:
    """Only what the check reads: the box's and the lid's parts and the lid's pose."""
    shape = BoxShape(0, 0, 0, 0, 0, 0, 0, 0)
    pose = None if lid_at is None else frames.translate(0, 0, lid_at)
    lid = None if lid_at is None else "lid"
    return Layout("", shape, 0, (), (), (), {}, "x", "box", lid, lid_transform=pose)


def block(length: float, width: float, height: float) -> trimesh.Trimesh:
    """A box on the bed, centred on the origin."""
    return trimesh.creation.box((length, width, height), frames.translate(0, 0, height / 2))


def disc(radius: float, height: float) -> trimesh.Trimesh:
    shape = trimesh.creation.cylinder(radius, height, sections=128)
    shape.apply_translation((0, 0, height / 2))
    return shape


def found(meshes: dict[str, trimesh.Trimesh], given: TinParams, lid_at: float | None = None):
    return {f.check: f for f in box_in_tin_findings(layout(lid_at), meshes, given)}


def test_a_box_too_big_for_the_tin_fails_its_outline() -> None:
    """check --set tin 60 x 60 once passed a 107 x 82 mm box."""
    checks = found({"box": block(107, 82, 20)}, tin(60, 60, 25, 5))
    assert checks["in_tin_outline"].failed
    assert checks["in_tin_outline"].measured == [107, 82]
    assert "47.00 mm too long and 22.00 mm too wide" in checks["in_tin_outline"].message
    assert checks["in_tin_corners"].severity == "info"
    assert not checks["in_tin_depth"].failed


def test_a_box_goes_in_either_way_round() -> None:
    checks = found({"box": block(82, 107, 20)}, tin(108, 83, 25, 0))
    assert [f.severity for f in checks.values()] == ["ok", "ok", "ok"]
    assert checks["in_tin_corners"].measured == pytest.approx(0.5)


@pytest.mark.parametrize(("side", "fits"), [(100, True), (108, False)])
def test_square_corners_in_a_round_tin(side: float, fits: bool) -> None:
    """A 100 mm square's corners lie 70.7 mm from the centre of a 150 mm round tin; a 108
    mm square's 76.4 mm: its outline fits the tin's length and width, its corners do not."""
    checks = found({"box": block(side, side, 20)}, tin(150, 150, 25, 75))
    assert not checks["in_tin_outline"].failed
    assert checks["in_tin_corners"].failed is not fits
    assert checks["in_tin_corners"].measured == pytest.approx(75 - side / 2 * np.sqrt(2), abs=1e-3)


def test_a_round_box_in_its_round_tin() -> None:
    checks = found({"box": disc(74.5, 20)}, tin(150, 150, 25, 75))
    assert all(f.severity == "ok" for f in checks.values())
    assert checks["in_tin_corners"].measured == pytest.approx(0.5, abs=0.01)


def test_the_closed_lid_counts_in_the_depth() -> None:
    meshes = {"box": block(100, 60, 20), "lid": block(100, 60, 5)}
    assert not found(meshes, tin(110, 70, 25, 5), lid_at=20)["in_tin_depth"].failed
    deep = found(meshes, tin(110, 70, 24, 5), lid_at=20)["in_tin_depth"]
    assert deep.failed
    assert deep.measured == pytest.approx(25)
    assert "1.00 mm more than the tin's 24 mm" in deep.message


def test_no_tin_or_no_box_built_is_no_finding() -> None:
    assert box_in_tin_findings(layout(), {"box": block(10, 10, 5)}, None) == []
    assert box_in_tin_findings(layout(), {}, tin(60, 60, 20, 5)) == []

"""Kit checks kept between builds by what they measure: a tin change measures the joints
and the dial again no more than the other parts' renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.checks import mark_clearance, memo
from squadron_cad.checks.mark_clearance import mark_clearance_findings
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.components.ruler_joint import measure as joint_measure
from squadron_cad.components.stat_card import measure as dial_measure
from squadron_cad.kit import kit_of
from squadron_cad.kits.squadron_leader.checks.clearances import dial_layout
from squadron_cad.render.cache import RenderCache
from squadron_cad.resolve import resolve


def test_a_tin_change_measures_no_joint_and_no_dial_again(
    default_kit, default_meshes, tmp_path: Path, monkeypatch
) -> None:
    params = default_kit.params
    rulers = default_meshes["range_ruler_1"], default_meshes["range_ruler_2"]
    card, clip = default_meshes["stat_dial_card"], default_meshes["stat_dial_clip"]
    joint = joint_measure.measure_joint(*rulers)
    dial = dial_measure.measure_dial(dial_layout(params), card, clip)
    with memo.remembering_in(RenderCache(tmp_path), "v1"):
        assert joint_measure.remembered_joint(*rulers) == joint
        assert dial_measure.remembered_dial(dial_layout(params), card, clip) == dial

        def measured_again(*_args: object) -> None:
            raise AssertionError("measured again")

        monkeypatch.setattr(joint_measure, "measure_joint", measured_again)
        monkeypatch.setattr(dial_measure, "measure_dial", measured_again)
        another_tin = resolve(overrides=["tin.inner_length_mm=112"])
        assert joint_measure.remembered_joint(*rulers) == joint  # read back as measured
        assert dial_measure.remembered_dial(dial_layout(another_tin), card, clip) == dial
        wider_clip = resolve(overrides=["stat_dial.clip_width_mm=5.8"])  # what the dial reads
        with pytest.raises(AssertionError, match="measured again"):
            dial_measure.remembered_dial(dial_layout(wider_clip), card, clip)


def test_the_marks_clearance_is_kept_by_the_copies_meshes(
    default_kit, tmp_path: Path, monkeypatch
) -> None:
    """Measured on each player's copy as built: a new tin reads it back; another copy of
    a marked part (here player 2's plane token made player 1's) measures it again."""
    design = kit_of(default_kit.params).design(default_kit.params)
    copies = {result.spec.name: load_mesh(result.stl) for result in default_kit.variants}
    measured = mark_clearance_findings(design, copies)
    assert {finding.part for finding in measured} >= {"plane_token"}
    unmarked = {**copies, "plane_token.p2": copies["plane_token.p1"]}
    expected = mark_clearance_findings(design, unmarked)
    assert expected != measured  # the swap changes what is measured
    with memo.remembering_in(RenderCache(tmp_path), "v1"):
        assert mark_clearance_findings(design, copies) == measured  # measured, kept

        def measured_again(*_args: object) -> None:
            raise AssertionError("measured again")

        with monkeypatch.context() as patch:
            patch.setattr(mark_clearance, "_smallest", measured_again)
            another_tin = resolve(overrides=["tin.inner_length_mm=112"])
            assert mark_clearance_findings(kit_of(another_tin).design(another_tin), copies) == (
                measured
            )
            with pytest.raises(AssertionError, match="measured again"):
                mark_clearance_findings(design, unmarked)
        assert mark_clearance_findings(design, unmarked) == expected

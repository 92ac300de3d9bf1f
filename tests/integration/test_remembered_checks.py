"""Kit checks kept between builds by what they measure: a tin change measures the joints
and the dial again no more than the other parts' renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.checks import memo
from squadron_cad.components.ruler_joint import measure as joint_measure
from squadron_cad.components.stat_card import measure as dial_measure
from squadron_cad.kits.squadron_leader.checks.clearances import dial_layout
from squadron_cad.render.cache import RenderCache
from squadron_cad.resolve import resolve

pytestmark = pytest.mark.integration


def test_a_tin_change_measures_no_joint_and_no_dial_again(
    default_kit, default_meshes, tmp_path: Path, monkeypatch
) -> None:
    params = default_kit.params
    rulers = default_meshes["range_ruler_1"], default_meshes["range_ruler_2"]
    card, clip = default_meshes["stat_dial_card"], default_meshes["stat_dial_clip"]
    joint = joint_measure.measure_joint(*rulers)
    dial = dial_measure.measure_dial(dial_layout(params), card, clip)
    with memo.kept_in(RenderCache(tmp_path), "v1"):
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

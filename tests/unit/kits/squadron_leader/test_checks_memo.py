"""What Squadron Leader's kit checks remember between builds (checks.memo): a stack
measured once per pair of meshes, the rattle again only when what it reads changes."""

from __future__ import annotations

from pathlib import Path

import pytest
import trimesh

from squadron_cad.checks import memo
from squadron_cad.kit import kit_of
from squadron_cad.kits.squadron_leader.checks import clearances
from squadron_cad.kits.squadron_leader.checks import kit as kit_checks
from squadron_cad.kits.squadron_leader.checks.clearances import StackMeasure
from squadron_cad.render.cache import RenderCache


def test_a_remembered_stack_reads_back_as_measured(tmp_path: Path, monkeypatch) -> None:
    lower, upper = trimesh.creation.box(extents=(1, 1, 1)), trimesh.creation.icosphere()
    measured = StackMeasure("plane_token", 4.0, {0: True, 45: False}, 0.125, 0.1)
    monkeypatch.setattr(clearances, "measure_stack", lambda *_args: measured)
    with memo.remembering_in(RenderCache(tmp_path), "v1"):
        assert kit_checks._measured_stack(lower, upper, "plane_token") == measured

        def measured_again(*_args: object) -> StackMeasure:
            raise AssertionError("measured again although these meshes were measured")

        monkeypatch.setattr(clearances, "measure_stack", measured_again)
        assert kit_checks._measured_stack(lower, upper, "plane_token") == measured


def test_the_rattle_is_measured_again_only_when_what_it_reads_changes(
    tmp_path: Path, monkeypatch
) -> None:
    from squadron_cad.kits.squadron_leader.checks import rattle
    from squadron_cad.resolve import resolve

    def layout_of(overrides: list[str]):
        params = resolve(overrides=overrides)
        return params, kit_of(params).design(params).layout

    params, layout = layout_of([])
    with memo.remembering_in(RenderCache(tmp_path), "v1"):
        first = kit_checks._rattle(params, layout)
        assert first == rattle.findings(params, layout)

        def measured_again(*_args: object) -> list:
            raise AssertionError("measured again")

        monkeypatch.setattr(rattle, "findings", measured_again)
        assert kit_checks._rattle(*layout_of(["ruler.joint_clearance_mm=0.2"])) == first
        with pytest.raises(AssertionError, match="measured again"):
            kit_checks._rattle(*layout_of(["box.max_rattle_mm=0.8"]))

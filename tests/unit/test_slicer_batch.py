"""Several parts in one PrusaSlicer process: the figures each part gets alone, one process
start-up for all, and a part the slicer refuses failing alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trimesh

from squadron_cad.checks import kit_slicing, slicer, slicer_batch
from squadron_cad.params import KitParamsBase

PARTS = ("tile", "tray", "tile_plain")  # the toy kit's, in sizes of our own choosing


class CountedRuns(slicer.SlicerRuns):
    """The real slicer, each process it starts counted."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[list[str]] = []

    def start(self, command: list[str], env: dict[str, str], home: Path) -> subprocess.Popen[str]:
        self.started.append(command)
        return super().start(command, env, home)


@pytest.fixture(scope="module")
def installed() -> str:
    """The slicer's path (the tests that need it skip without it)."""
    path, reason = slicer.find_slicer()
    if path is None:
        pytest.skip(reason)
    return path


def boxes(folder: Path) -> None:
    for index, name in enumerate(PARTS):
        trimesh.creation.box([12 + 6 * index, 10, 2 + index]).export(folder / f"{name}.stl")


def test_parts_are_dealt_heaviest_first_into_the_lightest_batch(tmp_path: Path) -> None:
    def planned(name: str, weight: float, turn: float = 0.0) -> slicer_batch.Planned:
        return slicer_batch.Planned(name, tmp_path / f"{name}.stl", turn, weight)

    parts = [planned("a", 3), planned("box", 100), planned("b", 10), planned("c", 8)]
    batches = slicer_batch.deal([*parts, planned("long", 5, turn=40.0)], jobs=2)
    shares = [[part.name for part in batch.parts] for batch in batches]
    assert shares == [["box"], ["b", "c", "a"], ["long"]]  # a turn of its own: --rotate
    assert [batch.turn_deg for batch in batches] == [0.0, 0.0, 40.0]


def test_several_parts_take_one_slicer_and_get_the_figures_they_get_alone(
    installed: str, toy_params: KitParamsBase, tmp_path: Path
) -> None:
    params = toy_params
    boxes(tmp_path)
    runs = CountedRuns()
    outcome = kit_slicing.slice_kit(params, tmp_path, jobs=1, parts=list(PARTS), runs=runs)
    assert len(runs.started) == 1, "one process for the three parts"
    assert sorted(outcome.results) == sorted(PARTS)
    settings = slicer.SliceSettings.from_params(params)
    for name in PARTS:
        alone = slicer.slice_part(tmp_path / f"{name}.stl", settings, executable=installed)
        assert alone is not None
        together = outcome.results[name]
        assert together.filament_mm == pytest.approx(alone.filament_mm, rel=1e-3)
        assert together.print_seconds == pytest.approx(alone.print_seconds, rel=1e-3, abs=2)


@pytest.mark.usefixtures("installed")
def test_a_part_the_slicer_refuses_fails_alone_and_the_others_keep_their_figures(
    toy_params: KitParamsBase, tmp_path: Path
) -> None:
    params = toy_params
    boxes(tmp_path)
    flat = trimesh.Trimesh(vertices=[[0, 0, 0], [10, 0, 0], [0, 10, 0]], faces=[[0, 1, 2]])
    flat.export(tmp_path / "tray.stl")  # one triangle: the slicer loads nothing
    runs = CountedRuns()
    outcome = kit_slicing.slice_kit(params, tmp_path, jobs=1, parts=list(PARTS), runs=runs)
    assert sorted(outcome.results) == ["tile", "tile_plain"]
    assert list(outcome.errors) == ["tray"]
    assert "tray" in outcome.errors["tray"]
    assert len(runs.started) == 1 + len(PARTS), "the batch, then each part alone"

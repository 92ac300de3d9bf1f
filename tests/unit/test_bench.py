"""The benchmark's arithmetic: medians, the ratios, the goals and the stage table."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.bench import (
    REFERENCE_DIR,
    BenchResult,
    ChangeTimes,
    cold_env,
    format_figures,
    reference_label,
)
from squadron_cad.kit import installed_kits
from squadron_cad.outfolder import CACHE_ENV
from squadron_cad.resolve import resolve


def _result(full_cold: list[float], peak_mb: float, warm: list[float]) -> BenchResult:
    return BenchResult(
        machine={"cpu": "test", "cores": 2},
        backend="cgal",
        reference={"a.scad": 20.0},
        reference_seconds=[40.0, 20.0, 30.0],
        cold_seconds=[1.0, 1.2, 1.1],
        full_cold_seconds=full_cold,
        warm_seconds=warm,
        changes={
            "tin": ChangeTimes("tin.inner_length_mm=112", 0.25, [0.6, 0.9, 0.7], ["box"]),
            "token width": ChangeTimes("token.width_mm=27", 0.6, [1.5, 1.4, 1.9]),
        },
        peak_mb=peak_mb,
    )


def test_the_ratios_use_medians() -> None:
    figures = _result([2.8, 2.5, 100.0], 300, [0.5, 9.0, 0.4]).as_dict()
    assert figures["cold_to_reference_ratio"] == round(2.8 / 30.0, 3)
    assert figures["changes"]["tin"]["to_cold_ratio"] == round(0.7 / 2.8, 3)
    assert figures["changes"]["token width"]["to_cold_ratio"] == round(1.5 / 2.8, 3)
    assert figures["warm_median_s"] == 0.5
    assert figures["goals_met"] == {"cold": True, "warm": True, "changes": True, "memory": True}


def test_missed_goals_are_reported() -> None:
    figures = _result([8.0, 9.0, 10.0], 600, [0.6, 0.7, 0.8]).as_dict()
    assert figures["goals_met"]["cold"] is False  # 9 / 30 = 0.3
    assert figures["goals_met"]["warm"] is False  # 0.7 s: over half a second
    assert figures["goals_met"]["memory"] is False
    assert "NOT met" in format_figures(figures)
    slow = _result([2.0, 2.0, 2.0], 300, [0.4, 0.4, 0.4])  # the tin: 0.7 / 2 = 0.35
    assert slow.as_dict()["changes"]["tin"]["met"] is False
    assert slow.as_dict()["goals_met"]["changes"] is False


def test_the_table_names_the_reference_and_each_change() -> None:
    figures = _result([2.8, 2.5, 3.0], 300, [0.4, 0.4, 0.4])
    figures.reference_label = reference_label(REFERENCE_DIR)
    text = format_figures(figures.as_dict())
    assert "hand-written reconstruction" in text
    assert "tin changed:" in text
    assert "--set tin.inner_length_mm=112" in text
    assert "token width changed:" in text
    given = reference_label(Path(__file__).parent)
    assert "given with --reference" in given
    assert "reconstruction" not in given


@pytest.mark.parametrize("kit", sorted(installed_kits()))
def test_every_kit_declares_its_bench_changes_and_they_resolve(kit: str) -> None:
    """The benchmark times a tin change and one more for every kit, not one kit's key."""
    declared = installed_kits()[kit].bench_changes
    assert next(change.name for change in declared) == "tin"
    assert len(declared) >= 2
    defaults = resolve(kit=installed_kits()[kit])
    for change in declared:
        changed = resolve(kit=installed_kits()[kit], overrides=[change.setting])
        assert changed != defaults, change.setting
        assert 0 < change.goal_ratio < 1


def test_stages_are_medians_and_the_rest_is_start_up() -> None:
    result = _result([3.0, 3.0, 3.0], 300, [0.5, 0.5, 0.5])
    for total, render in ((5.0, 2.0), (6.0, 4.0), (7.0, 3.0)):
        manifest = {"stages": {"render": {"wall_s": render, "cpu_s": render * 2}}}
        result.record_stages("cold full", total, manifest)
    stages = result.as_dict()["stages"]["cold full"]
    assert stages["render"] == {"wall_s": 3.0, "cpu_s": 6.0}
    assert stages["start-up, swap"]["wall_s"] == 3.0  # 5-2, 6-4, 7-3: median 3
    assert "render" in format_figures(result.as_dict())


def test_a_stage_beside_the_others_is_shown_but_not_summed() -> None:
    result = _result([3.0, 3.0, 3.0], 300, [0.5, 0.5, 0.5])
    manifest = {
        "stages": {
            "kit checks": {"wall_s": 2.0, "cpu_s": 2.0},
            "slicer": {"wall_s": 0.5, "cpu_s": 0.0},
            "slicer, in background": {"wall_s": 2.4, "cpu_s": None, "beside": True},
        }
    }
    result.record_stages("cold full", 4.0, manifest)
    stages = result.as_dict()["stages"]["cold full"]
    assert stages["slicer, in background"]["wall_s"] == 2.4
    assert stages["start-up, swap"]["wall_s"] == 1.5  # 4 - 2 - 0.5: the 2.4 ran beside them
    assert "slicer, in background" in format_figures(result.as_dict())


def test_the_memory_sampler_counts_the_build_not_the_benchmark() -> None:
    import subprocess
    import sys

    from squadron_cad.bench import MemorySampler

    hold = "import time\nb = b'x' * 150_000_000\ntime.sleep(1.5)"  # written: resident
    with MemorySampler() as idle:
        pass
    with MemorySampler(interval_s=0.02) as busy:
        subprocess.run([sys.executable, "-c", hold], check=True)
    assert idle.peak_bytes == 0  # the benchmark's own process is left out
    assert 150e6 <= busy.peak_bytes < 150e6 + 100e6  # the child's 150 MB, and little else


def test_a_child_not_yet_started_is_not_counted_as_its_parents_memory() -> None:
    """Between fork and exec a child maps its parent's pages (with vfork the same ones):
    the sampler would count a big parent twice, as the suite's workers showed (327 MB
    measured for a 150 MB child started from a large pytest worker)."""
    import os
    import time

    from squadron_cad.bench import MemorySampler

    held = bytearray(200_000_000)  # resident in this process, shared with the fork
    held[::4096] = b"x" * len(held[::4096])
    with MemorySampler(interval_s=0.02) as forked:
        child = os.fork()
        if child == 0:  # never execs: a copy of this process, still starting
            time.sleep(1.0)
            os._exit(0)
        os.waitpid(child, 0)
    assert forked.peak_bytes < 20e6


def test_timed_builds_never_use_a_shared_cache(monkeypatch) -> None:
    """A maker who keeps SQUADRON_CACHE set would otherwise time warm builds as cold."""
    monkeypatch.setenv(CACHE_ENV, "/tmp/some-shared-cache")
    monkeypatch.setenv("SQUADRON_OPENSCAD", "openscad")
    environment = cold_env()
    assert CACHE_ENV not in environment
    assert environment["SQUADRON_OPENSCAD"] == "openscad"

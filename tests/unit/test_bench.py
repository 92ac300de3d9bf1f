"""The benchmark's arithmetic: medians, the ratios, the goals and the stage table."""

from __future__ import annotations

from squadron_cad.bench import BenchResult, cold_env, format_figures
from squadron_cad.outfolder import CACHE_ENV


def _result(full_cold: list[float], peak_mb: float, warm: list[float]) -> BenchResult:
    return BenchResult(
        machine={"cpu": "test", "cores": 2},
        backend="cgal",
        reference={"a.scad": 20.0},
        reference_seconds=[40.0, 20.0, 30.0],
        cold_seconds=[1.0, 1.2, 1.1],
        full_cold_seconds=full_cold,
        warm_seconds=warm,
        change_seconds=[0.6, 0.9, 0.7],
        peak_mb=peak_mb,
    )


def test_the_ratios_use_medians() -> None:
    figures = _result([2.8, 2.5, 100.0], 300, [0.5, 9.0, 0.8]).as_dict()
    assert figures["cold_to_reference_ratio"] == round(2.8 / 30.0, 3)
    assert figures["one_change_to_cold_ratio"] == round(0.7 / 2.8, 3)
    assert figures["warm_median_s"] == 0.8
    assert figures["goals_met"] == {"cold": True, "warm": True, "change": True, "memory": True}


def test_missed_goals_are_reported() -> None:
    figures = _result([8.0, 9.0, 10.0], 600, [1.5, 2.0, 2.5]).as_dict()
    assert figures["goals_met"]["cold"] is False  # 9 / 30 = 0.3
    assert figures["goals_met"]["warm"] is False
    assert figures["goals_met"]["memory"] is False
    assert "NOT met" in format_figures(figures)


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

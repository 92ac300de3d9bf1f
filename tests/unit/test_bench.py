"""The benchmark's arithmetic: medians, the ratio to the reference, the goals."""

from __future__ import annotations

from squadron_cad.bench import BenchResult, format_figures


def _result(cold: list[float], peak_mb: float) -> BenchResult:
    return BenchResult(
        machine={"cpu": "test", "cores": 2},
        backend="cgal",
        reference={"a.scad": 20.0},
        reference_seconds=[40.0, 20.0, 30.0],
        cold_seconds=cold,
        full_cold_seconds=[15.0, 16.0, 17.0],
        warm_seconds=[1.5, 9.0, 2.0],
        change_seconds=[4.0, 5.0, 4.5],
        peak_mb=peak_mb,
    )


def test_the_ratio_uses_medians() -> None:
    figures = _result([7.0, 6.0, 100.0], 300).as_dict()
    assert figures["cold_to_reference_ratio"] == round(7.0 / 30.0, 3)
    assert figures["warm_median_s"] == 2.0
    assert figures["goals_met"] == {"cold": True, "warm": True, "memory": True}


def test_missed_goals_are_reported() -> None:
    figures = _result([8.0, 9.0, 10.0], 600).as_dict()
    assert figures["goals_met"]["cold"] is False  # 9 / 30 = 0.3
    assert figures["goals_met"]["memory"] is False
    assert "NOT met" in format_figures(figures)

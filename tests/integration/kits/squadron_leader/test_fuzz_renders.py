"""Fuzzing into OpenSCAD: parameter sets the models accept render, at draft quality, to
meshes that pass every check (per part and across the kit, the rules' invariants too).

Hypothesis draws values across each key's whole accepted range; a draw the models refuse is
discarded (that side is the unit fuzz tests' job). The draws are derandomized so CI sees the
same sample every run; raise FUZZ_RENDERS to look at more. A draw that once failed is kept
in test_fuzz_kept_draws (its own file, so that the two run side by side).
"""

from __future__ import annotations

import os
from pathlib import Path

from fuzz_draws import accepted, renders_clean
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("FUZZ_RENDERS", "5"))


def _number(low: float, high: float) -> st.SearchStrategy[str]:
    return st.floats(low, high, allow_nan=False).map(lambda v: f"{round(v, 2):g}")


KNOBS: dict[str, st.SearchStrategy[str]] = {
    "token.width_mm": _number(12, 60),
    "token.height_mm": _number(1.5, 8),
    "players": st.integers(1, 6).map(str),
    "stacking.peg_socket_clearance_mm": _number(0, 1),
    "ruler.joint_clearance_mm": _number(0, 0.5),
    "templates.thickness_mm": _number(1, 8),
    "ruler.thickness_mm": _number(1, 8),
    "stat_dial.max_value": st.integers(1, 9).map(str),
    "stat_dial.card_thickness_mm": _number(0.8, 3),
    "text.depth_mm": _number(0.1, 1.5),
}


@st.composite
def overrides(draw: st.DrawFn) -> list[str]:
    chosen = draw(st.lists(st.sampled_from(sorted(KNOBS)), min_size=1, max_size=4, unique=True))
    return [f"{key}={draw(KNOBS[key])}" for key in chosen]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.generate],  # no shrinking: each try is a real render
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(overrides())
def test_accepted_parameters_render_to_meshes_that_pass_the_checks(
    shared_cache: Path, sets: list[str]
) -> None:
    params = accepted(sets)
    assume(params is not None)
    assert params is not None
    renders_clean(params, sets, shared_cache)

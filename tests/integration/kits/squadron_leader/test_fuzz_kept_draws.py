"""Fuzz draws that once failed, kept and rendered on every run (test_fuzz_renders draws new
ones): a notch 0.05 mm from the template recess, the one-piece ruler longer than the bed,
a 0.0 mm2 ceiling where two cuts met, a 0.34 mm divider tip where the template recess's
edge crossed it at a slant, a hollow that bit under the ring around a faceted recess."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_draws import accepted, renders_clean

KEPT = [
    ["stat_dial.max_value=6"],
    ["token.width_mm=55.91", "stat_dial.max_value=7", "ruler.joint_clearance_mm=0.17"],
    ["token.width_mm=46.13", "players=5"],
    ["token.width_mm=32.46"],
    ["token.width_mm=57.03", "templates.thickness_mm=3.66", "ruler.thickness_mm=7.52"],
]


@pytest.mark.parametrize("sets", KEPT, ids=lambda sets: " ".join(sets))
def test_a_kept_draw_renders_to_meshes_that_pass_the_checks(
    shared_cache: Path, sets: list[str]
) -> None:
    params = accepted(sets)
    assert params is not None, f"the models refuse a kept draw: {sets}"
    renders_clean(params, sets, shared_cache)

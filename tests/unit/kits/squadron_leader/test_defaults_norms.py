"""Squadron Leader's defaults keep to the norms: the engine's limits it does not set, and
its own fits (moved here from the engine's slicer tests, which read the toy kit now)."""

from __future__ import annotations

from squadron_cad.constants import NORMS, PLA_DENSITY_G_CM3
from squadron_cad.resolve import resolve


def test_the_kits_limits_and_fits_come_from_the_norms() -> None:
    params = resolve(kit="squadron-leader")
    assert params.slicer.layer_height_mm == NORMS["layer_height"].value
    assert params.checks.min_wall_mm == NORMS["min_wall"].value
    assert params.checks.overhang_limit_deg == NORMS["max_overhang"].value
    assert params.checks.max_bridge_mm == NORMS["max_bridge"].value
    assert params.checks.min_text_stroke_mm == NORMS["min_text_stroke"].value
    assert params.checks.min_text_depth_mm == NORMS["min_text_depth"].value
    assert params.checks.min_text_height_mm == NORMS["min_text_height"].value
    assert params.checks.clip_fit.min_mm == NORMS["sliding_fit_min"].value
    assert params.checks.clip_fit.max_mm == NORMS["sliding_fit_max"].value
    assert params.slicer.filament_density_g_cm3 == PLA_DENSITY_G_CM3

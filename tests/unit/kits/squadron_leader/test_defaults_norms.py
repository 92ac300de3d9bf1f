"""Squadron Leader's defaults keep to the norms: the engine's limits it does not set, and
its own fits (moved here from the engine's slicer tests, which read the toy kit now)."""

from __future__ import annotations

from helpers import off_the_norms

from squadron_cad.constants import PLA_DENSITY_G_CM3
from squadron_cad.resolve import resolve

OWN_FITS = {
    "checks.clip_fit.min_mm": "sliding_fit_min",
    "checks.clip_fit.max_mm": "sliding_fit_max",
}


def test_the_kits_limits_and_fits_come_from_the_norms() -> None:
    params = resolve(kit="squadron-leader")
    assert off_the_norms(params) == {}
    assert off_the_norms(params, OWN_FITS) == {}
    assert params.slicer.filament_density_g_cm3 == PLA_DENSITY_G_CM3

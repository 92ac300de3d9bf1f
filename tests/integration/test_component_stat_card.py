"""The stat card component's clip bounds (what a kit's stowing packs) hold the clip as
rendered, snugly, in every kit that prints one (the session's kit builds)."""

from __future__ import annotations

import numpy as np
import pytest

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.components.stat_card.shape import clip_bounds
from squadron_cad.kit import load_kit

CLIPS = [("squadron-leader", "stat_dial_clip"), ("squadrons", "tracker_clip")]


@pytest.mark.parametrize(("kit_name", "clip"), CLIPS)
def test_the_clip_bounds_hold_the_rendered_clip_snugly(kit_name: str, clip: str, built_kit) -> None:
    report = built_kit(kit_name)
    mesh = load_mesh(next(r.stl for r in report.parts if r.spec.name == clip))
    layout = load_kit(kit_name).design(report.params).dial
    low, high = (np.array(corner, dtype=float) for corner in clip_bounds(layout))
    assert np.all(mesh.bounds[0] >= low - 1e-3)
    assert np.all(mesh.bounds[1] <= high + 1e-3)
    # The window and the bump stay inside the C: its extremes are the profile's own.
    assert mesh.bounds[0] == pytest.approx(low, abs=0.01)
    assert mesh.bounds[1] == pytest.approx(high, abs=0.01)

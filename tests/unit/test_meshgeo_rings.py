"""Sections from a kernel's rings: outlines, holes and islands nested right, and rings no
kernel should give (overlapping outlines) still merged into a valid shape."""

from __future__ import annotations

import numpy as np
import pytest

from squadron_cad.checks.meshgeo import nest_rings, signed_area


def square(size: float, x: float = 0.0, y: float = 0.0, *, hole: bool = False) -> np.ndarray:
    ring = np.array([[0, 0], [size, 0], [size, size], [0, size]], float) + np.array([x, y])
    return ring[::-1] if hole else ring


def test_the_shoelace_sign_tells_outlines_from_holes() -> None:
    assert signed_area(square(2)) == pytest.approx(4)
    assert signed_area(square(2, hole=True)) == pytest.approx(-4)


def test_an_island_in_a_hole_stays_an_island() -> None:
    rings = [square(10), square(6, 2, 2, hole=True), square(2, 4, 4)]
    section = nest_rings(rings)
    assert section.is_valid
    assert len(section.geoms) == 2
    assert section.area == pytest.approx(100 - 36 + 4)


def test_overlapping_outlines_are_merged_into_a_valid_shape() -> None:
    section = nest_rings([square(4), square(4, 2, 0)])
    assert section.is_valid
    assert section.area == pytest.approx(24)

"""The one bed model: a part fits if some turn about z puts its footprint on the bed."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from squadron_cad.bed import Bed, footprint, place, place_mesh, turned_size

BED = Bed(250, 210, 220)


def strip(length: float, width: float, height: float = 4) -> trimesh.Trimesh:
    return trimesh.creation.box([length, width, height])


def test_a_part_that_fits_square_is_not_turned() -> None:
    placed = place_mesh(strip(100, 50), BED)
    assert placed.fits
    assert placed.turn_deg == 0
    assert placed.size_mm == pytest.approx((100, 50))


def test_a_part_longer_than_the_bed_but_not_its_width_turns_a_quarter() -> None:
    placed = place_mesh(strip(20, 240), Bed(250, 210, 220))
    assert placed.fits
    assert placed.turn_deg == 90


def test_the_one_piece_ruler_of_a_width_30_kit_lies_on_the_diagonal() -> None:
    placed = place_mesh(strip(270, 7.5), BED)
    assert placed.fits
    diagonal_deg = math.degrees(math.atan2(210, 250))  # 40.0
    assert placed.turn_deg == pytest.approx(diagonal_deg, abs=2)
    # The most room it can have: a skirt 6 mm out still lands on the bed.
    assert min(250 - placed.size_mm[0], 210 - placed.size_mm[1]) > 30


def test_the_270_mm_strip_fits_no_square_turn() -> None:
    points = footprint(strip(270, 7.5))
    for turn in (0, 90):
        x, y = turned_size(points, turn)
        assert x > 250 or y > 210


def test_a_part_longer_than_the_diagonal_fits_no_way() -> None:
    placed = place_mesh(strip(330, 6.5), BED)
    assert not placed.fits


def test_the_margin_is_honoured() -> None:
    assert place_mesh(strip(248, 100), BED).fits
    assert not place_mesh(strip(248, 100), Bed(250, 210, 220, margin_mm=2)).fits


def test_too_tall_fits_no_way() -> None:
    assert not place_mesh(strip(10, 10, 230), BED).fits


def test_the_footprint_is_the_hull_not_a_box() -> None:
    # A thin diagonal bar: its box is 200 x 200, it fits a 210 x 40 bed turned 45 deg.
    bar = np.array([[0, 0], [5, 0], [205, 200], [200, 200]], dtype=float)
    placed = place(bar, 4, Bed(290, 40, 100))
    assert placed.fits
    assert placed.size_mm[1] <= 40  # its 200 x 200 box would never fit a 40 mm wide bed

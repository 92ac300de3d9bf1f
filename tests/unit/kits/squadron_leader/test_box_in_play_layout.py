"""The box in a player's hands (issue 19), on the layout's exact geometry: nothing
rattles with the lid closed, the v2 box holds the stat dials, a d8 rests in a cell of its
own shape, the lid is deep enough to be a dice tray."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader.checks import rattle
from squadron_cad.kits.squadron_leader.stowing import items, travel
from squadron_cad.kits.squadron_leader.stowing.tin_fit import solve
from squadron_cad.resolve import resolve

WIDE_TIN = ["tin.inner_length_mm=125", "tin.inner_width_mm=95"]  # a 30 mm kit needs it
KITS = {
    "default": (None, []),  # token width 26
    "v2-box": ("v2-box", []),
    "width-30": (None, ["token.width_mm=30", *WIDE_TIN]),
    "v2-box-d8": ("v2-box", ["dice.sides=8"]),
    "d8": (None, ["dice.sides=8"]),
    "altoids": ("altoids", []),  # no template on top: the dividers rise for lifted pieces
    "custom": ("custom", []),
    "deep": (None, ["tin.inner_length_mm=150", "tin.inner_width_mm=100", "tin.inner_depth_mm=30"]),
}


@pytest.mark.parametrize("kit", list(KITS))
def test_no_stowed_piece_moves_more_than_the_rattle_limit(kit: str) -> None:
    """Each unit moved up and along +-x, +-y until it meets the box, the lid or another
    piece: at most box.max_rattle_mm. (The issue measured, lid closed: dice and ruler
    section 3 rise 10.1 mm, two-token stacks 8.3 mm, ruler section 3 slides 5.3 mm.)"""
    tin, overrides = KITS[kit]
    p = resolve(tin=tin, overrides=overrides)
    travels = travel.measure(p, solve(p))
    assert any(t.name.startswith("player1_stack") for t in travels)
    loose = {t.name: t.describe() for t in travels if t.worst > p.box.max_rattle_mm + 0.01}
    assert not loose, loose


def test_rattle_findings_are_data_with_measured_and_expected() -> None:
    p = resolve()
    found = rattle.findings(p, solve(p))
    assert found
    assert all(f.check == "rattle" for f in found)
    die = next(f for f in found if f.part.startswith("die_"))
    assert die.measured.startswith("up ")
    assert "+x" in die.measured
    assert "-y" in die.measured
    assert "box.max_rattle_mm" in die.expected
    assert all(f.severity == "ok" for f in found)


def test_the_v2_box_holds_the_stat_dials() -> None:
    """The reference's box carried no dials; ours carries them in the same outside size."""
    p = resolve(tin="v2-box")
    assert "dials" not in p.box.leave_out
    layout = solve(p)
    parts = [q.part for q in layout.placements]
    assert parts.count("stat_dial_card") == p.players
    assert parts.count("stat_dial_clip") == p.players * len(p.stat_dial.labels)


def test_a_d8_rests_on_a_face_in_a_cell_of_its_own_shape() -> None:
    p = resolve(overrides=["dice.sides=8"])
    size = p.dice.size_mm
    sx, sy, sz = items.die_size(p)
    assert sx == pytest.approx(size * math.sqrt(2 / 3))  # a hexagon across its corners
    assert sy == pytest.approx(size / math.sqrt(2))  # ... and across its flats
    assert sz == pytest.approx(size / math.sqrt(3))  # face to face
    cube = resolve()
    assert items.die_size(cube) == (cube.dice.size_mm,) * 3


def test_the_lid_tray_is_at_least_6_mm_deep() -> None:
    assert resolve().box.lid_tray_depth_mm >= 8  # half a rolled 16 mm die
    with pytest.raises((ValidationError, InputError, ValueError)) as caught:
        resolve(overrides=["box.lid_tray_depth_mm=5"])
    assert "lid_tray_depth_mm" in str(caught.value)


def test_a_lid_too_deep_for_the_tin_is_refused_naming_the_keys() -> None:
    with pytest.raises((ValidationError, InputError, ValueError)) as caught:
        resolve(overrides=["box.lid_tray_depth_mm=30"])
    assert "box.lid_tray_depth_mm" in str(caught.value)

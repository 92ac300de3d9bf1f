"""`squadron-cad fit` says the same things for every kit: the tin, the box, the layout,
the pieces, the spare room in every direction and what limited it (fit.report).
Squadron Leader's own arrangement: tests/unit/kits/squadron_leader/test_leader_fit_report.py."""

from __future__ import annotations

import json
import re

import pytest
from helpers import registered, run_cli
from toykit import TOY_KIT

KITS = ("squadron-leader", "squadrons", "space-planes")


def fit(capsys, *args: str) -> str:
    code, out, _err = run_cli(["fit", *args], capsys)
    assert not code
    return out


@pytest.mark.parametrize("kit", KITS)
def test_every_kit_reports_box_layout_pieces_margins_and_limit(kit: str, capsys) -> None:
    text = fit(capsys, "--kit", kit)
    summary = json.loads(fit(capsys, "--kit", kit, "--json"))
    lines = text.splitlines()
    for start in ("tin:", "box:", "layout:", "pieces:", "spare room inside", "limited by:"):
        assert any(line.startswith(start) for line in lines), f"{kit}: no '{start}' line"
    box = next(line for line in lines if line.startswith("box:"))
    length, width, height = summary["box_mm"]
    assert f"{length:g} x {width:g} x {height:g} mm outside" in box
    assert "walls" in box
    assert "floor" in box
    assert "clearance to the tin" in box
    # Under the layout line, where the pieces lie (the kit's arrangement or its pockets).
    layout_at = next(i for i, line in enumerate(lines) if line.startswith("layout:"))
    assert lines[layout_at + 1].startswith("  ")
    # Every piece the layout places is counted once.
    pieces = next(line for line in lines if line.startswith("pieces:"))
    counted = sum(int(n) for n in re.findall(r"(\d+) x ", pieces))
    assert counted == sum(summary["pieces"].values())
    spare = next(line for line in lines if line.startswith("spare room"))
    margins = summary["margins_mm"]
    for word, axis in (("length", "x"), ("width", "y"), ("depth", "z"), ("corner", "corner")):
        assert f"{word} {margins[axis]:.1f} mm" in spare, (kit, word)
    limit = next(line for line in lines if line.startswith("limited by:"))
    said = {"x": "length", "y": "width", "z": "depth", "corner": "corner"}[summary["limited_by"]]
    assert said in limit


def test_a_lidless_tray_says_so_and_its_depth_needs_no_lid(capsys) -> None:
    """The toy kit's tray (Space Planes' box has the engine's lid now)."""
    with registered(TOY_KIT):
        text = fit(capsys, "--kit", "toy")
    assert "an open tray" in text
    assert "no lid" in text
    assert "limited by: the depth (tin depth minus floor)" in text


def test_a_lidded_tray_names_its_lid_and_the_depth_it_takes(capsys) -> None:
    text = fit(capsys, "--kit", "space-planes")
    assert "lid included" in text
    assert "lid 1.2 mm" in text
    assert "limited by: the depth (tin depth minus floor, lid and headroom)" in text

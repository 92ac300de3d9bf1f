"""Squadron Leader's bill of materials: its dice to buy, its alternatives (three templates
for the all-in-one, the one-piece ruler for the sections) and its dice colours as text."""

from __future__ import annotations

from typing import Any

from helpers import bom_manifest, csv_rows, sliced

from squadron_cad.kit import kit_of
from squadron_cad.outputs.bom import csv_text, markdown
from squadron_cad.resolve import resolve


def manifest(players: int = 2, slicer: Any = None) -> dict[str, Any]:
    params = resolve(overrides=[f"players={players}"], kit="squadron-leader")
    return bom_manifest(params, slicer)


def test_what_to_buy_comes_from_the_dice_parameters() -> None:
    rows = [row for row in csv_rows(csv_text(manifest())) if row["kind"] == "buy"]
    dice = next(row for row in rows if row["item"] == "dice")
    assert dice["count"] == "8"
    assert "12 mm d6" in dice["detail"]
    assert "4 red" in dice["detail"]
    assert any("playmat" in row["item"] for row in rows)


def test_each_alternative_says_its_time_and_filament_against_what_it_replaces() -> None:
    """A maker choosing the three templates over the all-in-one (or the one-piece ruler
    over the sections) sees what either choice costs."""
    data = manifest()
    data["slicer"] = sliced(data)  # every part: 10 min and 3.0 g
    table = markdown(data)
    templates = "`stl/template_straight.stl`, `stl/template_bank.stl`, `stl/template_turn.stl`"
    three = "30 min (instead of 10 min) | 9.0 g (instead of 3.0 g)"
    assert f"| {templates} | `template_all` | {three} |" in table
    sections = "`range_ruler_1`, `range_ruler_2`, `range_ruler_3`"
    one = "10 min (instead of 30 min) | 3.0 g (instead of 9.0 g)"
    assert f"| `stl/range_ruler.stl` | {sections} | {one} |" in table
    unsliced = markdown(manifest())
    assert f"| {templates} | `template_all` | - | - |" in unsliced


def test_dice_colours_reach_the_bom_as_given() -> None:
    """A dice colour named `a|b` split the Buy row; `<b>x</b>` put raw HTML in bom.md. The
    kit names the colours as given; the BOM escapes them (tests/unit/test_outputs_bom.py)."""
    params = resolve(
        overrides=["dice.colours={'a|b': 2, '<b>x</b>': 1, 'r&d': 1}"], kit="squadron-leader"
    )
    data = manifest()
    data["purchases"] = [item.as_dict() for item in kit_of(params).purchases(params)]
    buy = next(r for r in csv_rows(csv_text(data)) if r["item"] == "dice")
    assert "2 a|b, 1 <b>x</b>, 1 r&d" in buy["detail"]
    row = next(line for line in markdown(data).splitlines() if line.startswith("| dice |"))
    assert "2 a\\|b, 1 &lt;b&gt;x&lt;/b&gt;, 1 r&amp;d" in row

"""Bill of materials from a manifest: the manifest's counts, slicer figures when present."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from squadron_cad.kit import kit_of
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.outputs.bom import NOT_SLICED, csv_text, markdown, write_bom
from squadron_cad.resolve import resolve


def manifest(players: int = 2, slicer: Any = None) -> dict[str, Any]:
    """A manifest as build writes it, with the fields the bill of materials reads."""
    params = resolve(overrides=[f"players={players}"])
    data: dict[str, Any] = {
        "generator": "squadron_cad test",
        "players": players,
        "parts": [
            {
                "name": spec.name,
                "title": spec.title,
                "file": f"stl/{spec.name}.stl",
                "count": spec.count(params),
                "alternative_to": spec.alternative_to,
                "replaces": list(spec.replaces),
            }
            for spec in PARTS
        ],
        "params": params.model_dump(mode="json"),
        "purchases": [item.as_dict() for item in kit_of(params).purchases(params)],
    }
    if slicer is not None:
        data["slicer"] = slicer
    return data


def sliced(data: dict[str, Any]) -> dict[str, Any]:
    figures = {
        part["name"]: {"print_seconds": 600.0, "filament_mm": 1000.0, "filament_g": 3.0}
        for part in data["parts"]
    }
    return {"slicer": "PrusaSlicer-2.5.0", "parts": figures}


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("players", [1, 2, 4])
def test_counts_match_the_manifest(players: int) -> None:
    data = manifest(players)
    rows = {row["item"]: row for row in csv_rows(csv_text(data)) if row["kind"] != "buy"}
    for part in data["parts"]:
        assert int(rows[part["name"]]["count"]) == part["count"]
    table = markdown(data)
    for part in data["parts"]:
        if part["count"]:
            assert f"| {part['name']} | `{part['file']}` | {part['count']} |" in table
    assert f"**{sum(p['count'] for p in data['parts'])} pieces**" in table


def test_without_slicer_figures_it_says_how_to_get_them() -> None:
    table = markdown(manifest())
    assert NOT_SLICED in table
    assert all(row["detail"] == NOT_SLICED for row in csv_rows(csv_text(manifest()))[:3])


def test_slicer_figures_give_per_part_and_total_time_and_filament() -> None:
    data = manifest()
    data["slicer"] = sliced(data)
    table = markdown(data)
    assert NOT_SLICED not in table
    assert (
        "| altitude_token | `stl/altitude_token.stl` | 8 | 10 min | 1 h 20 min | 3.0 g | 24.0 g |"
        in table
    )
    pieces = sum(p["count"] for p in data["parts"])
    assert f"**{pieces} pieces**" in table
    assert f"**{pieces * 3.0:.1f} g ({pieces:.2f} m)**" in table
    rows = {row["item"]: row for row in csv_rows(csv_text(data))}
    assert float(rows["altitude_token"]["print_seconds_total"]) == 8 * 600
    assert float(rows["altitude_token"]["filament_mm_total"]) == 8 * 1000


def test_a_part_the_slicer_missed_is_not_hidden_in_the_total() -> None:
    data = manifest()
    figures = sliced(data)
    del figures["parts"]["box"]
    data["slicer"] = figures
    table = markdown(data)
    assert "| box | `stl/box.stl` | 1 | " + NOT_SLICED in table
    assert "plus the parts not sliced: box" in table


def test_figures_in_each_part_entry_are_read_too() -> None:
    data = manifest()
    for part in data["parts"]:
        part["slicer"] = {"print_seconds": 60, "filament_g": 1.5, "filament_mm": 500}
    assert "| plane_token | `stl/plane_token.stl` | 2 | 1 min | 2 min | 1.5 g | 3.0 g |" in (
        markdown(data)
    )


def test_what_to_buy_comes_from_the_dice_parameters() -> None:
    rows = [row for row in csv_rows(csv_text(manifest())) if row["kind"] == "buy"]
    dice = next(row for row in rows if row["item"] == "dice")
    assert dice["count"] == "8"
    assert "12 mm d6" in dice["detail"]
    assert "4 red" in dice["detail"]
    assert any("playmat" in row["item"] for row in rows)


def test_write_bom_writes_both_files(tmp_path: Path) -> None:
    md, table = write_bom(tmp_path, manifest())
    assert md == tmp_path / "bom.md"
    assert table == tmp_path / "bom.csv"
    assert md.read_text().startswith("# Bill of materials")
    assert csv_rows(table.read_text())[0]["item"] == "plane_token"


def test_the_note_names_the_slicer_and_its_version() -> None:
    data = manifest(2, slicer=sliced(manifest(2)))
    assert "PrusaSlicer-2.5.0" in markdown(data)


def test_the_note_says_why_slicing_was_skipped() -> None:
    data = manifest(2, slicer={"skipped": "built with --no-slice"})
    assert "Print time and filament: not sliced: built with --no-slice.\n" in markdown(data)


def test_a_kit_without_player_parts_has_no_player_set_line() -> None:
    data = manifest(2, slicer=sliced(manifest(2)))
    data["slicer"]["per_player"] = {
        "filament_mm": 0.0,
        "filament_g": 0.0,
        "print_seconds": 0,
        "parts": {},
        "missing": [],
    }
    assert "One player's set" not in markdown(data)
    data["slicer"]["per_player"]["parts"] = {"plane_token": 1}
    assert "One player's set takes 0 mm" in markdown(data)


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


@pytest.mark.parametrize("kit", ["squadron-leader", "squadrons", "space-planes"])
def test_the_bom_carries_the_games_credit_and_the_projects_licence(kit: str) -> None:
    from squadron_cad.constants import ENGINE_CREDIT
    from squadron_cad.kit import load_kit

    game = load_kit(kit)
    data = manifest() | {"kit": {"name": game.name, "title": game.title, "credit": game.credit}}
    assert f"{game.credit}; {ENGINE_CREDIT}." in markdown(data)


def test_parts_with_a_file_per_player_point_each_player_at_their_own() -> None:
    """The Print table said `stl/ship_base_1.stl` x 2: player 1's mark on both squadrons'
    bases (the plain file is player 1's); only the plates used the .p2 files."""
    data = manifest()
    plane = next(part for part in data["parts"] if part["name"] == "plane_token")
    plane["variants"] = ["stl/plane_token.p1.stl", "stl/plane_token.p2.stl"]
    table = markdown(data)
    assert "| plane_token | `stl/plane_token.p1.stl`, `stl/plane_token.p2.stl` | 2 |" in table
    assert "carries that player's mark" in table
    rows = {row["item"]: row for row in csv_rows(csv_text(data))}
    assert rows["plane_token"]["file"] == "stl/plane_token.p1.stl stl/plane_token.p2.stl"


def test_dice_names_are_table_text_not_markup() -> None:
    """A dice colour named `a|b` split the Buy row; `<b>x</b>` put raw HTML in bom.md."""
    params = resolve(overrides=["dice.colours={'a|b': 2, '<b>x</b>': 1, 'r&d': 1}"])
    data = manifest()
    data["purchases"] = [item.as_dict() for item in kit_of(params).purchases(params)]
    table = markdown(data)
    row = next(line for line in table.splitlines() if line.startswith("| dice |"))
    unescaped = len(re.findall(r"(?<!\\)\|", row))
    assert unescaped == 4, row  # three cells: item, count, detail
    assert "<" not in row
    assert ">" not in row
    assert "a\\|b" in row
    assert "&lt;b&gt;x&lt;/b&gt;" in row
    assert "r&amp;d" in row
    # the CSV keeps the names as given
    buy = next(r for r in csv_rows(csv_text(data)) if r["item"] == "dice")
    assert "2 a|b, 1 <b>x</b>" in buy["detail"]

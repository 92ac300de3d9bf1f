"""Bill of materials from a manifest: the manifest's counts, slicer figures when present
(the toy kit's parts; Squadron Leader's dice and alternatives: its kit's tests)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import bom_manifest, csv_rows, sliced

from squadron_cad.kit import Kit
from squadron_cad.outputs.bom import NOT_SLICED, csv_text, markdown, write_bom
from squadron_cad.resolve import resolve


@pytest.fixture(autouse=True, scope="module")
def _toy(toy_kit: Kit) -> None:
    """Every manifest here is the toy kit's."""


def manifest(players: int = 2, slicer: Any = None) -> dict[str, Any]:
    return bom_manifest(resolve(overrides=[f"players={players}"], kit="toy"), slicer)


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
    assert "| tile | `stl/tile.stl` | 6 | 10 min | 1 h 00 min | 3.0 g | 18.0 g |" in table
    pieces = sum(p["count"] for p in data["parts"])
    assert f"**{pieces} pieces**" in table
    assert f"**{pieces * 3.0:.1f} g ({pieces:.2f} m)**" in table
    rows = {row["item"]: row for row in csv_rows(csv_text(data))}
    assert float(rows["tile"]["print_seconds_total"]) == 6 * 600
    assert float(rows["tile"]["filament_mm_total"]) == 6 * 1000


def test_a_part_the_slicer_missed_is_not_hidden_in_the_total() -> None:
    data = manifest()
    figures = sliced(data)
    del figures["parts"]["tray"]
    data["slicer"] = figures
    table = markdown(data)
    assert "| tray | `stl/tray.stl` | 1 | " + NOT_SLICED in table
    assert "plus the parts not sliced: tray" in table


def test_figures_in_each_part_entry_are_read_too() -> None:
    data = manifest()
    for part in data["parts"]:
        part["slicer"] = {"print_seconds": 60, "filament_g": 1.5, "filament_mm": 500}
    assert "| tile | `stl/tile.stl` | 6 | 1 min | 6 min | 1.5 g | 9.0 g |" in markdown(data)


def test_what_to_buy_comes_from_the_kits_purchases() -> None:
    rows = [row for row in csv_rows(csv_text(manifest(players=3))) if row["kind"] == "buy"]
    assert rows == [
        {**rows[0], "item": "pencil", "count": "3", "detail": "one per player, to keep score"}
    ]
    assert "| pencil | 3 | one per player, to keep score |" in markdown(manifest(players=3))


def test_write_bom_writes_both_files(tmp_path: Path) -> None:
    md, table = write_bom(tmp_path, manifest())
    assert md == tmp_path / "bom.md"
    assert table == tmp_path / "bom.csv"
    assert md.read_text().startswith("# Bill of materials")
    assert csv_rows(table.read_text())[0]["item"] == "tile"


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
    data["slicer"]["per_player"]["parts"] = {"tile": 1}
    assert "One player's set takes 0 mm" in markdown(data)


def test_an_alternative_says_its_time_and_filament_against_what_it_replaces() -> None:
    """A maker choosing the plain tile over the grooved one sees what either choice costs
    (an alternative counted as many times as the part it replaces: 6 tiles)."""
    data = manifest()
    data["slicer"] = sliced(data)  # every part: 10 min and 3.0 g
    plain = {"print_seconds": 300.0, "filament_mm": 800.0, "filament_g": 2.5}
    data["slicer"]["parts"]["tile_plain"] = plain
    table = markdown(data)
    cheaper = "30 min (instead of 1 h 00 min) | 15.0 g (instead of 18.0 g)"
    assert f"| `stl/tile_plain.stl` | `tile` | {cheaper} |" in table
    assert "| `stl/tile_plain.stl` | `tile` | - | - |" in markdown(manifest())


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
    tile = next(part for part in data["parts"] if part["name"] == "tile")
    tile["variants"] = ["stl/tile.p1.stl", "stl/tile.p2.stl"]
    table = markdown(data)
    assert "| tile | `stl/tile.p1.stl`, `stl/tile.p2.stl` | 6 |" in table
    assert "carries that player's mark" in table
    rows = {row["item"]: row for row in csv_rows(csv_text(data))}
    assert rows["tile"]["file"] == "stl/tile.p1.stl stl/tile.p2.stl"


def test_purchase_names_are_table_text_not_markup() -> None:
    """A dice colour named `a|b` split the Buy row; `<b>x</b>` put raw HTML in bom.md."""
    data = manifest()
    given = {"item": "dice", "count": 4, "detail": "2 a|b, 1 <b>x</b>, 1 r&d"}
    data["purchases"] = [given]
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

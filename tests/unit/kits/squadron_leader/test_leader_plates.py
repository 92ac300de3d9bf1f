"""Squadron Leader's plates: each player's marked pieces on plates by the height of their
one filament change (the marks' colour), named after it, the change written for PrusaSlicer
(on stand-in boxes; the engine's plates: tests/unit/test_outputs_plates.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import trimesh
from helpers import fake_stls

from squadron_cad.kit import kit_of
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.outputs.plate_colours import by_change, one_change_height
from squadron_cad.outputs.plates import plate_groups, write_plates
from squadron_cad.resolve import resolve

# Stand-in footprints (x, y, z) close to the real parts', so packing is realistic.
SIZES = {
    "plane_token": (24, 24, 5),
    "altitude_token": (24, 24, 5.5),
    "stat_dial_card": (36.6, 32.8, 1.6),
    "stat_dial_clip": (7.7, 3.4, 5.6),
    "template_all": (78, 52, 4),
    "range_ruler_1": (83, 6.5, 4),
    "range_ruler_2": (83, 6.5, 4),
    "range_ruler_3": (78, 6.5, 4),
    "box": (107, 82, 25),
    "box_lid": (105, 80, 1.6),
}


BY_PLAYER = {spec.name for spec in PARTS if spec.player_builder is not None}


def fake_out(folder: Path) -> Path:
    return fake_stls(folder, SIZES, BY_PLAYER)


def counts_for(players: int) -> dict[str, int]:
    params = resolve(overrides=[f"players={players}"], kit="squadron-leader")
    return {spec.name: spec.count(params) for spec in PARTS}


PLAYER1 = ("player1_red", "player1_red_marks_1.2mm", "player1_red_marks_3.8mm",
           "player1_red_marks_4.2mm")  # clips; card; altitude tokens; plane token  # fmt: skip


def player1_labels(folder: Path) -> list[str]:
    labels = []
    for name in PLAYER1:
        labels += trimesh.load(folder / f"{name}.3mf").geometry
    return sorted(labels)


def test_player_plates_are_named_after_the_colours(tmp_path: Path) -> None:
    params = resolve(overrides=["players=2"], kit="squadron-leader")
    names = {p.name for p in write_plates(fake_out(tmp_path), params, counts_for(2))}
    assert {"player1_red.3mf", "player2_blue.3mf", "shared.3mf", "shared.stl"} <= names
    assert {f"{name}.3mf" for name in PLAYER1} <= names
    labels = player1_labels(tmp_path / "plates")
    assert labels.count("plane_token") == 1  # one copy: no number
    assert sum(label.startswith("altitude_token ") for label in labels) == 4
    assert sum(label.startswith("stat_dial_clip ") for label in labels) == 4


def test_parts_are_grouped_by_their_filament_change() -> None:
    """Each player's parts go on plates by the height of their one filament change, so
    one change (or none) colours every part on a plate right: before, the stat card's
    1.0 mm change coloured the 4 mm tokens' bodies from there up."""
    params = resolve()
    kit = kit_of(params)
    wanted = plate_groups(params, counts_for(2))["player1_red"]
    groups = by_change(wanted, params)
    assert {change: sorted(n for n, _ in parts) for change, parts in groups.items()} == {
        None: ["stat_dial_clip"],
        1.2: ["stat_dial_card"],
        3.8: ["altitude_token"],
        4.2: ["plane_token"],
    }
    for change, parts in groups.items():
        for name, _count in parts:
            assert one_change_height(kit.part(name), params) == change


def test_a_plate_with_a_change_tells_prusaslicer_where(tmp_path: Path) -> None:
    """The change is in the 3MF, as PrusaSlicer's colour changes by height (M600 before
    the layer ending at print_z), in the marks' colour; a one-colour plate has none."""
    params = resolve(overrides=["players=2"], kit="squadron-leader")
    write_plates(fake_out(tmp_path), params, counts_for(2))
    changes = "Metadata/Prusa_Slicer_custom_gcode_per_print_z.xml"
    with zipfile.ZipFile(tmp_path / "plates" / "player1_red_marks_3.8mm.3mf") as archive:
        text = archive.read(changes).decode()
    assert '<code print_z="3.8" type="0" extruder="1" color="#f2f2f2"' in text
    assert '<mode value="SingleExtruder"/>' in text
    for plain in ("player1_red.3mf", "shared.3mf"):
        with zipfile.ZipFile(tmp_path / "plates" / plain) as archive:
            assert changes not in archive.namelist()

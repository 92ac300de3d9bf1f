"""Squadron Leader's registry: every part once, its file names the interface, with counts
that follow the game's components."""

from __future__ import annotations

import pytest

from squadron_cad.kits.squadron_leader.parts.registry import PARTS, part
from squadron_cad.resolve import resolve

INTERFACE_FILES = {
    "plane_token.stl",
    "altitude_token.stl",
    "template_straight.stl",
    "template_bank.stl",
    "template_turn.stl",
    "template_all.stl",
    "range_ruler.stl",
    "range_ruler_1.stl",
    "range_ruler_2.stl",
    "range_ruler_3.stl",
    "box.stl",
    "box_lid.stl",
}


def test_file_names_are_the_interface() -> None:
    files = {spec.file_name for spec in PARTS}
    assert files >= INTERFACE_FILES
    assert all(f.startswith("stat_dial") for f in files - INTERFACE_FILES)
    assert len(files) == len(PARTS)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_counts_follow_the_players(players: int) -> None:
    kit = resolve(overrides=[f"players={players}"], kit="squadron-leader")
    assert part("plane_token").count(kit) == players
    assert part("altitude_token").count(kit) == 4 * players
    assert part("stat_dial_card").count(kit) == players
    assert part("stat_dial_clip").count(kit) == 4 * players
    assert part("template_all").count(kit) == 1
    assert part("box").count(kit) == 1
    assert part("template_straight").count(kit) == 0  # optional alternative


def test_alternatives_name_a_real_part() -> None:
    names = {spec.name for spec in PARTS}
    for spec in PARTS:
        assert spec.alternative_to in names | {None}

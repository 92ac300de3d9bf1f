"""The Squadrons kit at the table (issue 34), without OpenSCAD: the markers the missions
need, derived from the missions; a tracker card per ship; boxes for every player; the
tracker clip measured the same way as Squadron Leader's stat clip."""

from __future__ import annotations

import math

import numpy as np
import pytest

from squadron_cad.components.stat_card.measure import beam_strain
from squadron_cad.kit import load_kit
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.design import SquadronsDesign
from squadron_cad.kits.squadrons.stowing import ship_units
from squadron_cad.resolve import resolve

KIT = load_kit("squadrons")
PLAYERS = range(2, 9)


def counts(players: int) -> dict[str, int]:
    p = resolve(kit="squadrons", overrides=[f"players={players}"])
    return {part.name: part.count(p) for part in KIT.parts}


def test_the_missions_are_the_rules_quoted() -> None:
    """Mission 1: 4 Scan, scanned ones become Destroy, 2 entry points a player; mission 2:
    2 Destroy, 1 + 2 entry points; mission 3: 5 Scan replaced by up to 5 Recover."""
    one, two, three = constants.MISSIONS
    assert constants.mission_markers(one, 2) == {"scan": 4, "recover": 0, "destroy": 4, "entry": 4}
    assert constants.mission_markers(two, 2) == {"scan": 0, "recover": 0, "destroy": 2, "entry": 3}
    assert constants.mission_markers(three, 2) == {
        "scan": 5,
        "recover": 5,
        "destroy": 0,
        "entry": 0,
    }
    assert constants.ROUNDS == 4
    assert constants.MISSION_CHANGE_ROUNDS == (2, 3)


@pytest.mark.parametrize("players", PLAYERS)
def test_the_kit_prints_what_the_most_demanding_mission_needs(players: int) -> None:
    """Each marker's count is the most any mission has on the table at once (the kit
    printed 1 Scan, 1 Recover, 1 Destroy and 2 entry markers at every player count)."""
    found = counts(players)
    for kind, part in constants.MARKER_PARTS.items():
        most = max(constants.mission_markers(m, players)[kind] for m in constants.MISSIONS)
        assert found[part] == most, (kind, players)
    assert found["objective_scan"] == 5  # mission 3
    assert found["objective_destroy"] == 4  # mission 1, every Scan scanned
    assert found["objective_recover"] == 5  # mission 3
    assert found["entry_marker"] == 2 * players  # mission 1
    assert found["flagship_marker"] == players  # the Squadron Leader's, one a squadron
    assert found["mission_tracker"] == 1


@pytest.mark.parametrize("players", PLAYERS)
def test_a_tracker_card_for_each_ship_of_each_player(players: int) -> None:
    """Ship n's card is a part of its own (its number), one copy a player (their mark), as
    the bases are; the 20 anonymous cards were one part."""
    found = counts(players)
    assert "tracker_card" not in found
    for n in range(1, 16):
        assert found[f"tracker_card_{n}"] == (players if n <= 10 else 0)
        assert found[f"tracker_card_{n}"] == found[f"ship_base_{n}"]
    card = KIT.part("tracker_card_3")
    assert card.player_builder is not None  # each player's copy carries their mark
    assert card.accent_within is not None  # the mark is the marks' colour on the plates
    assert found["tracker_clip"] == 2 * 10 * players + 1


@pytest.mark.parametrize("players", PLAYERS)
def test_every_player_has_a_ship_box_and_the_table_one_box(players: int) -> None:
    """With 8 players `list` asked for 80 bases and 1 box that held one player's ships."""
    found = counts(players)
    assert found["ship_box"] == players
    assert found["box"] == 1
    design = SquadronsDesign(resolve(kit="squadrons", overrides=[f"players={players}"]))
    held = [p.part for p in design.ship_layout.placements]
    assert sorted(n for n in held if n.startswith("ship_base_")) == sorted(
        f"ship_base_{n}" for n in range(1, 11)
    )
    assert sum(n.startswith("tracker_card_") for n in held) == 10
    assert held.count("tracker_clip") == 20
    assert held.count("flagship_marker") == 1
    assert held.count("entry_marker") == math.ceil(found["entry_marker"] / players)
    table = [p.part for p in design.layout.placements]
    for kind in constants.OBJECTIVE_KINDS:
        assert table.count(constants.MARKER_PARTS[kind]) == found[constants.MARKER_PARTS[kind]]
    assert [layout.box_part for layout in design.layouts] == ["box", "ship_box"]


def test_a_ship_box_holds_its_tallest_stack_and_is_the_smaller_box() -> None:
    design = SquadronsDesign(resolve(kit="squadrons"))
    shape = design.ship_box
    assert shape.usable_depth >= max(u.size[2] for u in ship_units(design, shape.usable_depth))
    volume = shape.length * shape.width * shape.height
    assert volume < 0.5 * design.box.length * design.box.width * design.box.height


def test_a_constant_section_bends_as_the_straight_cantilever() -> None:
    """The rails' measure, on a jaw without a window, is the jaw's: 1.5 t d / L^2."""
    span, t, d = 6.5, 0.8, 0.15
    s = (np.arange(2000) + 0.5) * span / 2000
    strain, at = beam_strain(s, np.full_like(s, 6.4), np.full_like(s, t), span, d)
    assert strain == pytest.approx(1.5 * t * d / span**2, rel=2e-3)
    assert at < 0.01
    narrow = np.where((s > 2) & (s < 6), 2.0, 6.4)  # a window leaves 2 mm of rails
    assert beam_strain(s, narrow, np.full_like(s, t), span, d)[0] > strain


@pytest.mark.parametrize("players", [2, 8])
def test_fit_reports_every_box_as_fully_as_squadron_leaders(players: int) -> None:
    """The box, its layout, its pieces, its margins and what limited them, for the kit's box
    and then for the ship boxes (the report was three lines, of one box)."""
    design = SquadronsDesign(resolve(kit="squadrons", overrides=[f"players={players}"]))
    lines = KIT.fit_lines(design)
    heads = [line.split(":")[0].strip() for line in lines if not line.startswith("    ")]
    for head in ("tin", "box", "layout", "pieces", "holds", "spare room inside the box",
                 "limited by"):  # fmt: skip
        assert heads.count(head) == 2, head  # the kit's box and a ship box
    assert f"ship boxes: {players}, one a player" in "\n".join(lines)
    for layout in design.layouts:
        m = layout.margins
        assert (f"length {m['x']:.1f} mm, width {m['y']:.1f} mm, depth {m['z']:.1f} mm"
                in "\n".join(lines))  # fmt: skip
    pockets = [line for line in lines if " mm deep, " in line]  # a pocket and what it holds
    assert len(pockets) == sum(len(layout.pockets) for layout in design.layouts)

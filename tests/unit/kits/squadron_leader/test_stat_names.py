"""The stat rows follow the current rules' names; the older names are a preset, and the
paper stat record names the same rows as the printed card (issue 19: the last row read S)."""

from __future__ import annotations

from pathlib import Path

from squadron_cad.kits.squadron_leader import constants as K
from squadron_cad.kits.squadron_leader.sheets import counters, outlines
from squadron_cad.resolve import resolve

PRESET = Path(K.__file__).parent / "presets" / "older-rules.yaml"


def test_the_default_rows_are_health_defense_attack_manoeuvrability() -> None:
    params = resolve()
    assert tuple(params.stat_dial.labels) == ("H", "D", "A", "M")
    assert K.stat_names(params.stat_dial.labels) == [
        "Health", "Defense", "Attack", "Manoeuvrability",
    ]  # fmt: skip


def test_the_paper_record_names_and_letters_match_the_card() -> None:
    params = resolve()
    assert "(Health, Defense, Attack, Manoeuvrability)" in counters.stat_record(params, 0).title
    letters = [text for text, _, _ in outlines.stat_card_text(params) if text.isalpha()]
    assert letters == ["H", "D", "A", "M"]


def test_the_older_rules_preset_brings_back_speed() -> None:
    older = resolve(param_files=[PRESET])
    assert tuple(older.stat_dial.labels) == ("H", "D", "A", "S")
    assert "(Health, Defense, Attack, Speed)" in counters.stat_record(older, 0).title

"""Squadron Leader's emitted OpenSCAD: every part opens with its customizer section and
the game's credit, and a parameter changes the sources of exactly the parts whose builders
use it (the engine's emitter itself: tests/unit/test_emit.py)."""

from __future__ import annotations

import re

import pytest

from squadron_cad.kit import design_of
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.pipeline.rendering import emit_sources
from squadron_cad.resolve import resolve


def texts(overrides: list[str]) -> dict[str, str]:
    params = resolve(overrides=overrides, kit="squadron-leader")
    return {
        name: source.text for name, source in emit_sources(design_of(params), list(PARTS)).items()
    }


@pytest.fixture(scope="module")
def defaults() -> dict[str, str]:
    return texts([])


def test_every_part_opens_with_its_customizer_section_and_the_credit(defaults) -> None:
    for name, text in defaults.items():
        head = text.partition("/* [Hidden] */")[0]
        assert re.search(r"^/\* \[[A-Z][a-z ]+\] \*/$", head, flags=re.MULTILINE), name
        assert "Squadron Leader by Tim Smith" in text, name
    head = defaults["plane_token"].partition("/* [Hidden] */")[0]
    assert re.search(r"^token_width_mm = 26; // \[16:0\.1:120\]$", head, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("override", "changed"),
    [
        ("stat_dial.max_value=5", {"stat_dial_card", "box"}),
        # the slots, and the snap ridges on the tabs (their default follows the clearance)
        ("ruler.joint_clearance_mm=0.2", {"range_ruler_1", "range_ruler_2", "range_ruler_3"}),
        ("templates.bank_angle_deg=40", {"template_bank", "template_all", "box"}),
        ("box.title=HANGAR", {"box_lid"}),
    ],
)
def test_a_change_touches_only_the_parts_that_use_it(defaults, override, changed) -> None:
    after = texts([override])
    assert {name for name in defaults if defaults[name] != after[name]} == changed


def test_the_template_length_is_an_expression_of_the_token_width(defaults) -> None:
    hidden = defaults["template_straight"].partition("/* [Hidden] */")[2]
    assert "template_length_mm = token_width_mm * 3;" in hidden.splitlines()
    assert "template_length_mm = 78" not in defaults["template_straight"]

"""The emitted OpenSCAD: readable parameters on top, derived values hidden, and a part's
source changes exactly when a parameter it uses changes."""

from __future__ import annotations

import re

import pytest

from squadron_cad.kit import design_of
from squadron_cad.kits.squadron_leader.parts.registry import PARTS, part
from squadron_cad.pipeline.rendering import emit_sources
from squadron_cad.resolve import resolve


@pytest.fixture(scope="module")
def sources():
    return emit_sources(design_of(resolve()), list(PARTS))


def _assignments(text: str) -> dict[str, str]:
    return dict(re.findall(r"^([a-z_][a-z0-9_]*) = (.+?);", text, flags=re.MULTILINE))


def test_every_part_emits_a_customizer_header(sources) -> None:
    for name, source in sources.items():
        text = source.text
        head, _, body = text.partition("/* [Hidden] */")
        assert body, f"{name}: no hidden section"
        assert re.search(r"^/\* \[[A-Z][a-z ]+\] \*/$", head, flags=re.MULTILINE), name
        for variable in source.inputs:
            line = f"{variable.name} = "
            assert line in head, f"{name}: {variable.name} not in the customizer section"
        assert "Squadron Leader by Tim Smith" in text


def test_customizer_values_carry_ranges(sources) -> None:
    head = sources["plane_token"].text.partition("/* [Hidden] */")[0]
    assert re.search(r"^token_width_mm = 26; // \[16:0\.1:120\]$", head, flags=re.MULTILINE)


def test_derived_values_are_expressions_of_the_inputs(sources) -> None:
    text = sources["template_straight"].text
    hidden = text.partition("/* [Hidden] */")[2]
    assert re.search(r"^template_length_mm = token_width_mm \* 3;$", hidden, flags=re.MULTILINE)
    assert "template_length_mm = 78" not in text


def test_the_body_uses_names_not_numbers(sources) -> None:
    body = sources["altitude_token"].text.split("// ---- altitude_token ----")[1]
    assert "token_height_mm" in body
    assert "26" not in re.sub(r"[a-z_]+26", "", body)


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
def test_a_change_touches_only_the_parts_that_use_it(sources, override, changed) -> None:
    after = emit_sources(design_of(resolve(overrides=[override])), list(PARTS))
    differ = {name for name in sources if sources[name].text != after[name].text}
    assert differ == changed


def test_quality_sets_the_facet_size(sources) -> None:
    draft = emit_sources(design_of(resolve(overrides=["quality=draft"])), [part("plane_token")])
    assert "$fs = 0.3;" in sources["plane_token"].text
    assert "$fs = 1.0;" in draft["plane_token"].text

"""The emitted OpenSCAD: readable parameters on top, derived values hidden, and a part's
source changes exactly when a parameter it uses changes (the toy kit's parts; Squadron
Leader's: tests/unit/kits/squadron_leader/test_leader_emit.py)."""

from __future__ import annotations

import re

import pytest

from squadron_cad.kit import Kit, design_of
from squadron_cad.pipeline.rendering import emit_sources
from squadron_cad.resolve import resolve


def emitted(kit: Kit, overrides: list[str]) -> dict:
    return emit_sources(design_of(resolve(overrides=overrides, kit=kit.name)), list(kit.parts))


@pytest.fixture(scope="module")
def sources(toy_kit: Kit):
    return emitted(toy_kit, [])


def test_every_part_emits_a_customizer_header(sources) -> None:
    for name, source in sources.items():
        text = source.text
        head, _, body = text.partition("/* [Hidden] */")
        assert body, f"{name}: no hidden section"
        if source.inputs:  # the tray is built from the layout's numbers: no inputs
            assert re.search(r"^/\* \[[A-Z][a-z ]+\] \*/$", head, flags=re.MULTILINE), name
        for variable in source.inputs:
            line = f"{variable.name} = "
            assert line in head, f"{name}: {variable.name} not in the customizer section"
        assert "Toy tiles, a test kit of squadron_cad (CC0)" in text
    assert {v.name for v in sources["tile"].inputs} == {
        "tile_width_mm", "tile_thickness_mm", "tile_mark_depth_mm"
    }  # fmt: skip


def test_customizer_values_carry_ranges(sources) -> None:
    head = sources["tile"].text.partition("/* [Hidden] */")[0]
    assert re.search(r"^tile_width_mm = 20; // \[5:0\.1:100\]$", head, flags=re.MULTILINE)
    assert re.search(r"^tile_mark_depth_mm = 0\.6; // \[0\.2:0\.05:3\]$", head, flags=re.MULTILINE)


def test_derived_values_are_expressions_of_the_inputs(sources) -> None:
    text = sources["tile"].text
    hidden = text.partition("/* [Hidden] */")[2]
    assert re.search(r"^groove_width_mm = tile_width_mm / 10;$", hidden, flags=re.MULTILINE)
    assert "groove_width_mm = 2" not in text
    assert "groove_width_mm" not in sources["tile_plain"].text  # only what a part uses


def test_the_body_uses_names_not_numbers(sources) -> None:
    body = sources["tile"].text.split("// ---- tile ----")[1]
    assert "tile_thickness_mm" in body
    assert "20" not in body
    assert "0.6" not in body


@pytest.mark.parametrize(
    ("override", "changed"),
    [
        ("tile.mark_depth_mm=1", {"tile"}),  # the groove: the plain tile and tray keep theirs
        ("tile.width_mm=22", {"tile", "tile_plain", "tray"}),  # the tray's pockets follow
        ("tray.floor_mm=2", {"tray"}),
        ("tin.inner_length_mm=90", {"tray"}),
    ],
)
def test_a_change_touches_only_the_parts_that_use_it(
    toy_kit: Kit, sources, override, changed
) -> None:
    after = emitted(toy_kit, [override])
    differ = {name for name in sources if sources[name].text != after[name].text}
    assert differ == changed


def test_quality_sets_the_facet_size(toy_kit: Kit, sources) -> None:
    final = emitted(toy_kit, ["quality=final"])
    assert "$fs = 1.0;" in sources["tile"].text  # the toy kit's default: draft
    assert "$fs = 0.3;" in final["tile"].text

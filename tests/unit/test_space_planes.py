"""The Space Planes kit without OpenSCAD: parameters and their rules, part sizes, counts,
the box layout and its refusals, and the emitted sources."""

from __future__ import annotations

import pytest

from squadron_cad.emit import emit
from squadron_cad.errors import InputError
from squadron_cad.kit import load_kit
from squadron_cad.kits.space_planes.design import SpacePlanesDesign
from squadron_cad.kits.space_planes.parts.gauge import end_points
from squadron_cad.kits.space_planes.stowing import part_bounds, units
from squadron_cad.resolve import resolve

KIT = load_kit("space-planes")


def params(*overrides: str):
    return resolve(overrides=list(overrides), kit="space-planes")


def size(p, part: str) -> tuple[float, ...]:
    low, high = part_bounds(p, part)
    return tuple(round(float(h - lo), 4) for lo, h in zip(low, high, strict=True))


def test_defaults_are_a_poker_card_and_a_16_mm_cube() -> None:
    p = params()
    assert (p.card.long_mm, p.card.short_mm) == (88.9, 63.5)
    assert p.cube.side_mm == 16
    assert p.cube.ships == 6
    assert p.card.deck_thickness_mm > 0


def test_moves_are_card_edge_minus_cube_side() -> None:
    p = params()
    assert p.long_move_mm == pytest.approx(72.9)
    assert p.short_move_mm == pytest.approx(47.5)
    assert (p.long_label, p.short_label) == ("LONG 72.9", "SHORT 47.5")
    bigger = params("cube.side_mm=20", "cube.panel_mm=10")
    assert bigger.long_move_mm == pytest.approx(68.9)
    assert end_points(88.9, 16) == (16, pytest.approx(72.9))


def test_a_bridge_card_changes_the_moves() -> None:
    p = params("card.short_mm=57")
    assert p.short_move_mm == pytest.approx(41)
    assert p.short_label == "SHORT 41.0"


@pytest.mark.parametrize(
    ("overrides", "keys"),
    [
        (["card.short_mm=95"], r"card\.short_mm.*card\.long_mm"),
        (["gauge.fence_height_mm=2.5"], r"gauge\.fence_height_mm.*gauge\.thickness_mm"),
        (["gauge.mark_depth_mm=1.5"], r"gauge\.mark_depth_mm.*gauge\.thickness_mm"),
        (["cube.panel_mm=14"], r"cube\.panel_mm.*cube\.side_mm.*cube\.corner_radius_mm"),
        (["cube.key_mm=6"], r"cube\.key_mm.*cube\.panel_mm"),
        (["cube.corner_radius_mm=2.5"], r"cube\.corner_radius_mm"),
        (["cube.side_mm=30", "cube.panel_mm=20"], r"cube\.panel_mm.*checks\.max_bridge_mm"),
        (["cube.panel_depth_mm=0.3"], r"cube\.panel_depth_mm.*checks\.min_text_depth_mm"),
        (["cube.numeral_height_mm=5"], r"cube\.numeral_height_mm.*cube\.panel_mm"),
        (["card.short_mm=35", "cube.side_mm=28"], r"card\.short_mm.*cube\.side_mm"),
        (["gauge.numeral_height_mm=12"], r"gauge\.numeral_height_mm"),
        (["holder.rim_height_mm=11"], r"holder\.rim_height_mm.*holder\.die_size_mm"),
    ],
)
def test_cross_field_rules_name_their_keys(overrides: list[str], keys: str) -> None:
    with pytest.raises(InputError, match=keys) as caught:
        params(*overrides)
    assert "\n" not in str(caught.value)


def test_an_unnumbered_cube_may_have_a_shallow_panel() -> None:
    p = params("cube.numbered=false", "cube.panel_depth_mm=0.3")
    assert p.cube.panel_depth_mm == 0.3


def test_part_sizes() -> None:
    p = params()
    assert size(p, "joker_gauge") == (88.9, 63.5, 4)
    assert size(p, "cubeship_1") == (16, 16, 16)
    assert size(p, "die_holder") == (12 + 2 * 0.3 + 2 * 1.6,) * 2 + (1.2 + 5,)
    assert size(p, "card_deck") == (88.9, 63.5, 17.5)
    assert size(p, "plane_die") == (12, 12, 12)


def test_counts_follow_the_ships() -> None:
    p = params("cube.ships=4")
    counts = {part.name: part.count(p) for part in KIT.parts}
    assert [counts[f"cubeship_{n}"] for n in range(1, 7)] == [1] * 4 + [0] * 2
    assert counts["die_holder"] == 4
    assert counts["joker_gauge"] == counts["box"] == 1


def test_purchases_are_the_deck_and_the_dice() -> None:
    bought = {item.item: item.count for item in KIT.purchases(params())}
    assert bought == {"deck of playing cards": 1, "d6": 6}


def test_the_deck_gauge_cubes_dice_and_holders_are_stowed() -> None:
    design = SpacePlanesDesign(params())
    layout = design.layout
    expected = sum(len(unit.pieces) for unit in units(design.params))
    assert len(layout.placements) == expected == 2 + 6 + 12
    assert min(layout.margins.values()) >= 0
    parts = [q.part for q in layout.placements]
    assert parts.count("card_deck") == parts.count("joker_gauge") == 1
    assert parts.count("die_holder") == parts.count("plane_die") == 6
    assert {f"cubeship_{n}" for n in range(1, 7)} <= set(parts)
    gauge = next(q for q in layout.placements if q.part == "joker_gauge")
    deck = next(q for q in layout.placements if q.part == "card_deck")
    assert gauge.bounds[0][2] == pytest.approx(deck.bounds[1][2])  # the gauge lies on the deck


def test_a_container_too_small_is_refused_with_the_shortfall() -> None:
    design = SpacePlanesDesign(params("tin.inner_length_mm=100"))
    with pytest.raises(InputError, match=r"mm more (length|width).*bigger tin"):
        _ = design.layout


def test_a_container_too_shallow_is_refused() -> None:
    design = SpacePlanesDesign(params("tin.inner_depth_mm=20"))
    with pytest.raises(InputError, match=r"too shallow"):
        _ = design.layout


def test_the_tin_presets_resolve() -> None:
    assert params().tin.name == "space-planes-box"
    custom = resolve(kit="space-planes", tin="custom")
    assert custom.tin.name == "my-box"
    assert SpacePlanesDesign(custom).layout.placements


def test_sources_keep_symbolic_names() -> None:
    design = SpacePlanesDesign(params())
    gauge = emit(KIT.part("joker_gauge"), design, KIT.credit).text
    assert "card_long_mm = 88.9;" in gauge
    assert "gauge_fence_height_mm" in gauge
    cube = emit(KIT.part("cubeship_3"), design, KIT.credit).text
    assert "cube_panel_depth_mm" in cube
    holder = emit(KIT.part("die_holder"), design, KIT.credit).text
    assert "holder_clearance_mm" in holder


def test_the_footprint_is_the_panel_with_its_key_corner_marked() -> None:
    from shapely.geometry import Polygon

    from squadron_cad.kits.space_planes.sheets import footprint, footprint_sheet

    p = params()
    drawn = footprint(p)
    outline = next(item for item in drawn.items if item.tag == "footprint-outline")
    shape = Polygon(outline.points)
    x0, y0, x1, y1 = shape.bounds
    assert (x1 - x0, y1 - y0) == (pytest.approx(10), pytest.approx(10))
    assert shape.area == pytest.approx(10 * 10 - 3 * 3 / 2)  # the cut-off key corner
    assert outline.layer == "cut"
    key = next(item for item in drawn.items if item.tag == "footprint-key")
    mark = Polygon(key.rings[0])
    assert shape.contains(mark)
    assert mark.centroid.x > 0  # in the key corner's quarter
    assert mark.centroid.y > 0
    sheet = footprint_sheet(p)
    assert sheet.pieces[0].copies == 6 * 6 + 6


def test_the_cube_side_check_reads_the_axis_farthest_from_the_nominal_side() -> None:
    """Two short axes and one right (15.85 x 15.85 x 16) is a cube 0.15 mm small, not a
    16 mm one: the worst axis is judged against the nominal side, not the mean."""
    import trimesh

    from squadron_cad.kits.space_planes.checks import cube_measure

    cube = trimesh.creation.box([15.85, 15.85, 16.0])
    cube.apply_translation(-cube.bounds[0])
    assert cube_measure(cube, 0.5, 16.0)["side_worst"] == pytest.approx(15.85)


def test_a_container_grown_by_the_refusals_figure_holds_everything() -> None:
    """At 117 mm it said '0.5 mm more length', and at 117.5 'a little more room': the
    pieces need 113.30000000000001 mm and the packer compared floats exactly."""
    import re

    with pytest.raises(InputError) as refused:
        _ = SpacePlanesDesign(params("tin.inner_length_mm=117")).layout
    more = float(re.search(r"(\d+\.\d) mm more length", str(refused.value)).group(1))
    assert SpacePlanesDesign(params(f"tin.inner_length_mm={117 + more:.1f}")).layout

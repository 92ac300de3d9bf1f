"""The Squadrons kit without OpenSCAD: parameters and their rules, part sizes, counts,
the box layout and its refusal, and the emitted sources."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Polygon

from squadron_cad.emit import emit
from squadron_cad.errors import InputError
from squadron_cad.geometry.marks import player_mark
from squadron_cad.kit import load_kit
from squadron_cad.kits.squadrons.checks import base_square, pivot_corner_gaps, pivot_overlap
from squadron_cad.kits.squadrons.design import SquadronsDesign
from squadron_cad.kits.squadrons.parts import pivot_guide
from squadron_cad.kits.squadrons.parts.rulers import gauge_word_spans
from squadron_cad.kits.squadrons.stowing import part_bounds, ship_units, table_units
from squadron_cad.outputs.plate_colours import _luminance, plate_material
from squadron_cad.outputs.plates import player_plate_name
from squadron_cad.resolve import resolve

KIT = load_kit("squadrons")


def params(*overrides: str):
    return resolve(overrides=list(overrides), kit="squadrons")


def size(design: SquadronsDesign, part: str) -> tuple[float, float, float]:
    low, high = part_bounds(design, part)
    return tuple(round(float(h - lo), 4) for lo, h in zip(low, high, strict=True))


def test_defaults_resolve_to_the_rules_choices() -> None:
    p = params()
    assert p.base.per_player == 10
    assert p.base.size_mm == 40
    assert p.objective.diameter_mm == 40
    assert (p.stat_dial.min_value, p.stat_dial.max_value) == (0, 6)
    assert tuple(p.stat_dial.labels) == ("C", "H")
    assert float(p.ruler_section_mm) == pytest.approx(4 * 25.4)


@pytest.mark.parametrize("ships", [4, 16])
def test_ships_per_player_is_five_to_fifteen(ships: int) -> None:
    with pytest.raises(InputError, match=r"base\.per_player"):
        params(f"base.per_player={ships}")


@pytest.mark.parametrize(
    ("overrides", "keys"),
    [
        (["base.socket_depth_mm=2.5"], r"base\.socket_depth_mm.*base\.thickness_mm"),
        (["base.numeral_height_mm=14"], r"base\.numeral_height_mm.*base\.size_mm"),
        (["pivot.radius_mm=43"], r"pivot\.radius_mm.*base\.size_mm.*pivot\.base_clearance_mm"),
        (["stat_dial.max_value=5"], r"stat_dial\.min_value and stat_dial\.max_value"),
        (["objective.symbol_size_mm=30"], r"objective\.symbol_size_mm.*objective\.diameter_mm"),
        (["ruler.tick_length_mm=7"], r"ruler\.tick_length_mm.*ruler\.label_tick_length_mm"),
        (["base.mark_size_mm=16"], r"base\.mark_size_mm.*base\.size_mm"),
    ],
)
def test_cross_field_rules_name_their_keys(overrides: list[str], keys: str) -> None:
    with pytest.raises(InputError, match=keys) as caught:
        params(*overrides)
    assert "\n" not in str(caught.value)


def test_part_sizes() -> None:
    design = SquadronsDesign(params())
    assert size(design, "ship_base_1") == (40, 40, 3)
    assert size(design, "range_ruler_1") == (101.6 + 5, 18, 3)  # a tab at its far end
    assert size(design, "range_ruler_4") == (101.6, 18, 3)  # the last: a slot only
    assert size(design, "movement_gauge") == (203.2, 20, 3)
    assert size(design, "objective_destroy") == (40, 40, 4)  # 3 and the raised symbol
    inner = 40 / 2**0.5 + 0.3  # half the base's diagonal and the clearance
    span = math.radians(pivot_guide.CUP_SPAN_DEG)
    guide = size(design, "pivot_guide")
    assert guide[0] == pytest.approx(60 - inner * math.cos(span), abs=1e-3)  # the cup's ends
    assert guide[1] == pytest.approx(2 * 60 * math.sin(span), abs=1e-3)  # the outer arc
    assert float(design.params.pivot_cup_radius_mm) == pytest.approx(inner)


def _outline(points: list) -> Polygon:
    return Polygon([(float(x), float(y)) for x, y in points])


def _wedge(notch: float, radius: float) -> Polygon:
    """The guide this kit once made: a wedge against the base's front edge, its long edges
    on the 45-degree rays through the base's centre."""
    arc = [
        (radius * math.cos(math.radians(a)), radius * math.sin(math.radians(a)))
        for a in (-45 + 90 * k / 36 for k in range(37))
    ]
    return Polygon([(notch, -notch), *arc, (notch, notch)])


@pytest.mark.parametrize("clearance", [0.3, 0.0, 1.0])
def test_the_pivot_guide_stays_put_while_the_base_pivots(clearance: float) -> None:
    """The base turned about its centre through the rules' 45 degrees either way never
    overlaps the guide's outline (the cup's facets stay outside its corners' circle), and
    the guide meets both front corners at the clearance, so pushing it against them sets it."""
    p = params(f"pivot.base_clearance_mm={clearance}")
    cup = _outline(pivot_guide.outline_points(p.pivot_cup_radius_mm, p.pivot.radius_mm))
    assert cup.is_valid
    assert pivot_overlap(cup, 40) < 1e-6
    assert pivot_corner_gaps(cup, 40) == pytest.approx((clearance, clearance), abs=1e-6)


def test_the_old_wedge_guide_is_in_the_way_of_the_pivot() -> None:
    """The same measure refuses the wedge this kit once made: the base overlapped it from
    the first degree of a pivot, 63.7 mm^2 at 45."""
    wedge = _wedge(40 / 2 + 0.3, 60)
    assert pivot_overlap(wedge, 40) == pytest.approx(63.7, abs=0.1)
    assert base_square(40, 1).intersection(wedge).area > 0.01


def test_bigger_bases_scale() -> None:
    design = SquadronsDesign(params("base.size_mm=50"))
    assert size(design, "ship_base_3")[:2] == (50, 50)


def test_counts_follow_ships_and_players() -> None:
    p = params("base.per_player=7", "players=3")
    counts = {part.name: part.count(p) for part in KIT.parts}
    assert [counts[f"ship_base_{n}"] for n in range(1, 16)] == [3] * 7 + [0] * 8
    assert [counts[f"tracker_card_{n}"] for n in range(1, 16)] == [3] * 7 + [0] * 8
    assert counts["tracker_clip"] == 42 + 1  # Command and Hit Points a ship, the rounds' one
    assert counts["range_ruler_1"] == counts["movement_gauge"] == 1
    assert counts["entry_marker"] == 6  # mission 1: two entry points a player
    assert counts["ship_box"] == 3
    assert counts["box"] == 1


def test_every_piece_is_stowed_in_the_box_or_a_ship_box() -> None:
    design = SquadronsDesign(params())
    table, ships = design.layout, design.ship_layout
    assert len(table.placements) == sum(len(u.pieces) for u in table_units(design))
    assert len(table.placements) == 4 + 1 + 1 + (5 + 5 + 4) + 1 + 1
    depth = design.ship_box.usable_depth
    assert len(ships.placements) == sum(len(u.pieces) for u in ship_units(design, depth))
    assert len(ships.placements) == 10 + 10 + 20 + 1 + 2
    for layout in (table, ships):
        assert min(layout.margins.values()) >= 0
    assert {p.part for p in ships.placements} >= {"ship_base_10", "tracker_card_10", "tracker_clip"}
    assert {p.part for p in table.placements} >= {"pivot_guide", "mission_tracker"}


def test_a_container_too_small_is_refused_with_the_shortfall() -> None:
    design = SquadronsDesign(params("tin.inner_length_mm=180"))
    with pytest.raises(InputError, match=r"mm more (length|width)"):
        _ = design.layout


@pytest.mark.parametrize("depth", [5, 8])
def test_a_container_too_shallow_is_refused(depth: float) -> None:
    design = SquadronsDesign(params(f"tin.inner_depth_mm={depth}"))
    with pytest.raises(InputError, match=r"too shallow|no wall for the lid to stand on"):
        _ = design.layout


def test_sources_keep_symbolic_names() -> None:
    design = SquadronsDesign(params())
    source = emit(KIT.part("ship_base_1"), design, KIT.credit).text
    assert "base_size_mm = 40;" in source
    ruler = emit(KIT.part("range_ruler_2"), design, KIT.credit).text
    assert "ruler_joint_clearance_mm" in ruler


def test_each_gauge_word_is_centred_on_the_tick_it_names() -> None:
    """ADV/EVA under the 2" tick (Advance and Evasion are 2" moves), BOOST +3 under the
    3" tick ("+3": Boost's up to 3" more); they were at 1" and 4.5", off their ticks. Each
    on a line of its own: wider than the inch between the ticks at 4.2 mm."""
    p = params()
    spans = gauge_word_spans(p)
    assert [(word, round(tick, 1)) for word, tick, _x0, _x1 in spans] == [
        ("ADV/EVA", 50.8),
        ("BOOST +3", 76.2),
    ]
    for _word, tick, x0, x1 in spans:
        assert x0 < tick < x1
        assert (x0 + x1) / 2 == pytest.approx(tick, abs=1e-9)
    lines = [p.words_line_y(k) for k in range(2)]
    assert lines[1] - lines[0] >= p.gauge.word_height_mm + 0.8  # two lines, apart


def test_the_rear_zone_leaves_room_for_the_bar_under_6_and_9() -> None:
    for ships in (5, 6, 9, 10, 15):
        p = params(f"base.per_player={ships}")
        low, high = p._numeral_span()
        assert float(low) <= float(p.numeral_centre_mm) <= float(high)


def _contrast(first: str, second: str) -> float:
    dark, light = sorted((_luminance(first), _luminance(second)))
    return (light + 0.05) / (dark + 0.05)


def test_the_two_players_differ_in_lightness_and_in_mark() -> None:
    """Two squadrons: the default colours apart in luminance (WCAG contrast >= 3:1; the old
    red and blue were 1.03:1, one grey), and the two players' marks different shapes."""
    p = params()
    first, second = (plate_material(player_plate_name(k, p), p)[1] for k in range(2))
    assert _contrast("#c0392b", "#2471a3") < 1.1  # the old default pair
    assert _contrast(first, second) >= 3.0
    assert player_mark(p, 0) != player_mark(p, 1)


def test_gauge_words_that_would_run_into_the_numerals_are_refused_with_the_most_that_fits() -> None:
    """Two lines of words and the numerals over them must fit the gauge's width."""
    with pytest.raises(
        InputError, match=r"gauge\.word_height_mm \(5\.0\) runs .*; at most (\d\.\d)"
    ):
        params("gauge.word_height_mm=5")
    try:
        params("gauge.word_height_mm=5")
    except InputError as refused:
        most = str(refused).rsplit("at most ", 1)[1]
    assert params(f"gauge.word_height_mm={most}").gauge.word_height_mm == float(most)
    with pytest.raises(InputError):
        params(f"gauge.word_height_mm={float(most) + 0.1:g}")


@pytest.mark.parametrize(
    "settings", [["pivot.numeral_height_mm=8"], ["base.size_mm=50"], ["pivot.radius_mm=46"]]
)
def test_the_pivot_guides_180_fits_its_band(settings: list[str]) -> None:
    """At numeral height 8, or a 45 mm radius, the '180' ran off the guide's rim (only '1'
    showed): it now shrinks to the band, and a band too narrow even then is refused."""
    p = params(*settings)
    band = p.pivot.radius_mm - float(p.pivot_cup_radius_mm)
    assert p._advance_reach_mm(p.advance_numeral_height_mm) <= band
    assert p.advance_numeral_height_mm <= p.pivot.numeral_height_mm


def test_a_pivot_guide_too_narrow_even_for_a_small_180_is_refused() -> None:
    with pytest.raises(InputError, match=r"to hold the U-turn and a 2\.5 mm 180: at least 45\.4"):
        params("pivot.radius_mm=45")


def test_the_pivot_guides_least_radius_is_rounded_up_so_it_is_accepted() -> None:
    """'at least 45.3' was refused again at 45.3 (45.36 rounded to nearest)."""
    try:
        params("pivot.radius_mm=40")
    except InputError as refused:
        least = str(refused).rsplit("at least ", 1)[1]
    assert params(f"pivot.radius_mm={least}").pivot.radius_mm == float(least)

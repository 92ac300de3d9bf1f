"""The Space Planes kit without OpenSCAD: parameters and their rules, the cubes shared among
2-6 players, part sizes, the footprint recess and its sheet, the sleeved deck, the box
layout and its refusals, and the emitted sources."""

from __future__ import annotations

import math
import re

import pytest
from shapely.geometry import Point, Polygon

from squadron_cad.cli import main
from squadron_cad.emit import emit
from squadron_cad.errors import InputError
from squadron_cad.geometry.marks import player_mark
from squadron_cad.kit import load_kit
from squadron_cad.kits.space_planes.design import SpacePlanesDesign
from squadron_cad.kits.space_planes.parts.cubeship import mark_outline
from squadron_cad.kits.space_planes.parts.gauge import end_points
from squadron_cad.kits.space_planes.stowing import part_bounds, units
from squadron_cad.outputs.plates import plate_groups
from squadron_cad.resolve import resolve

KIT = load_kit("space-planes")
RULES_CUBES = 6  # "up to six cubes", shared evenly among the players


def params(*overrides: str):
    return resolve(overrides=list(overrides), kit="space-planes")


def size(p, part: str) -> tuple[float, ...]:
    low, high = part_bounds(p, part)
    return tuple(round(float(h - lo), 4) for lo, h in zip(low, high, strict=True))


def test_defaults_are_a_poker_card_a_16_mm_cube_and_two_players() -> None:
    p = params()
    assert (p.card.long_mm, p.card.short_mm) == (88.9, 63.5)
    assert p.cube.side_mm == 16
    assert p.players == 2
    assert p.card.deck_thickness_mm > 0
    assert not p.card.sleeved


def test_moves_are_card_edge_minus_cube_side() -> None:
    p = params()
    assert p.long_move_mm == pytest.approx(72.9)
    assert p.short_move_mm == pytest.approx(47.5)
    assert (p.long_label, p.short_label) == ("LONG 72.9", "SHORT 47.5")
    bigger = params("cube.side_mm=20", "checks.max_bridge_mm=18")
    assert bigger.long_move_mm == pytest.approx(68.9)
    assert end_points(88.9, 16) == (16, pytest.approx(72.9))


def test_a_bridge_card_changes_the_moves() -> None:
    p = params("card.short_mm=57")
    assert p.short_move_mm == pytest.approx(41)
    assert p.short_label == "SHORT 41.0"


# ---- the cubes among the players -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_six_cubes_are_shared_evenly(players: int) -> None:
    """Six cubes for every player count once: 4 or 5 players cannot share six evenly."""
    p = params(f"players={players}")
    each = math.floor(RULES_CUBES / players)
    counts = {part.name: part.count(p) for part in KIT.parts}
    assert counts["cubeship"] == players * each
    assert counts["die_holder"] == players * each  # a plane die and its holder per cube
    assert counts["joker_gauge"] == counts["box"] == counts["box_lid"] == 1
    bought = {item.item: item.count for item in KIT.purchases(p)}
    assert bought == {"deck of playing cards": 1, "d6": players * each}
    plates = plate_groups(p, counts)
    shares = [
        dict(wanted).get("cubeship", 0) for name, wanted in plates.items() if name != "shared"
    ]
    assert shares == [each] * players  # each player's cubes on their own plate
    layout = SpacePlanesDesign(p).layout
    owners = [q.name.split("_")[0] for q in layout.placements if q.part == "cubeship"]
    assert sorted(owners) == sorted(f"player{n + 1}" for n in range(players) for _ in range(each))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_no_pocket_has_an_empty_place_to_slide_into(players: int) -> None:
    """Five cubes in a 3 x 2 grid's pocket left a cube's place empty: a cube slid 16.3 mm in
    the closed box. Each pocket's pieces now cover its floor (less the clearance)."""
    p = params(f"players={players}")
    layout = SpacePlanesDesign(p).layout
    for pocket in layout.pockets:
        lowest = [q for q in layout.placements if q.unit == pocket.name]
        bottom = min(q.bounds[0][2] for q in lowest)
        floor = [Polygon.from_bounds(*q.bounds[0][:2], *q.bounds[1][:2]) for q in lowest
                 if q.bounds[0][2] <= bottom + 1e-6]  # fmt: skip
        covered = sum(shape.area for shape in floor)
        width, length = pocket.size
        inside = (width - 2 * p.box.pocket_clearance_mm) * (length - 2 * p.box.pocket_clearance_mm)
        assert covered == pytest.approx(inside, rel=1e-6), pocket.name


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_each_players_cubes_carry_their_mark(players: int) -> None:
    p = params(f"players={players}")
    cube = KIT.part("cubeship")
    variants = cube.player_variants(players)
    assert [v.name for v in variants] == [f"cubeship.p{n + 1}" for n in range(players)]
    assert cube.colour == "player"
    marks = [player_mark(p, n) for n in range(players)]
    assert len(set(marks)) == players
    design = SpacePlanesDesign(p)
    sources = {emit(v, design, KIT.credit).text for v in variants}
    assert len(sources) == players  # each player's cube differs (its mark)
    outlines = [Polygon(mark_outline(p, n)[0]) for n in range(players)]
    top = p.cube.side_mm
    for outline in outlines:  # the marks' volume: in the key corner, from the recess floor
        assert outline.centroid.x > top / 2
        assert outline.centroid.y > top / 2
    assert cube.accent_from_mm(p) == pytest.approx(top - p.cube.recess_depth_mm)


@pytest.mark.parametrize("players", [1, 7, 8])
def test_a_player_count_outside_two_to_six_is_refused(players: int, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["fit", "--kit", "space-planes", "--set", f"players={players}"])
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "players" in err[0]


# ---- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "keys"),
    [
        (["card.short_mm=95"], r"card\.short_mm.*card\.long_mm"),
        (["card.sleeve_short_mm=60"], r"card\.sleeve_long_mm x card\.sleeve_short_mm"),
        (["gauge.fence_height_mm=2.5"], r"gauge\.fence_height_mm.*gauge\.thickness_mm"),
        (["gauge.mark_depth_mm=1.5"], r"gauge\.mark_depth_mm.*gauge\.thickness_mm"),
        (["cube.mark_mm=4"], r"cube\.mark_mm.*cube\.side_mm.*cube\.rim_mm"),
        (["cube.corner_radius_mm=2.5"], r"cube\.corner_radius_mm"),
        (["cube.side_mm=20"], r"footprint recess.*checks\.max_bridge_mm"),
        (["card.short_mm=35", "cube.side_mm=28"], r"card\.short_mm.*cube\.side_mm"),
        (["gauge.numeral_height_mm=12"], r"gauge\.numeral_height_mm"),
        (["holder.rim_height_mm=11"], r"holder\.rim_height_mm.*holder\.die_size_mm"),
    ],
)
def test_cross_field_rules_name_their_keys(overrides: list[str], keys: str) -> None:
    with pytest.raises(InputError, match=keys) as caught:
        params(*overrides)
    assert "\n" not in str(caught.value)


def test_a_thin_mark_asks_for_a_bigger_mark() -> None:
    colours = '[{"name": "a", "colour": "red", "mark": "ring"}, {"name": "b", "colour": "blue"}]'
    with pytest.raises(InputError, match=r"mark ring.*cube\.mark_mm 3\.\d or more"):
        params(f"player_colours={colours}")


def test_part_sizes() -> None:
    p = params()
    assert size(p, "joker_gauge") == (88.9, 63.5, 4)
    assert size(p, "cubeship") == (16, 16, 16)
    assert size(p, "die_holder") == (12 + 2 * 0.3 + 2 * 1.6,) * 2 + (1.2 + 5,)
    assert size(p, "card_deck") == (88.9, 63.5, 17.5)
    assert size(p, "plane_die") == (12, 12, 12)


# ---- the footprint ---------------------------------------------------------------------------


def test_the_footprint_covers_the_face_but_its_rounded_edge_and_rim() -> None:
    """The kit engraved a 10 mm panel on a 16 mm face: 39 % of it, a 3 mm border."""
    c = params().cube
    assert c.footprint_mm == pytest.approx(c.side_mm - 2 * (c.corner_radius_mm + c.rim_mm))
    flat = c.side_mm - 2 * c.corner_radius_mm
    assert (c.footprint_mm / c.side_mm) ** 2 > 0.7
    assert (flat - c.footprint_mm) / 2 == pytest.approx(c.rim_mm)


def test_the_footprint_sheet_draws_the_recess_with_its_cut_key_corner() -> None:
    from squadron_cad.kits.space_planes.sheets import FACES, SPARE, footprint, footprint_sheet

    p = params()
    c = p.cube
    drawn = footprint(p)
    outline = next(item for item in drawn.items if item.tag == "footprint-outline")
    shape = Polygon(outline.points)
    x0, y0, x1, y1 = shape.bounds
    assert (x1 - x0, y1 - y0) == (pytest.approx(c.footprint_mm), pytest.approx(c.footprint_mm))
    assert shape.area == pytest.approx(c.footprint_mm**2 - c.key_cut_mm**2 / 2)
    assert outline.layer == "cut"
    key = next(item for item in drawn.items if item.tag == "footprint-key")
    mark = Polygon(key.rings[0])
    assert shape.contains(mark)
    assert mark.centroid.x > 0  # in the key corner's quarter
    assert mark.centroid.y > 0
    assert footprint_sheet(p).pieces[0].copies == FACES * p.ships + SPARE


def test_the_footprints_cut_corner_clears_the_key() -> None:
    """The key (a circle of cube.mark_mm round the mark or the square) stands in the
    recess's corner that the footprint leaves bare, the paper gap away from its cut."""
    from squadron_cad.kits.space_planes.params import KEY_GAP_MM, PAPER_GAP_MM
    from squadron_cad.kits.space_planes.parts.cubeship import footprint_points, key_offset

    c = params().cube
    paper = Polygon(footprint_points(c.footprint_mm, c.key_cut_mm))
    at = key_offset(c)
    key = Point(at, at).buffer(c.mark_mm / 2, 64)
    assert paper.distance(key) == pytest.approx(PAPER_GAP_MM, abs=0.01)
    half = c.footprint_mm / 2
    assert half - (at + c.mark_mm / 2) == pytest.approx(KEY_GAP_MM)


# ---- the deck and the box ----------------------------------------------------------------


def test_the_deck_gauge_cubes_dice_and_holders_are_stowed() -> None:
    design = SpacePlanesDesign(params())
    layout = design.layout
    expected = sum(len(unit.pieces) for unit in units(design.params))
    assert len(layout.placements) == expected == 2 + 6 + 12
    assert min(layout.margins.values()) >= 0
    parts = [q.part for q in layout.placements]
    assert parts.count("card_deck") == parts.count("joker_gauge") == 1
    assert parts.count("die_holder") == parts.count("plane_die") == parts.count("cubeship") == 6
    gauge = next(q for q in layout.placements if q.part == "joker_gauge")
    deck = next(q for q in layout.placements if q.part == "card_deck")
    assert gauge.bounds[0][2] == pytest.approx(deck.bounds[1][2])  # the gauge lies on the deck
    assert layout.lid_part == "box_lid"


SLEEVED = ["card.sleeved=true", "tin.inner_length_mm=190", "tin.inner_depth_mm=30"]


def test_a_sleeved_deck_is_stowed_at_its_sleeves_size_the_gauge_beside_it() -> None:
    p = params(*SLEEVED)
    c = p.card
    assert c.stowed_size_mm == (91, 66, pytest.approx(17.5 + 54 * 0.1))
    layout = SpacePlanesDesign(p).layout
    deck = next(q for q in layout.placements if q.part == "card_deck")
    gauge = next(q for q in layout.placements if q.part == "joker_gauge")
    (dx0, dy0, dz0), (dx1, dy1, dz1) = deck.bounds
    assert sorted([dx1 - dx0, dy1 - dy0]) == [pytest.approx(66), pytest.approx(91)]
    assert dz1 - dz0 == pytest.approx(17.5 + 5.4)
    assert gauge.unit != deck.unit  # a pocket of its own: the smaller gauge cannot slide
    pocket = next(q for q in layout.pockets if q.name == deck.unit)
    clearance = p.box.pocket_clearance_mm
    assert sorted(pocket.size) == [
        pytest.approx(66 + 2 * clearance),
        pytest.approx(91 + 2 * clearance),
    ]
    bought = {item.item: item.count for item in KIT.purchases(p)}
    assert bought["card sleeves"] == 54


def test_a_sleeved_deck_in_the_default_tin_is_refused_naming_what_to_change() -> None:
    """5.4 mm of sleeves on 54 cards: the default tin is too shallow, then too small."""
    with pytest.raises(InputError, match=r"too shallow for its tallest piece, deck.*depth_mm"):
        _ = SpacePlanesDesign(params("card.sleeved=true")).layout
    with pytest.raises(InputError, match=r"mm more (length|width).*bigger tin"):
        _ = SpacePlanesDesign(params("card.sleeved=true", "tin.inner_depth_mm=30")).layout


def test_a_container_too_small_is_refused_with_the_shortfall() -> None:
    design = SpacePlanesDesign(params("tin.inner_length_mm=100"))
    with pytest.raises(InputError, match=r"mm more (length|width).*bigger tin"):
        _ = design.layout


def test_a_container_too_shallow_for_box_and_lid_names_the_depth_to_set() -> None:
    with pytest.raises(InputError, match=r"too shallow.*tin\.inner_depth_mm (\d+\.\d)") as refused:
        _ = SpacePlanesDesign(params("tin.inner_depth_mm=20")).layout
    depth = re.search(r"tin\.inner_depth_mm (\d+\.\d)", str(refused.value)).group(1)
    assert SpacePlanesDesign(params(f"tin.inner_depth_mm={depth}")).layout.margins["z"] >= 0


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
    cube = emit(KIT.part("cubeship"), design, KIT.credit).text
    assert "cube_recess_depth_mm" in cube
    holder = emit(KIT.part("die_holder"), design, KIT.credit).text
    assert "holder_clearance_mm" in holder


def test_the_cube_side_check_reads_the_axis_farthest_from_the_nominal_side() -> None:
    """Two short axes and one right (15.85 x 15.85 x 16) is a cube 0.15 mm small, not a
    16 mm one: the worst axis is judged against the nominal side, not the mean."""
    import trimesh

    from squadron_cad.kits.space_planes.checks import cube_measure

    cube = trimesh.creation.box([15.85, 15.85, 16.0])
    cube.apply_translation(-cube.bounds[0])
    assert cube_measure(cube, params().cube)["side_worst"] == pytest.approx(15.85)


def test_a_container_grown_by_the_refusals_figure_holds_everything() -> None:
    """At 117 mm it said '0.5 mm more length', and at 117.5 'a little more room': the
    pieces need 113.30000000000001 mm and the packer compared floats exactly."""
    with pytest.raises(InputError) as refused:
        _ = SpacePlanesDesign(params("tin.inner_length_mm=117")).layout
    more = float(re.search(r"(\d+\.\d) mm more length", str(refused.value)).group(1))
    assert SpacePlanesDesign(params(f"tin.inner_length_mm={117 + more:.1f}")).layout

"""The tin-fit solver without OpenSCAD: every preset packs, pockets stay inside the box and
apart, the box fits its tin, refusals name a piece and a figure, and random tins never
produce overlapping or escaping pieces."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from squadron_cad.errors import InputError
from squadron_cad.fit import notches
from squadron_cad.fit.layout import Layout, Placement
from squadron_cad.fit.layout_io import layout_json, rounded_rect_points
from squadron_cad.kit import design_of
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry.lid import title_lines
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import registry
from squadron_cad.kits.squadron_leader.stowing import items
from squadron_cad.kits.squadron_leader.stowing.solver import box_shape
from squadron_cad.kits.squadron_leader.stowing.tin_fit import solve
from squadron_cad.pipeline.rendering import emit_sources
from squadron_cad.resolve import available_tins, resolve

EPS = 1e-6
REFUSAL = re.compile(
    r"^the tin is too small: (?:the|a|even a) .+ needs? \d+\.\d mm more [a-z0-9. ]+"
    r" \(tin\.\w+ [\d.]+[^;]*; try .+$"
)


@pytest.fixture(scope="module")
def default_kit() -> SquadronLeaderParams:
    return resolve()


def _tin(
    length: float, width: float, depth: float, radius: float, players: int = 2
) -> SquadronLeaderParams:
    return resolve(
        overrides=[
            f"tin.inner_length_mm={length}",
            f"tin.inner_width_mm={width}",
            f"tin.inner_depth_mm={depth}",
            f"tin.corner_radius_mm={radius}",
            f"players={players}",
        ]
    )


# ---- helpers: independent geometry checks ----


def _inner_outline(layout: Layout) -> Polygon:
    b = layout.box
    return Polygon(rounded_rect_points(b.inner_length, b.inner_width, b.inner_radius, steps=90))


def _footprint(part: str, bounds: tuple) -> Polygon:
    (x0, y0, _), (x1, y1, _) = bounds
    if part in ("plane_token", "altitude_token"):
        half = (x1 - x0) / 2
        corner = half / math.cos(math.radians(22.5))
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        return Polygon(
            [
                (centre[0] + corner * math.cos(a), centre[1] + corner * math.sin(a))
                for a in np.radians(22.5 + 45 * np.arange(8))
            ]
        )
    return Polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def _units(layout: Layout) -> dict[str, tuple]:
    return {placed.unit: placed.unit_bounds for placed in layout.placements}


def _overlap(a: tuple, b: tuple) -> float:
    """Volume shared by two boxes (0 when they only touch)."""
    sides = [min(a[1][k], b[1][k]) - max(a[0][k], b[0][k]) for k in range(3)]
    return math.prod(max(side, 0.0) for side in sides)


def assert_sound(layout: Layout, p: SquadronLeaderParams) -> None:
    """Everything the layout promises, checked from its own outputs."""
    b = layout.box
    inner = _inner_outline(layout)
    # The box and its clearance inside the tin (rounded corners included).
    assert b.length + 2 * p.box.tin_clearance_mm <= p.tin.inner_length_mm + EPS
    assert b.width + 2 * p.box.tin_clearance_mm <= p.tin.inner_width_mm + EPS
    assert b.height + p.box.tin_clearance_mm <= p.tin.inner_depth_mm + EPS
    tin = Polygon(
        rounded_rect_points(
            p.tin.inner_length_mm, p.tin.inner_width_mm, p.tin.corner_radius_mm, steps=90
        )
    )
    grown = Polygon(rounded_rect_points(b.length, b.width, b.radius, steps=90)).buffer(
        p.box.tin_clearance_mm - 0.01
    )
    assert tin.buffer(0.01).contains(grown)
    # Pockets inside the inner outline; standing pockets apart by a divider.
    for pocket in layout.pockets:
        assert inner.buffer(1e-3).contains(Polygon(pocket.points)), pocket.name
    # A shelf (its bottom above the floor: the dials over the stacks) lies over pockets.
    standing = [
        Polygon(q.points) for q in layout.pockets if q.kind != "outline" and q.levels[0] == "floor"
    ]
    for first, second in combinations(standing, 2):
        assert first.distance(second) >= p.box.divider_mm - 1e-3
    # Each stowed unit: apart from the others, inside the inner outline, under the lid.
    # Where two units' envelopes meet (a piece lifted beside the template, a dial's clip
    # over a divider beside a token), their pieces themselves must not: footprints (the
    # template's outline, a token's octagon) and heights.
    units = _units(layout)
    for (name_a, a), (name_b, b_) in combinations(units.items(), 2):
        if _overlap(a, b_) <= 1e-6:
            continue
        for first in (q for q in layout.placements if q.unit == name_a):
            for second in (q for q in layout.placements if q.unit == name_b):
                rise = min(first.bounds[1][2], second.bounds[1][2]) - max(
                    first.bounds[0][2], second.bounds[0][2]
                )
                shared = _piece_footprint(p, first).intersection(_piece_footprint(p, second))
                assert shared.area * max(rise, 0.0) <= 1e-6, (first.name, second.name)
    for placed in layout.placements:
        if placed.part != "template_all":  # not a rectangle: its outline pocket is checked
            footprint = _footprint(placed.part, placed.bounds)
            assert inner.buffer(1e-3).contains(footprint), placed.name
        assert placed.bounds[0][2] >= b.floor - EPS, placed.name
        assert placed.bounds[1][2] <= b.ceiling + EPS, placed.name
    for placed in layout.placements:
        if placed.part == "template_all":  # the template lies inside its own recess
            recess = next(q for q in layout.pockets if q.name == "template_all")
            assert Polygon(recess.points).buffer(1e-3).contains(_moved_outline(p, placed))
    assert layout.smallest_margin >= -EPS


def _piece_footprint(p: SquadronLeaderParams, placed: Placement) -> Polygon:
    if placed.part == "template_all":
        return _moved_outline(p, placed)
    return _footprint(placed.part, placed.bounds)


def _moved_outline(p: SquadronLeaderParams, placed: Placement) -> Polygon:
    outline = np.array(items.template_outline(p).exterior.coords)
    matrix = np.asarray(placed.transform)
    return Polygon(outline @ matrix[:2, :2].T + matrix[:2, 3])


def _count(layout: Layout, part: str) -> int:
    return sum(placed.part == part for placed in layout.placements)


# ---- the default tin and the presets ----


def test_default_tin_holds_the_whole_kit(default_kit: SquadronLeaderParams) -> None:
    layout = solve(default_kit)
    assert_sound(layout, default_kit)
    players = default_kit.players
    assert _count(layout, "plane_token") == players
    assert _count(layout, "altitude_token") == constants.ALTITUDE_TOKENS_PER_STACK * players
    assert _count(layout, "stat_dial_card") == players
    assert _count(layout, "stat_dial_clip") == len(default_kit.stat_dial.labels) * players
    assert _count(layout, "die") == default_kit.dice.count
    assert _count(layout, "template_all") == 1
    assert {q.part for q in layout.placements} >= {f"range_ruler_{i}" for i in (1, 2, 3)}


def test_default_box_is_sized_from_the_tin(default_kit: SquadronLeaderParams) -> None:
    b = solve(default_kit).box
    assert (b.length, b.width) == pytest.approx((107.0, 82.0))
    assert b.height == pytest.approx(24.9)
    assert b.radius == pytest.approx(5.5)
    p = default_kit.box
    assert b.usable_depth == pytest.approx(24.9 - p.floor_mm - p.lid_thickness_mm - p.headroom_mm)


@pytest.mark.parametrize("tin", available_tins())
def test_every_preset_solves(tin: str) -> None:
    p = resolve(tin=tin)
    layout = solve(p)
    assert_sound(layout, p)
    left_out = set(p.box.leave_out)
    assert ("template_all" in {q.part for q in layout.placements}) == ("template" not in left_out)
    assert _count(layout, "plane_token") == p.players


def test_presets_say_where_their_numbers_come_from() -> None:
    for tin in available_tins():
        p = resolve(tin=tin)
        assert p.tin.name == tin or tin == "custom"
        assert p.tin.source.strip()


def test_the_solver_is_deterministic_and_the_design_solves_once(
    default_kit: SquadronLeaderParams,
) -> None:
    first = solve(default_kit)
    second = solve(default_kit.model_copy())
    assert layout_json(first, default_kit) == layout_json(second, default_kit)
    design = design_of(default_kit)
    assert design.layout is design.layout  # computed once per design, no global memo


def test_several_strategies_are_tried() -> None:
    """A shallow tin lies the template on top of split stacks; a deep one stands them."""
    shallow = solve(_tin(108, 83, 25.4, 6))
    deep = solve(_tin(150, 100, 40, 6))
    assert shallow.on_top is not None
    assert "split" in shallow.strategy
    assert "stacks whole" in deep.strategy


def test_margins_and_limit_are_reported(default_kit: SquadronLeaderParams) -> None:
    layout = solve(default_kit)
    assert set(layout.margins) == {"x", "y", "z", "corner"}
    assert layout.limited_by in layout.margins
    assert min(layout.margins["x"], layout.margins["y"], layout.margins["z"]) >= 0


# ---- refusals ----


@pytest.mark.parametrize(
    ("tin", "word"),
    [
        ((70, 60, 25, 5, 2), "length|width"),  # too small a floor
        ((90, 56, 17, 13, 1), "width"),  # an Altoids tin with the template
        ((115, 80, 24, 8, 4), "length|width"),  # four players
    ],
)
def test_a_tin_too_small_is_refused_in_one_line(tin: tuple, word: str) -> None:
    with pytest.raises(InputError) as caught:
        solve(_tin(*tin))
    message = str(caught.value)
    assert "\n" not in message
    assert REFUSAL.match(message), message
    assert re.search(rf"mm more ({word})", message), message
    assert re.search(r"\d+\.\d mm", message)


def test_the_altoids_template_shortfall_is_named() -> None:
    # 1.x mm: the box's wall is 1.8 (the lid's lip laps its tongue), 0.4 mm more than it was
    with pytest.raises(InputError, match=r"the move template needs 1\.\d mm more width"):
        solve(resolve(tin="altoids", overrides=["box.leave_out=[]"]))


def test_a_title_too_long_for_the_lid_is_refused() -> None:
    p = resolve(overrides=["box.title=SQUADRON LEADER SQUADRON LEADER", "box.title_height_mm=12"])
    with pytest.raises(InputError, match=r"box\.title_height_mm"):
        _ = design_of(p).layout


def test_a_long_title_takes_two_lines_on_a_small_lid() -> None:
    assert title_lines(resolve(tin="altoids")) == ("SQUADRON", "LEADER")
    assert title_lines(resolve()) == ("SQUADRON LEADER",)


# ---- the contents ----


def test_a_whole_stack_is_as_tall_as_the_rules_say(default_kit: SquadronLeaderParams) -> None:
    tokens = constants.ALTITUDE_TOKENS_PER_STACK + 1
    assert items.column_height(default_kit, tokens, True) == pytest.approx(
        float(default_kit.stack_height_mm)
    )
    (column,) = items.stack_columns(default_kit, 1, (tokens,))
    tops = [items.frames.transform_bounds(q.transform, q.bounds)[1][2] for q in column.pieces]
    assert max(tops) == pytest.approx(21.0)  # a plane on 4 altitude tokens stands 21 high


def test_split_stacks_keep_the_plane_on_top() -> None:
    p = resolve()
    splits = items.stack_splits(p, 13.0)
    assert splits[0] == (3, 2)  # plane + 2 altitude tokens (13), then 2 altitude tokens (9.5)
    columns = items.stack_columns(p, 1, (3, 2))
    assert [q.part for q in columns[0].pieces][-1] == "plane_token"
    assert sum(len(c.pieces) for c in columns) == 5


def test_a_dial_carries_its_clips(default_kit: SquadronLeaderParams) -> None:
    dial = items.dial(default_kit, 1)
    assert len(dial.pieces) == 1 + len(default_kit.stat_dial.labels)
    d = default_kit.stat_dial
    # A jaw and the running clearance on each face of the card (issue 19: the top jaw
    # clears the card too).
    clipped = d.card_thickness_mm + 2 * (d.clip_jaw_thickness_mm + d.clip_clearance_mm)
    assert dial.size[2] == pytest.approx(clipped)  # the card with its clips on, lying flat
    for piece in dial.pieces:
        (low, high) = piece.unit_bounds
        assert min(low) >= -EPS
        assert all(h <= s + EPS for h, s in zip(high, dial.size, strict=True))


def test_the_template_is_52_by_78(default_kit: SquadronLeaderParams) -> None:
    (x0, y0, _), (x1, y1, _) = items.part_bounds(default_kit, "template_all")
    assert (x1 - x0, y1 - y0) == pytest.approx((78, 52), abs=0.05)


# ---- layout.json ----


def test_layout_json_has_the_agreed_shape(default_kit: SquadronLeaderParams) -> None:
    data = layout_json(solve(default_kit), default_kit)
    assert list(data) == [
        "tin",
        "box",
        "lid",
        "strategy",
        "margins_mm",
        "limited_by",
        "contents",
    ]
    assert set(data["tin"]) == {
        "inner_length_mm",
        "inner_width_mm",
        "inner_depth_mm",
        "corner_radius_mm",
        "clearance_mm",
    }
    assert data["box"]["stl"] == "stl/box.stl"
    assert data["lid"]["stl"] == "stl/box_lid.stl"
    for entry in [data["box"], data["lid"], *data["contents"]]:
        matrix = np.array(entry["transform"], dtype=float)
        assert matrix.shape == (4, 4)
        assert np.allclose(matrix[3], [0, 0, 0, 1])
        assert np.allclose(matrix[:3, :3] @ matrix[:3, :3].T, np.eye(3))
        assert np.linalg.det(matrix[:3, :3]) == pytest.approx(1.0)
    contents = data["contents"]
    assert all(set(entry) - {"on_top"} == {"name", "stl", "transform"} for entry in contents)
    assert [entry["stl"] for entry in contents if entry.get("on_top")] == ["stl/template_all.stl"]
    assert len({entry["name"] for entry in contents}) == len(contents)
    assert {entry["stl"] for entry in contents} == {
        "stl/plane_token.stl",
        "stl/altitude_token.stl",
        "stl/stat_dial_card.stl",
        "stl/stat_dial_clip.stl",
        "stl/range_ruler_1.stl",
        "stl/range_ruler_2.stl",
        "stl/range_ruler_3.stl",
        "stl/template_all.stl",
        "layout/die.stl",
    }
    assert "player1_plane_token" in {entry["name"] for entry in contents}


# ---- the box's source ----


@pytest.mark.parametrize("tin", ["squadron-leader", "altoids"])
def test_box_and_lid_emit(tin: str) -> None:
    p = resolve(tin=tin)
    source = emit_sources(design_of(p), [registry.part("box")])["box"].text
    assert "tin_inner_length_mm = " in source
    assert "octagon(" in source
    lid = emit_sources(design_of(p), [registry.part("box_lid")])["box_lid"].text
    assert "box_lid_thickness_mm" in lid


# ---- random tins ----


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    length=st.floats(40, 200),
    width=st.floats(40, 150),
    depth=st.floats(10, 60),
    radius_share=st.floats(0, 1),
    players=st.integers(1, 4),
)
def test_random_tins_never_overlap_or_escape(
    length: float, width: float, depth: float, radius_share: float, players: int
) -> None:
    radius = round(radius_share * min(length, width) / 2, 3)
    try:
        p = _tin(round(length, 3), round(width, 3), round(depth, 3), radius, players)
    except InputError:
        return  # the parameters' own rules refuse it (e.g. smaller than one token)
    try:
        layout = solve(p)
    except InputError as error:
        message = str(error)
        assert "\n" not in message
        # a figure in mm, a title too long, or the corner radius that fits (63 x 91, r31.5)
        assert re.search(r"\d+\.\d mm|box\.title|corner_radius_mm [\d.]+ or less", message)
        return
    assert_sound(layout, p)
    assert box_shape(p).length == pytest.approx(layout.box.length)


@dataclass(frozen=True)
class _SquarePocket:
    name: str
    points: np.ndarray
    z_bottom: float = 1.0
    z_top: float = 20.0
    item_top: float = 10.0  # under the brim: it needs a notch


def _square(name: str, x0: float, y0: float, x1: float, y1: float, **z: float) -> _SquarePocket:
    return _SquarePocket(name, np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]), **z)


def test_a_notch_leaves_no_sliver_beside_a_pocket_it_does_not_serve() -> None:
    """Two pockets side by side, and a third cut whose edge ends 0.05 mm past the notch."""
    left, right = _square("left", -30, -10, -0.6, 10), _square("right", 0.6, -10, 30, 10)
    plain = notches.finger_notches([left, right], divider=1.2, floor=1.2)
    assert [n.radius for n in plain] == [notches.NOTCH_RADIUS_MM]
    edge = plain[0].centre[1] + plain[0].radius + 0.05
    recess = _square("recess", -5, edge, 5, 40, z_bottom=15.0)
    (narrowed,) = notches.finger_notches([left, right, recess], divider=1.2, floor=1.2)
    wall = edge - (narrowed.centre[1] + narrowed.radius)
    assert wall == pytest.approx(notches.WALL_KEEP_MM)


@pytest.mark.parametrize(("tin", "players"), [("v2-box", 4), ("altoids", 2)])
def test_a_refusal_suggests_a_player_count_that_fits(tin: str, players: int) -> None:
    """'try players: N' names the most players this tin holds, not simply one fewer."""
    with pytest.raises(InputError) as refused:
        solve(resolve(tin=tin, overrides=[f"players={players}"]))
    suggested = re.search(r"players: (\d+)", str(refused.value))
    assert suggested is not None, str(refused.value)
    fewer = int(suggested.group(1))
    solve(resolve(tin=tin, overrides=[f"players={fewer}"]))  # fits
    for more in range(fewer + 1, players):
        with pytest.raises(InputError):
            solve(resolve(tin=tin, overrides=[f"players={more}"]))


def test_a_shallow_tin_is_told_how_much_deeper_it_must_be() -> None:
    """At 19 mm deep the tokens stand in more, shorter stacks and the refusal asked for 5 mm
    more width: a maker went looking for a wider tin when 0.9 mm of depth was missing."""
    shallow = resolve(overrides=["tin.inner_depth_mm=19"])
    with pytest.raises(InputError) as refused:
        solve(shallow)
    found = re.search(r"everything fits in a tin (\d+\.\d) mm deeper", str(refused.value))
    assert found, str(refused.value)
    assert f"try tin.inner_depth_mm: {19 + float(found.group(1)):g}" in str(refused.value)
    extra = float(found.group(1))
    solve(resolve(overrides=[f"tin.inner_depth_mm={19 + extra:.1f}"]))  # fits
    with pytest.raises(InputError):
        solve(resolve(overrides=[f"tin.inner_depth_mm={19 + extra - 0.1:.1f}"]))


@pytest.mark.parametrize(
    "sizes",
    [
        ["tin.inner_length_mm=90", "tin.inner_width_mm=85", "tin.inner_depth_mm=26"],
        ["tin.inner_length_mm=110", "tin.inner_width_mm=85", "tin.inner_depth_mm=15"],
    ],
)
def test_a_tin_grown_by_the_refusals_figures_holds_everything(sizes: list[str]) -> None:
    """'the 8 dice need 3.0 mm more width' left a tin 0.2 mm short; at depth 15 the asked
    13.9 mm more length and 23.1 more width still failed on the corners."""
    with pytest.raises(InputError) as refused:
        solve(resolve(overrides=sizes))
    text = str(refused.value)
    more = {
        word: float(amount)
        for amount, word in re.findall(r"(\d+\.\d) mm more (length|width)", text)
    }
    assert more, text
    grown = {
        "length": float(sizes[0].split("=")[1]) + more.get("length", 0.0),
        "width": float(sizes[1].split("=")[1]) + more.get("width", 0.0),
    }
    solve(resolve(overrides=[
        f"tin.inner_length_mm={grown['length']:.1f}",
        f"tin.inner_width_mm={grown['width']:.1f}",
        sizes[2],
    ]))  # fmt: skip


def test_the_dice_depth_rule_asks_what_the_box_leaves_a_die() -> None:
    """The rule let a 14 mm tin through, then the solver said 'a die needs 0.8 mm more
    depth': a maker went from one refusal to the next. Now the rule asks for the depth
    the box really leaves a die (tin clearance, floor, lid and headroom), and that fits."""
    with pytest.raises(InputError, match=r"for the dice alone a tin at least 14\.8 mm deep"):
        _tin(200, 150, 14.7, 5)
    solve(_tin(200, 150, 14.8, 5))


def test_a_corner_shortfall_names_the_largest_radius_that_fits() -> None:
    """'the 8 dice need 0.3 mm more room in the rounded corners (tin.corner_radius_mm 6)'
    gave a maker nothing to set (radius 4.5 still failed); now the radius, verified."""
    with pytest.raises(InputError) as refused:
        solve(_tin(90, 88.9, 26, 6))
    found = re.search(r"tin\.corner_radius_mm (\d+(?:\.\d)?) or less, now 6", str(refused.value))
    assert found, str(refused.value)
    radius = float(found.group(1))
    solve(_tin(90, 88.9, 26, radius))
    with pytest.raises(InputError):
        solve(_tin(90, 88.9, 26, radius + 0.1))


def test_a_refusal_whose_first_growth_fails_still_gives_a_true_figure() -> None:
    """With rounded corners of 20 mm the estimate said 1.1 mm more width, and 11 mm more
    did not fit either: the search gave up and said the estimate."""
    with pytest.raises(InputError) as refused:
        solve(_tin(108, 72, 25.4, 20))
    more = float(re.search(r"(\d+\.\d) mm more width", str(refused.value)).group(1))
    assert more > 10
    solve(_tin(108, 72 + more, 25.4, 20))


def test_no_notch_is_wider_than_a_piece_beside_it() -> None:
    """A grid of 3.5 mm clips: a 12 mm notch would take one; their 8.75 mm side may face a
    notch as wide, their 3.5 mm side none."""
    left, right = _square("clips", -30, -10, -0.6, 10), _square("bases", 0.6, -10, 30, 10)
    facing_long = notches.finger_notches([left, right], 1.2, 1.2, {"clips": (3.5, 8.75)})
    assert [2 * n.radius for n in facing_long] == [pytest.approx(8.75)]
    assert notches.finger_notches([left, right], 1.2, 1.2, {"clips": (8.75, 3.5)}) == []


def test_a_round_piece_enters_a_narrowed_notch_by_the_allowance_only() -> None:
    """A 40 mm disc against a wall with a slot as wide as round_item_radius allows: slid
    into the slot until it meets the wall either side, it went in by the allowance."""
    from shapely.geometry import Point, box

    r, allowance = 20.0, 0.65
    half = notches.round_item_radius(r, allowance)
    wall = box(-50, r, 50, r + 5).difference(box(-half, r - 1, half, r + 6))
    travel = 0.0
    while not Point(0, travel + 0.001).buffer(r, quad_segs=512).intersects(wall):
        travel += 0.001
    assert travel == pytest.approx(allowance, abs=0.005)
    assert 2 * half < 2 * notches.NOTCH_RADIUS_MM  # the 12 mm notch took 0.81 mm

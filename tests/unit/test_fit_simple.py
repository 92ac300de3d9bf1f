"""The engine's stower for any kit (fit/simple.py): every unit in a pocket of its own,
inside the box, no two pockets overlapping; many units go in shelves."""

from __future__ import annotations

import itertools

import pytest
from shapely.geometry import Polygon

from squadron_cad.errors import InputError
from squadron_cad.fit import simple
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.fit.units import Piece, Unit
from squadron_cad.geometry import frames


def box(length: float, width: float, height: float = 30.0) -> BoxShape:
    return BoxShape(length, width, height, 3.0, 2.0, 1.2, 0.0, 0.0)


def units(count: int, size: tuple[float, float, float] = (20.0, 12.0, 6.0)) -> list[Unit]:
    bounds = ((0.0, 0.0, 0.0), size)
    return [
        Unit(f"u{k}", "flat", size, (Piece(f"u{k}", "block", frames.identity(), bounds),))
        for k in range(count)
    ]


def assert_sound(layout: Layout, shape: BoxShape, count: int) -> None:
    pockets = [Polygon(pocket.points) for pocket in layout.pockets]
    assert len(pockets) == count
    inside = Polygon(
        [
            (-shape.inner_length / 2, -shape.inner_width / 2),
            (shape.inner_length / 2, -shape.inner_width / 2),
            (shape.inner_length / 2, shape.inner_width / 2),
            (-shape.inner_length / 2, shape.inner_width / 2),
        ]
    )
    assert all(inside.buffer(1e-6).contains(pocket) for pocket in pockets)
    for a, b in itertools.combinations(pockets, 2):
        assert a.intersection(b).area < 1e-9
    assert len(layout.placements) == count
    assert min(layout.margins.values()) >= 0


@pytest.mark.parametrize("count", [1, 4, 8])
def test_a_few_units_are_packed_exhaustively(count: int) -> None:
    shape = box(160, 120)
    layout = simple.stow(
        shape, units(count), clearance=0.3, divider=1.2, box_part="b", lid_part=None
    )
    assert_sound(layout, shape, count)


def test_many_units_go_in_shelves() -> None:
    """30 units would take the exhaustive search 3^30 steps; shelves take 30."""
    shape = box(200, 150)
    layout = simple.stow(shape, units(30), clearance=0.3, divider=1.2, box_part="b", lid_part=None)
    assert_sound(layout, shape, 30)


def test_a_box_too_small_for_the_shelves_is_refused_with_the_shortfall() -> None:
    with pytest.raises(InputError, match=r"the pieces need \d+\.\d mm more (length|width)"):
        simple.stow(
            box(100, 60), units(30), clearance=0.3, divider=1.2, box_part="b", lid_part=None
        )


def test_a_box_too_shallow_is_refused_naming_the_tallest_piece() -> None:
    tall = Unit("deck_and_gauge", "stack", (20.0, 12.0, 9.0))
    with pytest.raises(InputError, match=r"too shallow for its tallest piece, deck and gauge"):
        simple.stow(
            box(200, 150, 5.0),
            [*units(3), tall],
            clearance=0.3,
            divider=1.2,
            box_part="b",
            lid_part=None,
        )


def test_a_piece_longer_than_the_box_is_named_with_its_overshoot() -> None:
    """The box is 200 - 2 x 2 = 196 mm inside; a 203.2 mm gauge in a 0.3 mm pocket
    clearance is 7.8 mm too long, whichever way it turns."""
    gauge = Unit("gauge", "stack", (203.2, 20.0, 3.0))
    with pytest.raises(InputError, match=r"gauge alone \(203\.2 x 20\.0 mm\) is 7\.8 mm too long"):
        simple.stow(
            box(200, 150),
            [*units(3), gauge],
            clearance=0.3,
            divider=1.2,
            box_part="b",
            lid_part=None,
        )


def test_a_piece_longer_than_the_box_is_refused_among_many_units_too() -> None:
    """Past the exhaustive packer's units, shelves once gave a block longer than the box
    a shelf of its own and let it pass (a squadrons box 175 mm inside took a 203 mm
    gauge, then was refused for its corners)."""
    gauge = Unit("gauge", "stack", (203.2, 20.0, 3.0))
    many = [*units(simple.EXACT_LIMIT), gauge]
    with pytest.raises(InputError, match=r"gauge alone \(203\.2 x 20\.0 mm\) is 7\.8 mm too long"):
        simple.stow(box(200, 150), many, clearance=0.3, divider=1.2, box_part="b", lid_part=None)


def test_pieces_that_each_fit_but_not_together_name_the_biggest() -> None:
    big = Unit("deck", "stack", (60.0, 40.0, 6.0))
    with pytest.raises(InputError, match=r"the biggest are deck \(60\.0 x 40\.0 mm\) and u0"):
        simple.stow(
            box(70, 50), [*units(3), big], clearance=0.3, divider=1.2, box_part="b", lid_part=None
        )


def test_declared_units_stack_each_players_copies() -> None:
    """Part.stow: 5 copies per player, 2 to a column, kept by player: 3 columns each."""
    from types import SimpleNamespace

    from squadron_cad.kit import Part, Stowing

    def bounds(_params: object) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        return (-5.0, -4.0, 0.0), (5.0, 4.0, 1.5)

    part = Part(
        "chip",
        "a chip",
        lambda _design: None,
        "player",
        per_player=5,
        stow=Stowing(bounds, per_column=2, by_player=True),
    )
    params = SimpleNamespace(players=2)
    made = simple.declared_units([part], params)  # type: ignore[arg-type]
    assert [unit.name for unit in made] == [
        "player1_chip_1",
        "player1_chip_2",
        "player1_chip_3",
        "player2_chip_1",
        "player2_chip_2",
        "player2_chip_3",
    ]
    assert [len(unit.pieces) for unit in made] == [2, 2, 1, 2, 2, 1]
    assert made[0].size == pytest.approx((10.0, 8.0, 3.0))
    lows = [frames.transform_bounds(p.transform, p.bounds)[0] for p in made[0].pieces]
    assert lows == [pytest.approx((0.0, 0.0, 0.0)), pytest.approx((0.0, 0.0, 1.5))]
    assert [p.name for p in made[2].pieces] == ["player1_chip_5"]


def test_a_shortfall_names_each_side_and_rounds_up() -> None:
    """'6.1 mm more length or width' could not be acted on (it was the width, and 6.1 more
    length still failed); 0.04 short read '0.0 mm more'."""
    wide = Unit("pivot", "stack", (108.8, 47.9, 3.0))
    narrow = (
        r"need 12\.5 mm more width than .* pivot alone \(108\.8 x 47\.9 mm\) is 12\.5 mm too wide"
    )
    with pytest.raises(InputError, match=narrow):
        simple.stow(box(200, 40), [wide], clearance=0.3, divider=1.2, box_part="b", lid_part=None)
    both = r"need \d+\.\d mm more length and \d+\.\d mm more width"
    with pytest.raises(InputError, match=both):
        simple.stow(box(100, 40), [wide], clearance=0.3, divider=1.2, box_part="b", lid_part=None)
    assert simple._more(0.04, 0.0) == "0.1 mm more length"

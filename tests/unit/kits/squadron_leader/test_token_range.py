"""Every token width the parameter table documents is accepted with the defaults (they
follow the token), a paper setting never refuses a 3D kit, and a refusal never says a
rounded figure meets the rule it breaks (issue 33, item 8)."""

from __future__ import annotations

import re

import pytest

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets.registry import paper_kit
from squadron_cad.resolve import resolve

BIG_TIN_AND_BED = [
    "tin.inner_length_mm=400",
    "tin.inner_width_mm=400",
    "tin.inner_depth_mm=60",
    "printer.bed_length_mm=1000",
    "printer.bed_width_mm=1000",
]


def documented_widths() -> tuple[float, float]:
    """token.width_mm's range as the model (and docs/parameters.md) states it."""
    bounds = {}
    for bound in (
        SquadronLeaderParams.model_fields["token"].annotation.model_fields["width_mm"].metadata
    ):
        for name in ("ge", "gt", "le", "lt"):
            if getattr(bound, name, None) is not None:
                bounds[name] = float(getattr(bound, name))
    return bounds.get("ge", bounds.get("gt")), bounds.get("le", bounds.get("lt"))


def test_the_documented_range_reaches_past_the_old_limits() -> None:
    """The defaults once refused anything under 25.6 and, through the paper hex, over 98."""
    low, high = documented_widths()
    assert low <= 16
    assert high >= 120


@pytest.mark.parametrize("width", [*range(16, 121, 2), 24.2, 25.5, 97.5, 98.5])
def test_every_documented_width_resolves_with_the_defaults(width: float) -> None:
    low, high = documented_widths()
    width = min(max(width, low), high)
    kit = resolve(overrides=[f"token.width_mm={width}", *BIG_TIN_AND_BED])
    assert kit.token.width_mm == width
    assert kit.paper.hex_across_flats_mm == pytest.approx(width + 8)  # follows the counter
    # the pegs' sockets keep their 0.8 mm wall to the token's edge
    edge = float(kit.token.across_flats_mm) / 2 - float(kit.peg_circle_radius_mm)
    assert edge - kit.stacking.socket_diameter_mm / 2 - kit.stacking.socket_chamfer_mm >= 0.8 - 1e-9


def test_both_ends_of_the_range_resolve_in_a_tin_that_holds_them() -> None:
    """The box fit (the stowing solver) holds too, at the smallest width in the default
    tin and at the largest in a 400 mm one."""
    from squadron_cad.kit import design_of

    low, high = documented_widths()
    small = resolve(overrides=[f"token.width_mm={low}"])
    large = resolve(overrides=[f"token.width_mm={high}", *BIG_TIN_AND_BED])
    for kit in (small, large):
        assert design_of(kit).layout.placements


def test_defaults_follow_the_token_and_the_makers_values_stay() -> None:
    small = resolve(overrides=["token.width_mm=16"])
    assert small.stacking.peg_diameter_mm == pytest.approx(round(3.0 * 16 / 26, 2))
    assert small.plane.silhouette_span_mm == pytest.approx(round(20.6 * 16 / 26, 2))
    large = resolve(overrides=["token.width_mm=52"])
    assert large.stacking.peg_diameter_mm == 3.0  # fitted sizes keep theirs on a larger token
    assert large.plane.silhouette_span_mm == pytest.approx(41.2)
    mine = resolve(overrides=["token.width_mm=52", "plane.silhouette_span_mm=30"])
    assert mine.plane.silhouette_span_mm == 30
    assert resolve() == resolve(overrides=["token.width_mm=26"])  # the reference: unchanged


def test_a_paper_setting_does_not_refuse_a_3d_kit() -> None:
    kit = resolve(overrides=["token.width_mm=40", "paper.hex_across_flats_mm=30"])
    assert kit.paper.hex_across_flats_mm == 30
    with pytest.raises(InputError, match=r"paper\.hex_across_flats_mm.*token\.width_mm"):
        paper_kit(kit)  # the paper edition still refuses a hex smaller than its counter


LEFT = re.compile(r"leaves (\d+\.\d+) mm.*?at least (\d+(?:\.\d+)?) mm")


@pytest.mark.parametrize("hole", [0.5635, 0.5636, 0.564, 0.57])
def test_a_refusal_never_shows_the_rule_met(hole: float) -> None:
    """0.7995 mm of wall, where 0.8 is needed, read '0.80 mm ... at least 0.8 mm'."""
    with pytest.raises(InputError) as caught:
        resolve(overrides=[f"altitude.hole_scale={hole}"])
    left, needed = (float(v) for v in LEFT.search(str(caught.value)).groups())
    assert left < needed, str(caught.value)
    assert "give altitude.hole_scale at most 0.56" in str(caught.value)  # a hint that works
    assert resolve(overrides=["altitude.hole_scale=0.56"]).altitude.hole_scale == 0.56

"""Parameters: defaults reproduce the reference, derived sizes follow the rules, and every
class of bad input is refused with one line naming the key."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from squadron_cad.errors import InputError
from squadron_cad.resolve import parse_override, resolve


@pytest.fixture(scope="module")
def kit():
    return resolve()


def test_defaults_reproduce_the_reference_sizes(kit) -> None:
    assert kit.token.width_mm == 26
    assert kit.token.height_mm == 4
    assert float(kit.token.across_flats_mm) == pytest.approx(24.02, abs=0.005)
    assert kit.players == 2


def test_derived_sizes_follow_the_rules(kit) -> None:
    assert float(kit.template_length_mm) == pytest.approx(78)
    assert float(kit.notch_offset_mm) == pytest.approx(4.3333, abs=1e-4)
    assert float(kit.straight_move_mm) == pytest.approx(78 + 2 * 26 / 6)
    assert float(kit.ruler_length_mm) == pytest.approx(234)
    assert float(kit.ruler_width_mm) == pytest.approx(6.5)
    assert float(kit.guide_offset_mm) == pytest.approx(3.25)
    assert float(kit.peg_circle_radius_mm) == pytest.approx(math.sqrt(2) * 26 / 4)
    assert float(kit.bank_inner_radius_mm) == pytest.approx(78)
    assert float(kit.turn_inner_radius_mm) == pytest.approx(26)
    assert float(kit.stack_height_mm) == pytest.approx(21)


def test_derived_sizes_scale_with_the_token() -> None:
    wide = resolve(overrides=["token.width_mm=30"])
    assert float(wide.template_length_mm) == pytest.approx(90)
    assert float(wide.ruler_length_mm) == pytest.approx(270)
    assert float(wide.token.across_flats_mm) == pytest.approx(30 * math.cos(math.radians(22.5)))


def test_layers_apply_in_order(tmp_path: Path) -> None:
    first = tmp_path / "a.yaml"
    second = tmp_path / "b.yaml"
    first.write_text("token:\n  width_mm: 28\nplayers: 3\n")
    second.write_text("token:\n  width_mm: 29\n")
    kit = resolve([first, second], ["players=4"])
    assert (kit.token.width_mm, kit.players, kit.token.height_mm) == (29, 4, 4)


def test_set_reads_yaml_values() -> None:
    assert parse_override("stat_dial.labels=[H, D]") == {"stat_dial": {"labels": ["H", "D"]}}
    assert resolve(overrides=["token.width_mm=2.8e1"]).token.width_mm == 28


BAD_INPUT = [
    # (overrides, words the one-line message must contain)
    (["token.width_mm=-3"], ["token.width_mm", "-3", "at least 16"]),
    (["token.width_mm=0"], ["token.width_mm", "at least"]),
    (["token.width_mm=1e9"], ["token.width_mm", "at most 120"]),
    (["token.width_mm=.inf"], ["token.width_mm", "finite"]),
    (["token.width_mm=wide"], ["token.width_mm", "number"]),
    (["players=2.5"], ["players", "whole number"]),
    (["players=0"], ["players", "at least 1"]),
    (["token.widht_mm=26"], ["token.widht_mm", "did you mean", "token.width_mm"]),
    (["colour=red"], ["colour", "unknown key"]),
    (["quality=ultra"], ["quality", "draft", "final"]),
    (["tin.inner_width_mm=20"], ["tin.inner_width_mm", "token.width_mm"]),
    (
        ["stacking.peg_diameter_mm=8", "stacking.peg_height_mm=2.5"],
        ["stacking.peg_diameter_mm", "token.width_mm"],
    ),
    (["stacking.peg_diameter_mm=8"], ["stacking.peg_height_mm", "does not locate"]),
    (["dice.size_mm=30"], ["dice.size_mm", "tin.inner_depth_mm"]),
    (["box.rim_mm=2"], ["box.rim_mm", "box.wall_mm"]),
    (["text.depth_mm=0.28"], ["text.depth_mm", "checks.min_text_depth_mm (0.4)"]),
    (["ruler.joint_clearance_mm=0"], ["ruler.joint_clearance_mm", "checks.ruler_joint_fit"]),
    (
        ["stacking.peg_socket_clearance_mm=0.1"],
        ["stacking.peg_socket_clearance_mm", "on the diameter", "at least 0.2"],
    ),
    (["box.pocket_clearance_mm=0"], ["box.pocket_clearance_mm", "checks.pocket_fit"]),
    (["stat_dial.labels=[Health]"], ["stat_dial.labels", "Health"]),
    (["token"], ["--set", "key.path=value"]),
    (["box.title=Café"], ["box.title", "cannot engrave 'é'"]),
    # a list key's example fits the key (it was the stat row's [H, D, A, S] for every list)
    (["box.leave_out=dice"], ["box.leave_out", "must be a list of 'template'", "e.g. [dice]"]),
    (["stat_dial.labels=H"], ["stat_dial.labels", "must be a list, e.g. [H, D, A, M]"]),
    (["player_colours=red"], ["player_colours", "e.g. [{name: red, colour: red}]"]),
    # a key in capitals or with a dash is an unknown key, not a malformed --set
    (["Token.width_mm=30"], ["unknown key 'Token'", "did you mean 'token'?"]),
    (["box.leave-out=[dice]"], ["unknown key 'box.leave-out'", "did you mean 'box.leave_out'?"]),
    (["box.leave_out=[dice, dice]"], ["box.leave_out", "names dice more than once", "[dice]"]),
    (
        ["box.leave_out=[ruler, dice, ruler]"],
        ["box.leave_out", "names ruler more than once", "e.g. [ruler, dice]"],
    ),
]


@pytest.mark.parametrize(("overrides", "words"), BAD_INPUT)
def test_bad_values_name_the_key_and_the_rule(overrides: list[str], words: list[str]) -> None:
    with pytest.raises(InputError) as caught:
        resolve(overrides=overrides)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("token: [1, 2\n", ["malformed YAML", "line"]),
        ("- a\n- b\n", ["expected a mapping"]),
        ("token:\n  width_mm: !!python/object/apply:os.system [echo hi]\n", ["YAML"]),
    ],
)
def test_bad_yaml_files_are_refused_in_one_line(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        resolve([path])
    assert "\n" not in str(caught.value)
    for word in words:
        assert word in str(caught.value)


def test_missing_and_oversized_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        resolve([tmp_path / "nope.yaml"])
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * 1_100_000)
    with pytest.raises(InputError, match="at most 1 MB"):
        resolve([big])


def test_unknown_tin_preset_lists_the_known_ones() -> None:
    with pytest.raises(InputError, match="no such tin preset"):
        resolve(tin="../../etc/passwd")


def test_list_examples_in_refusals_are_accepted() -> None:
    for example in ("box.leave_out=[dice]", "stat_dial.labels=[H, D, A, M]"):
        resolve(overrides=[example])
    resolve(overrides=["player_colours=[{name: red, colour: red}]", "players=1"])


def test_a_number_as_a_key_is_named_as_not_a_parameter_name(tmp_path: Path) -> None:
    for text, words in (
        ("100: 3\n", "key 100: keys are parameter names (text), e.g. players"),
        ("token:\n  100: 3\n", "key 100 in token: keys are parameter names (text)"),
    ):
        path = tmp_path / "numbers.yaml"
        path.write_text(text)
        with pytest.raises(InputError) as caught:
            resolve([path])
        message = str(caught.value).replace(" (from numbers.yaml)", "")
        assert words in message, message
        assert "keys should be strings" not in message


def test_rules_about_dice_left_out_do_not_apply() -> None:
    """The dice depth rule refused a 13 mm tin though box.leave_out held the dice."""
    left_out = ["tin.inner_depth_mm=13", "players=1"]
    resolve(overrides=[*left_out, "box.leave_out=[template, dice, ruler, dials]"])
    with pytest.raises(InputError, match=r"dice.size_mm .* box.leave_out: \[dice\]"):
        resolve(overrides=[*left_out, "box.leave_out=[template, ruler, dials]"])


def test_a_too_shallow_tin_offers_only_hints_that_work() -> None:
    """It said 'lower box.lid_tray_depth_mm' with the tray already at its least (6)."""
    shallow = ["tin.inner_depth_mm=10", "box.lid_tray_depth_mm=6"]
    with pytest.raises(InputError) as caught:
        resolve(overrides=shallow)
    message = str(caught.value)
    assert "too shallow" in message
    assert "box.lid_tray_depth_mm 6 (its least)" in message
    assert "use a tin deeper than 10.5 mm (tin.inner_depth_mm)" in message
    assert "lower" not in message
    assert "give box." not in message  # the dice rule refuses those
    resolve(overrides=[*shallow, "tin.inner_depth_mm=14.8"])
    with pytest.raises(InputError) as caught:
        resolve(overrides=[*shallow, "box.leave_out=[dice]"])
    assert str(caught.value).endswith(", or give box.lid_lip_mm at most 1.4")
    resolve(overrides=[*shallow, "box.leave_out=[dice]", "box.lid_lip_mm=1.4"])


def test_a_makers_own_tin_sizes_are_named_as_theirs_and_measured(tmp_path: Path) -> None:
    """A file giving only sizes kept the default tin's name and 'sizes approximate':
    `fit` said '(squadron-leader, sizes approximate)' of the maker's own tin."""
    mine = tmp_path / "mytin.yaml"
    mine.write_text("tin:\n  inner_length_mm: 120\n  inner_width_mm: 90\n  inner_depth_mm: 30\n")
    tin = resolve(param_files=[mine]).tin
    assert (tin.name, tin.approximate) == ("your tin (mytin.yaml)", False)
    named = resolve(param_files=[mine], overrides=["tin.name=biscuit tin"]).tin
    assert named.name == "biscuit tin"
    preset = resolve(tin="altoids").tin
    assert (preset.name, preset.approximate) == ("altoids", True)
    changed = resolve(tin="altoids", overrides=["tin.corner_radius_mm=12"]).tin
    assert (changed.name, changed.approximate) == ("altoids, changed by --set", True)
    assert resolve().tin.name == "squadron-leader"


def test_a_tin_named_after_a_long_file_name_stays_within_the_name_limit(tmp_path: Path) -> None:
    """A file named squadron-leader-tin-measured.yaml with one size stopped every command:
    'tin.name ... must be at most 60 characters'."""
    long_name = tmp_path / ("squadron-leader-tin-measured-" + "x" * 40 + ".yaml")
    long_name.write_text("tin:\n  corner_radius_mm: 8\n")
    assert len(resolve(param_files=[long_name]).tin.name) <= 60


# ---- data mappings replace, sections merge (issue 33, item 10) ---------------------------


def test_a_given_dice_mapping_replaces_the_default(tmp_path: Path) -> None:
    """{white: 8} merged with the defaults' {red: 4, green: 4} made 16 dice."""
    assert resolve(overrides=["dice.colours={white: 8}"]).dice.colours == {"white": 8}
    path = tmp_path / "dice.yaml"
    path.write_text("dice:\n  colours: {white: 8}\n  size_mm: 14\n")
    kit = resolve([path])
    assert kit.dice.colours == {"white": 8}
    assert kit.dice.sides == 6  # the section itself still merges key by key
    assert resolve([path], ["dice.colours={red: 2}"]).dice.colours == {"red": 2}


def test_a_box_refusal_caused_by_the_dice_names_them() -> None:
    from squadron_cad.kit import design_of

    kit = resolve(overrides=["dice.colours={white: 16}"])
    with pytest.raises(InputError) as caught:
        _ = design_of(kit).layout
    message = str(caught.value)
    assert "dice.colours asks 16: white 16" in message
    most = int(message.split("at most ")[1].split(" dice")[0])
    assert 8 <= most < 16
    fewer = resolve(overrides=[f"dice.colours={{white: {most}}}"])
    assert design_of(fewer).layout.placements  # the hint works

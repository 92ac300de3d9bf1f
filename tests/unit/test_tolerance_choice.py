"""The tolerance test print's ladder and --choose (no rendering): the written file is
accepted by resolve and sets the chosen values; bad input is one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import get_at, registered, run_cli
from toykit import TOY_KIT

from squadron_cad.errors import InputError
from squadron_cad.kit import load_kit
from squadron_cad.resolve import resolve
from squadron_cad.tolerance import DEFAULT_LADDER, Ladder, choice_values, parse_picks, with_value

KIT = load_kit("squadron-leader")
LADDER = Ladder.parse(DEFAULT_LADDER)
PICKS = ["peg=0.25", "joint=0.20", "clip=0.15", "lid=0.30"]
KEYS = {
    "stacking.peg_socket_clearance_mm": 0.25,
    "ruler.joint_clearance_mm": 0.20,
    "stat_dial.clip_clearance_mm": 0.15,
    "box.lid_clearance_mm": 0.30,
}


run = run_cli


def test_default_ladder_is_the_seven_steps() -> None:
    assert LADDER.values == (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


@pytest.mark.parametrize(
    "text", ["0.1-0.4", "0.4:0.1:0.05", "0.1:0.4:0.07", "0:0.4:0.05", "0.05:1.9:0.01"]
)
def test_bad_ladders_are_refused(text: str) -> None:
    with pytest.raises(InputError, match="--ladder"):
        Ladder.parse(text)


def test_the_kit_declares_a_coupon_per_fit() -> None:
    fits = {coupon.fit: coupon.key for coupon in KIT.coupons}
    assert fits == dict(zip(["peg", "joint", "clip", "lid"], KEYS, strict=True))
    params = resolve()
    for key in KEYS:  # every coupon sets a real parameter of the kit
        assert isinstance(get_at(params, key), float)


def test_with_value_sets_one_key_and_nothing_else() -> None:
    params = resolve()
    varied = with_value(params, "ruler.joint_clearance_mm", 0.35)
    assert varied.ruler.joint_clearance_mm == 0.35
    assert varied.ruler.tab_width_mm == params.ruler.tab_width_mm
    assert varied.stacking == params.stacking
    assert params.ruler.joint_clearance_mm != 0.35  # the original is untouched


def test_choose_writes_a_file_resolve_accepts(tmp_path: Path, capsys) -> None:
    target = tmp_path / "fits.yaml"
    code, out, err = run(["tolerance", "--choose", *PICKS, "--out-params", str(target)], capsys)
    assert code == 0, err
    assert "wrote" in out
    chosen = resolve([target])
    for key, value in KEYS.items():
        assert get_at(chosen, key) == pytest.approx(value)
    # 0.15 is under the kit's clip range (0.2): the file widens it, so the kit accepts it
    assert chosen.checks.clip_fit.min_mm == pytest.approx(0.15)


def test_choose_replaces_only_a_file_it_wrote(tmp_path: Path, capsys) -> None:
    """A second --choose updates its own file; a maker's own parameters file of that name
    is refused, untouched (it was overwritten)."""
    target = tmp_path / "fits.yaml"
    for picks in (["peg=0.25"], ["peg=0.30"]):
        code, _, err = run(["tolerance", "--choose", *picks, "--out-params", str(target)], capsys)
        assert code == 0, err
    assert resolve([target]).stacking.peg_socket_clearance_mm == pytest.approx(0.30)
    mine = tmp_path / "mytin.yaml"
    mine.write_text("tin:\n  inner_length_mm: 100\n")
    code, _, err = run(["tolerance", "--choose", "peg=0.25", "--out-params", str(mine)], capsys)
    assert code == 2
    assert "holds a file `tolerance --choose` did not write" in err
    assert mine.read_text() == "tin:\n  inner_length_mm: 100\n"


def test_choice_values_only_widen_ranges_that_need_it() -> None:
    params = resolve()
    values = choice_values(params, KIT.coupons, parse_picks(["peg=0.25"], KIT.coupons, LADDER))
    assert values == {"stacking": {"peg_socket_clearance_mm": 0.25}}


BAD_CHOICES = [
    (["--choose", "peg=0.27"], "peg must be a step of the ladder"),
    (["--choose", "pegs=0.25"], "FIT one of: peg, joint, clip, lid"),
    (["--choose", "peg=wide"], "is not a number"),
    (["--choose", "peg"], "give FIT=MM"),
    (["--choose"], "name at least one fit, e.g. --choose peg=0.25"),
    (["peg=0.25"], "are for --choose"),
    (["--ladder", "0.1:0.4:0.07", "--choose", "peg=0.1"], "--ladder"),
    (["--choose", "peg=0.25"], "does not exist"),
    (["--choose", "peg=0.25", "peg=0.30"], "the fit peg is named twice"),
    (["--choose", "peg=0.25", "peg=0.25"], "the fit peg is named twice"),
]


@pytest.mark.parametrize(("args", "words"), BAD_CHOICES)
def test_bad_choose_is_one_line_exit_2(tmp_path: Path, capsys, args: list[str], words: str) -> None:
    folder = tmp_path if words != "does not exist" else tmp_path / "no-such-folder"
    target = folder / "fits.yaml"
    code, _, err = run(["tolerance", *args, "--out-params", str(target)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert words in err
    assert not target.exists()


def test_a_kit_without_coupons_says_so(tmp_path: Path, capsys) -> None:
    """Every installed kit has coupons now: the toy kit, which declares none, says so."""
    out = tmp_path / "tolerance"
    with registered(TOY_KIT):
        code, _, err = run(["tolerance", "--kit", "toy", "--out", str(out)], capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        "squadron-cad: error: the toy kit declares no fits: it has no tolerance test print"
    ]
    assert not out.exists()


# ---- every printed coupon is choosable and its file builds (issue 33, item 7) -----------


@pytest.mark.parametrize("fit", [coupon.fit for coupon in KIT.coupons])
def test_every_default_step_is_choosable_and_its_file_resolves(
    tmp_path: Path, capsys, fit: str
) -> None:
    """peg 0.35/0.40 were refused over altitude.hole_scale, joint 0.30-0.40 over the slot
    wall and the snap ridges: keys the maker never touched."""
    key = next(coupon.key for coupon in KIT.coupons if coupon.fit == fit)
    for value in LADDER.values:
        target = tmp_path / f"{fit}-{value:.2f}.yaml"
        args = ["tolerance", "--choose", f"{fit}={value:.2f}", "--out-params", str(target)]
        code, _, err = run(args, capsys)
        assert code == 0, err
        assert get_at(resolve([target]), key) == pytest.approx(value)


def test_the_loosest_choice_fits_the_box(tmp_path: Path, capsys) -> None:
    """The written file goes past the resolver: the box is solved with it (`fit`)."""
    target = tmp_path / "fits.yaml"
    picks = [f"{coupon.fit}={LADDER.values[-1]:.2f}" for coupon in KIT.coupons]
    code, _, err = run(["tolerance", "--choose", *picks, "--out-params", str(target)], capsys)
    assert code == 0, err
    code, _out, err = run(["fit", "--params", str(target)], capsys)
    assert code == 0, err


def test_the_file_keeps_the_runs_set_values_and_names_its_tin_and_files(
    tmp_path: Path, capsys
) -> None:
    """With --set altitude.hole_scale=0.5 the file left the key out, and the build it
    suggested (--params fits.yaml alone) was refused."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("players: 3\n")
    target = tmp_path / "fits.yaml"
    args = ["tolerance", "--choose", "peg=0.40", "--set", "altitude.hole_scale=0.5"]
    args += ["--tin", "v2-box", "--params", str(mine), "--out-params", str(target)]
    code, out, err = run(args, capsys)
    assert code == 0, err
    suggested = out.strip().splitlines()[-1].split("build with them: ")[1]
    assert suggested == f"squadron-cad build --tin v2-box --params {mine} --params {target}"
    code, _, err = run(["params", *suggested.split()[2:]], capsys)  # exactly that build
    assert code == 0, err
    chosen = resolve([mine, target], tin="v2-box")
    assert chosen.altitude.hole_scale == 0.5
    assert chosen.stacking.peg_socket_clearance_mm == pytest.approx(0.40)
    assert chosen.players == 3


def test_a_step_the_kit_would_refuse_is_left_off_the_plate() -> None:
    """On a 16 mm token the ruler is 4 mm wide: a 0.40 joint leaves no slot wall."""
    from squadron_cad.tolerance import left_off, pieces_of

    layers = ([], ["token.width_mm=16"], None)
    params = resolve(overrides=layers[1])
    refused = left_off(params, LADDER, layers)
    assert set(refused) == {"joint"}
    assert set(refused["joint"]) == {0.4}
    assert "slot wall" in refused["joint"][0.4]
    printed = {(piece.coupon.fit, piece.value) for piece in pieces_of(params, LADDER, refused)}
    assert ("joint", 0.4) not in printed
    assert ("joint", 0.35) in printed
    assert left_off(resolve(), LADDER, ([], [], None)) == {}  # the defaults: every step


def test_the_plate_readme_says_which_steps_were_left_off() -> None:
    from squadron_cad.tolerance import PlateReport, readme

    report = PlateReport(Path("t"), [], None, "not sliced", [], False, {"joint": {0.4: "why"}})
    text = readme(KIT, LADDER, report)
    assert "not printed for **joint**: 0.40" in text
    assert "parameters: why)" in text
    assert "--choose peg=0.25 joint=0.25" in text  # the example picks printed steps only

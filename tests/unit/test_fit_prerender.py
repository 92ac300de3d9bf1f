"""`fit` applies every rule the build applies before it renders (fit/prerender.py): a box
fit accepts is never refused by the build for a reason known before the renders, and both
say it in the same words."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.cli import main
from squadron_cad.fit import prerender
from squadron_cad.kit import design_of
from squadron_cad.resolve import resolve

ROUND_230 = [
    "tin.inner_length_mm=230",
    "tin.inner_width_mm=230",
    "tin.corner_radius_mm=115",
    "tin.inner_depth_mm=40",
]
REFUSED = {
    "a round box wider than the bed": (  # fit said yes, the build refused it
        "squadrons",
        ROUND_230,
        "the box's 229.0 x 229.0 mm footprint (fitted to the tin) does not fit the 250 x 210",
    ),
    "a tray taller than the printer": (  # fit said yes, the build failed after the renders
        "space-planes",
        ["tin.inner_depth_mm=60", "printer.bed_height_mm=50"],
        "the box stands at least 58.0 mm tall (fitted to the tin's depth), over the "
        "printer's 50 mm (printer.bed_height_mm)",
    ),
    "a box bigger than a small bed": (
        "squadron-leader",
        ["printer.bed_length_mm=80", "printer.bed_width_mm=80"],
        "the box's 107.0 x 82.0 mm footprint (fitted to the tin) does not fit the 80 x 80 mm",
    ),
}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    return int(done.value.code or 0), capsys.readouterr().err


def sets(overrides: list[str]) -> list[str]:
    return [arg for key in overrides for arg in ("--set", key)]


@pytest.mark.parametrize("case", list(REFUSED))
def test_fit_refuses_what_the_build_refuses_before_rendering_in_the_same_words(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit, overrides, words = REFUSED[case]
    fit_code, fit_said = run(["fit", "--kit", kit, *sets(overrides)], capsys)
    assert fit_code == 2
    assert words in fit_said
    out = tmp_path / "out"
    build_code, build_said = run(
        ["build", "--kit", kit, "--out", str(out), *sets(overrides)], capsys
    )
    assert build_code == 2
    assert build_said == fit_said  # one rule, one line
    assert not out.exists()


def test_an_oval_box_that_fits_the_bed_only_turned_is_not_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A 260 x 120 mm stadium lies on a 250 mm square bed at 45 degrees (219 mm each way);
    its bounding rectangle would not (the rule once placed the rectangle's corners)."""
    overrides = [
        "tin.inner_length_mm=261",
        "tin.inner_width_mm=121",
        "tin.corner_radius_mm=60.5",
        "printer.bed_length_mm=250",
        "printer.bed_width_mm=250",
    ]
    code, said = run(["fit", "--kit", "space-planes", *sets(overrides)], capsys)
    assert code == 0, said
    design = design_of(resolve(kit="space-planes", overrides=overrides))
    prerender.refuse_before_rendering(design, {"box"})  # the build's call: no refusal


def test_a_build_without_the_box_needs_no_box_rule() -> None:
    """--only a token: the box's bed and the tin's size are not that build's business."""
    design = design_of(resolve(kit="squadrons", overrides=ROUND_230))
    prerender.refuse_before_rendering(design, {"ship_base_1"})
    small = design_of(resolve(overrides=["tin.inner_length_mm=60", "tin.inner_width_mm=40"]))
    prerender.refuse_before_rendering(small, {"plane_token"})

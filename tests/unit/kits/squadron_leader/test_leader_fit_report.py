"""`squadron-cad fit` for Squadron Leader: its arrangement (the template flat on top, under
the lid; the ruler's sections counted together) and its lid."""

from __future__ import annotations

from helpers import run_cli


def fit(capsys, *args: str) -> str:
    code, out, _err = run_cli(["fit", "--kit", "squadron-leader", *args], capsys)
    assert not code
    return out


def test_squadron_leaders_report_keeps_its_arrangement_and_lid(capsys) -> None:
    text = fit(capsys)
    assert "lid included (0.5 mm clearance to the tin)" in text
    assert "  template: flat on top, under the lid" in text
    assert "limited by: the box's length" in text
    assert "3 x ruler section" in text  # the three sections counted together

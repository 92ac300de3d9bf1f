"""The CLI as a maker meets it: one-line errors with exit code 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from squadron_cad.cli import main


def run(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out, captured.err


BAD_BUILDS = [
    (["--set", "token.width_mm=-3"], "token.width_mm = -3 (from --set): must be at least 12"),
    (["--set", "token.width_mm=1e9"], "token.width_mm"),
    (["--set", "tokn.width_mm=26"], "unknown key 'tokn'"),
    (["--set", "players=two"], "players"),
    (["--tin", "no-such-tin"], "no such tin preset"),
    (["--only", "plane_tokn"], "did you mean plane_token"),
    (["--params", "missing.yaml"], "file not found"),
]


@pytest.mark.parametrize(("args", "words"), BAD_BUILDS)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, capsys, args: list[str], words: str
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = run(["build", "--out", str(out), *args], capsys)
    assert code == 2
    assert words in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stderr + stdout
    assert not out.exists()


def test_malformed_yaml_file(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "tin.yaml"
    bad.write_text("tin:\n  inner_length_mm: [90\n")
    code, _, stderr = run(["build", "--out", str(tmp_path / "o"), "--params", str(bad)], capsys)
    assert code == 2
    assert "malformed YAML at line" in stderr
    assert not (tmp_path / "o").exists()


def test_unknown_option_is_a_usage_error(capsys) -> None:
    code, _, stderr = run(["build", "--colour", "red"], capsys)
    assert code == 2
    assert "--colour" in stderr


def test_list_counts_parts_for_the_players(capsys) -> None:
    code, stdout, _ = run(["list", "--set", "players=3", "--json"], capsys)
    assert code == 0
    rows = {row["part"]: row["count"] for row in json.loads(stdout)}
    assert rows["altitude_token"] == 12
    assert rows["plane_token"] == 3


def test_params_prints_the_resolved_values(capsys) -> None:
    code, stdout, _ = run(["params", "--set", "token.width_mm=30", "--json"], capsys)
    assert code == 0
    assert json.loads(stdout)["token"]["width_mm"] == 30


def test_missing_openscad_is_explained(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SQUADRON_OPENSCAD", str(tmp_path / "no-openscad"))
    code, _, stderr = run(["build", "--out", str(tmp_path / "o")], capsys)
    assert code == 1
    assert "OpenSCAD not found" in stderr
    assert "apt-get install openscad" in stderr
    assert not (tmp_path / "o").exists()


def test_check_without_a_build_says_what_to_do(tmp_path: Path, capsys) -> None:
    code, _, stderr = run(["check", "--out", str(tmp_path)], capsys)
    assert code == 2
    assert "squadron-cad build" in stderr


def test_fit_prints_the_layout_margins_and_limit(capsys) -> None:
    code, stdout, _ = run(["fit", "--tin", "squadron-leader"], capsys)
    assert code == 0
    assert "box:    107 x 82 x 24.9 mm outside" in stdout
    assert "spare room inside the box: length" in stdout
    assert "limited by:" in stdout


def test_fit_json_gives_positive_margins(capsys) -> None:
    code, stdout, _ = run(["fit", "--tin", "v2-box", "--json"], capsys)
    data = json.loads(stdout)
    assert code == 0
    assert min(data["margins_mm"].values()) >= 0
    assert data["pieces"]["plane_token"] == 2
    assert data["pieces"]["altitude_token"] == 8


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", "tin.inner_length_mm=70"], "a range ruler section needs 4.8 mm more width"),
        (["--tin", "v2-box", "--set", "players=4"], "mm more length"),
        (["--set", "tin.inner_depth_mm=9"], "tin.inner_depth_mm"),
    ],
)
def test_too_small_tin_is_refused_naming_the_piece_and_mm(
    tmp_path: Path, capsys, args: list[str], words: str
) -> None:
    for command in (["fit"], ["build", "--out", str(tmp_path / "out")]):
        code, stdout, stderr = run([*command, *args], capsys)
        assert code == 2
        assert words in stderr
        assert len(stderr.strip().splitlines()) == 1
        assert stdout == ""
    assert not (tmp_path / "out").exists()

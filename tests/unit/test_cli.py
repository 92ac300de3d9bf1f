"""The CLI as a maker meets it: one-line errors with exit code 2, nothing written."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import cli_process, run_cli
from typer.testing import CliRunner

from squadron_cad import cli
from squadron_cad.cli import main
from squadron_cad.cli.session import what_an_interrupt_left
from squadron_cad.errors import InputError
from squadron_cad.outfolder import Staging, read_ownership

run = run_cli


BAD_BUILDS = [
    (["--set", "token.width_mm=-3"], "token.width_mm = -3 (from --set): must be at least 16"),
    (["--set", "token.width_mm=1e9"], "token.width_mm"),
    (["--set", "tokn.width_mm=26"], "unknown key 'tokn'"),
    (["--set", "players=two"], "players"),
    (["--tin", "no-such-tin"], "no such tin preset"),
    (["--only", "plane_tokn"], "did you mean plane_token"),
    (["--params", "missing.yaml"], "file not found"),
    (["--cache-dir", "tests"], "holds files that are not a squadron-cad cache"),
    (  # known from the tin before any render (it failed after rendering, exit 1)
        ["--set", "printer.bed_length_mm=80", "--set", "printer.bed_width_mm=80"],
        "the box's 107.0 x 82.0 mm footprint (fitted to the tin) does not fit the 80 x 80 mm",
    ),
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


@pytest.mark.parametrize("command", ["build", "paper", "tolerance", "previews"])
def test_a_refused_output_folder_is_the_only_line(
    tmp_path: Path, capsys, monkeypatch, command: str
) -> None:
    """The folder you are in is refused before any work is announced or written."""
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run([command, "--out", "."], capsys)
    assert code == 2
    assert stdout == ""
    assert stderr.strip().splitlines() == [
        "squadron-cad: error: --out .: refusing the folder you are in (or one that holds it); "
        "choose a new or empty folder, e.g. --out out"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_file_the_page_saved_for_another_kit_or_tin_is_said(tmp_path: Path, capsys) -> None:
    """The page's params.yaml names its kit and tin in its first line, which a maker may
    leave off the command: a refusal then says so, and so does a build on other defaults."""
    saved = tmp_path / "params.yaml"
    saved.write_text(
        "# squadron-cad build --kit squadrons --tin custom --params params.yaml\n"
        "base:\n  size_mm: 42\n"
    )
    out = str(tmp_path / "o")
    code, _, stderr = run(["build", "--out", out, "--params", str(saved)], capsys)
    assert code == 2
    assert stderr.count("\n") == 1
    assert stderr.strip().endswith(
        "; params.yaml was saved for `squadron-cad build --kit squadrons --tin custom "
        "--params params.yaml` (its first line)"
    )
    saved.write_text(
        "# squadron-cad build --kit squadron-leader --tin altoids --params params.yaml\n"
        "token:\n  height_mm: 4.5\n"
    )
    code, _, stderr = run(["params", "--params", str(saved)], capsys)
    assert code == 0
    assert "params.yaml was saved for `squadron-cad build --kit squadron-leader --tin " in stderr
    assert "its values went on this run's defaults instead" in stderr
    code, _, stderr = run(["params", "--tin", "altoids", "--params", str(saved)], capsys)
    assert (code, stderr) == (0, "")


def test_malformed_yaml_file(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "tin.yaml"
    bad.write_text("tin:\n  inner_length_mm: [90\n")
    code, _, stderr = run(["build", "--out", str(tmp_path / "o"), "--params", str(bad)], capsys)
    assert code == 2
    assert "malformed YAML at line" in stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["build", "--colour", "red"], "No such option: --colour"),
        (["build", "--timeout", "0"], "Invalid value for '--timeout'"),
        (["build", "--only"], "Option '--only' requires an argument."),
        (["nocommand"], "No such command 'nocommand'."),
    ],
)
def test_a_usage_error_is_one_line_exit_2(capsys, args: list[str], line: str) -> None:
    """Click's usage errors said as ours: one line (they were four, Usage and Try
    lines first)."""
    code, stdout, stderr = run(args, capsys)
    assert code == 2
    assert stdout == ""
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith(f"squadron-cad: error: {line}")


def test_a_usage_error_under_json_is_the_last_json_line(capsys) -> None:
    code, stdout, _ = run(["build", "--json", "--timeout", "0"], capsys)
    assert code == 2
    error = json.loads(stdout.splitlines()[-1])
    assert error["event"] == "error"
    assert error["exit_code"] == 2
    assert error["message"].startswith("Invalid value for '--timeout'")


def test_no_command_prints_the_help(capsys) -> None:
    code, _, stderr = run([], capsys)
    assert code == 2
    assert "Commands:" in stderr


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
        # 5.2: box.wall_mm is 1.8 (lip, lid clearance and the box's tongue), not 1.6
        (["--set", "tin.inner_length_mm=70"], "a range ruler section needs 5.2 mm more width"),
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


# One option set (issue #13): every shared option is declared once (cli/options.py, as an
# Annotated alias) and taken after the command name by every command that uses it.

SOURCE = "\n".join(path.read_text() for path in Path(cli.__file__).parent.glob("*.py"))
PARAMETERS = ("--params", "--set", "--tin", "--kit")
EVERYWHERE = ("--quiet", "--debug")
SHARED_BY_COMMAND = {
    "build": (*PARAMETERS, "--out", "--verbose", "--json"),
    "check": (*PARAMETERS, "--out", "--verbose", "--json"),
    "fit": (*PARAMETERS, "--json"),
    "list": (*PARAMETERS, "--json"),
    "params": (*PARAMETERS, "--json"),
    "bench": PARAMETERS,
    "paper": (*PARAMETERS, "--out", "--json"),
    "tolerance": (*PARAMETERS, "--out", "--json"),
    "kits": ("--json",),
    "tins": ("--kit",),
    "previews": ("--out",),
    "clean": ("--out",),
    "docs": (),
    "setup": (),
    "serve": ("--kit", "--out"),
}
PARAMETER_COMMANDS = [name for name, taken in SHARED_BY_COMMAND.items() if "--tin" in taken]
SHARED_NAMES = sorted({name for taken in SHARED_BY_COMMAND.values() for name in taken})
SHORT_FLAGS = {"--params": "-p", "--set": "-s", "--kit": "-k", "--out": "-o", "--quiet": "-q"}


def click_commands() -> dict[str, Any]:
    return typer.main.get_command(cli.app).commands  # type: ignore[attr-defined]


def test_every_command_is_listed_here() -> None:
    assert set(click_commands()) == set(SHARED_BY_COMMAND)


@pytest.mark.parametrize("option", [*SHARED_NAMES, *EVERYWHERE])
def test_each_shared_option_is_declared_once(option: str) -> None:
    declared = re.findall(r'typer\.Option\(\s*"' + re.escape(option) + r'"', SOURCE)
    assert len(declared) == 1, f"{option} declared {len(declared)} times in squadron_cad/cli"
    if option in SHORT_FLAGS:
        assert len(re.findall(rf'"{SHORT_FLAGS[option]}"', SOURCE)) == 1
    # and so every command shows the same option: same names, same help
    seen = {
        (tuple(sorted(param.opts)), param.help)
        for command in (typer.main.get_command(cli.app), *click_commands().values())
        for param in command.params
        if option in param.opts
    }
    assert len(seen) == 1, seen


def test_kit_help_names_the_real_default_kit() -> None:
    """--kit's help said 'default: the first', but `kits` lists space-planes first."""
    from squadron_cad.kit import default_kit

    helps = {
        param.help
        for command in click_commands().values()
        for param in command.params
        if "--kit" in param.opts
    }
    assert helps == {f"Which game's kit (`squadron-cad kits`; default: {default_kit().name})."}


@pytest.mark.parametrize("command", sorted(SHARED_BY_COMMAND))
def test_command_help_lists_its_shared_options(command: str) -> None:
    done = CliRunner().invoke(cli.app, [command, "--help"])
    assert done.exit_code == 0, done.output
    taken = {opt for param in click_commands()[command].params for opt in param.opts}
    expected = {*SHARED_BY_COMMAND[command], *EVERYWHERE}
    assert taken & set(SHARED_NAMES + list(EVERYWHERE)) == expected
    for param in click_commands()[command].params:
        if set(param.opts) & expected:
            assert param.help
            assert " ".join(param.help.split()[:3]) in " ".join(done.output.split())
    for option in expected:
        assert option in done.output
    if command == "paper":
        assert "[default: out/paper]" in done.output


BAD_PARAMETERS = [
    (["--kit", "no-such-kit"], "no such kit"),
    (["-k", "no-such-kit"], "no such kit"),
    (["--tin", "no-such-tin"], "no such tin preset"),
    (["--set", "tokn.width_mm=26"], "unknown key 'tokn'"),
    (["-s", "players=two"], "players"),
    (["--params", "missing.yaml"], "file not found"),
    (["-p", "missing.yaml"], "file not found"),
]


@pytest.mark.parametrize("command", PARAMETER_COMMANDS)
@pytest.mark.parametrize(("args", "words"), BAD_PARAMETERS)
def test_parameter_options_are_taken_after_every_command(
    tmp_path: Path, capsys, command: str, args: list[str], words: str
) -> None:
    """A bad value is refused by the parameters (exit 2, its own message), not by the
    command line: the option was taken and used."""
    out = ["--out", str(tmp_path / "out")] if "--out" in SHARED_BY_COMMAND[command] else []
    code, stdout, stderr = run([command, *out, *args], capsys)
    assert code == 2, stderr
    assert words in stderr
    assert "No such option" not in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stderr + stdout
    assert not (tmp_path / "out").exists()


def test_parameter_options_after_the_command_are_applied(tmp_path: Path, capsys) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("players: 2\ntoken:\n  width_mm: 30\n")
    args = ["--kit", "squadron-leader", "--tin", "altoids", "--params", str(mine)]
    code, stdout, _ = run(["params", *args, "--set", "players=3", "--json"], capsys)
    assert code == 0
    data = json.loads(stdout)
    assert (data["tin"]["name"], data["token"]["width_mm"], data["players"]) == ("altoids", 30, 3)
    code, stdout, _ = run(["list", "-k", "squadron-leader", "-p", str(mine), "--json"], capsys)
    assert code == 0
    assert {row["part"]: row["count"] for row in json.loads(stdout)}["plane_token"] == 2
    code, stdout, _ = run(["tins", "--kit", "squadron-leader"], capsys)
    assert code == 0
    assert "altoids" in stdout


BROKEN_KIT = """
from pathlib import Path
from squadron_cad.kit import Kit
from squadron_cad.params import KitParamsBase

def contents():
    raise RuntimeError("this kit is broken on purpose")

KIT = Kit(name="broken", title="Broken", credit="a test kit", params_model=KitParamsBase,
          defaults=Path(__file__).parent / "default.yaml", contents=contents)
"""


def broken_kit_env(tmp_path: Path) -> dict[str, str]:
    """An installed kit with a bug (its parts fail to load): an internal error to provoke."""
    site = tmp_path / "site"
    (site / "brokenkit").mkdir(parents=True)
    (site / "brokenkit" / "__init__.py").write_text(BROKEN_KIT)
    (site / "brokenkit" / "default.yaml").write_text("players: 2\n")
    info = site / "brokenkit-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenkit\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[squadron_cad.kits]\nbroken = brokenkit:KIT\n")
    return {**os.environ, "PYTHONPATH": str(site)}


@pytest.mark.parametrize(
    "where", ["none", "after the command", "before the command", "before and after"]
)
def test_debug_shows_the_traceback_of_an_internal_error(tmp_path: Path, where: str) -> None:
    """An internal error (a kit with a bug): one line and exit 1, or with --debug, before
    or after the command name, the traceback."""
    command = ["list", "--kit", "broken"]
    args = {
        "none": command,
        "after the command": [*command, "--debug"],
        "before the command": ["--debug", *command],
        "before and after": ["--debug", *command, "--debug"],
    }[where]
    done = cli_process(args, tmp_path, broken_kit_env(tmp_path))
    assert done.stdout == ""
    if where == "none":
        assert done.returncode == 1
        assert done.stderr.startswith("squadron-cad: error: internal error: RuntimeError")
        assert "(rerun with --debug)" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert "Traceback" not in done.stderr
    else:
        assert done.returncode == 1
        assert done.stderr.startswith("Traceback (most recent call last):")
        assert done.stderr.strip().splitlines()[-1].startswith("RuntimeError")
        assert "squadron-cad: error:" not in done.stderr


DEBUG_ERRORS = {  # a quick bad-input error for each command
    **{command: ["--tin", "no-such-tin"] for command in PARAMETER_COMMANDS},
    "tins": ["--kit", "no-such-kit"],
    "previews": ["--out", ""],  # refused while the options are read
    "clean": ["--out", ""],
}


@pytest.mark.parametrize("command", sorted(DEBUG_ERRORS))
def test_debug_after_any_command_raises_instead_of_one_line(
    tmp_path: Path, capsys, command: str
) -> None:
    args = [command, *DEBUG_ERRORS[command]]
    if "--out" in SHARED_BY_COMMAND[command] and "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    code, _, stderr = run(args, capsys)
    assert code == 2
    assert stderr.startswith("squadron-cad: error:")
    with pytest.raises(InputError):  # main() lets it through: Python prints the traceback
        main([*args, "--debug"])
    assert "squadron-cad: error:" not in capsys.readouterr().err


def test_debug_is_taken_where_nothing_fails(capsys) -> None:
    for args in (["kits", "--debug"], ["docs", "--debug", "--help"]):
        code, stdout, stderr = run(args, capsys)
        assert code == 0, stderr
        assert stdout


QUIET_RUNS = [  # commands that succeed quickly: --quiet leaves nothing on stdout or stderr
    ["fit", "--tin", "altoids"],
    ["list"],
    ["params"],
    ["kits"],
    ["tins"],
    ["clean", "--out", "{tmp}"],
]


@pytest.mark.parametrize("args", QUIET_RUNS, ids=[args[0] for args in QUIET_RUNS])
@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_quiet_prints_nothing_when_all_is_well(
    tmp_path: Path, capsys, args: list[str], flag: str
) -> None:
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    code, stdout, stderr = run(args, capsys)
    assert code == 0
    assert stdout + stderr  # said something without --quiet
    code, stdout, stderr = run([*args, flag], capsys)
    assert code == 0, stderr
    assert (stdout, stderr) == ("", "")


QUIET_ERRORS = [  # commands that print, failing quickly: --quiet still prints the error
    (["build", "--tin", "no-such-tin"], 2, "no such tin preset"),
    (["check", "--out", "{tmp}"], 2, "run `squadron-cad build` first"),
    (["previews", "--out", "{tmp}"], 2, "run `squadron-cad build` first"),
    (["bench", "--tin", "no-such-tin"], 2, "no such tin preset"),
    (["paper", "--set", "nope=1"], 2, "unknown key 'nope'"),
    (["fit", "--set", "tin.inner_length_mm=70"], 2, "the tin is too small"),
    (["params", "--set", "players=two"], 2, "players"),
]


@pytest.mark.parametrize(
    ("args", "exit_code", "words"), QUIET_ERRORS, ids=[a[0] for a, _, _ in QUIET_ERRORS]
)
def test_quiet_still_prints_the_error(
    tmp_path: Path, capsys, args: list[str], exit_code: int, words: str
) -> None:
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    code, stdout, stderr = run([*args, "--quiet"], capsys)
    assert code == exit_code
    assert stdout == ""
    assert stderr.startswith("squadron-cad: error:")
    assert words in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_quiet_build_prints_only_the_error(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SQUADRON_OPENSCAD", str(tmp_path / "no-openscad"))
    code, stdout, stderr = run(["build", "--out", str(tmp_path / "o"), "-q"], capsys)
    assert code == 1
    assert stdout == ""
    assert stderr.startswith("squadron-cad: error:")
    assert "OpenSCAD not found" in stderr


def test_quiet_with_json_still_gives_the_json(capsys) -> None:
    code, stdout, _ = run(["fit", "--tin", "v2-box", "--quiet", "--json"], capsys)
    assert code == 0
    assert json.loads(stdout)["pieces"]["plane_token"] == 2


def test_docs_takes_quiet_and_debug(capsys) -> None:
    """docs builds the whole default kit (minutes): here only that it takes the options."""
    code, stdout, stderr = run(["docs", "--quiet", "--debug", "--help"], capsys)
    assert code == 0, stderr
    assert "--quiet" in stdout


def test_an_unknown_backend_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    code, _, stderr = run(["build", "--backend", "fast", "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    refusal = "--backend fast: choose one of auto, cgal, manifold"
    assert stderr.strip() == f"squadron-cad: error: {refusal}"
    assert not (tmp_path / "o").exists()


def test_the_backend_is_part_of_the_up_to_date_key() -> None:
    from squadron_cad import uptodate

    keys = {
        uptodate.build_key("{}", uptodate.options_key(True, True, True, backend))
        for backend in cli.options.BACKENDS
    }
    assert len(keys) == len(cli.options.BACKENDS)


def test_an_in_process_run_gives_the_caller_its_signal_handlers_back(capsys) -> None:
    """A process's own run ignores a Ctrl-C once its work is said (a late one killed the
    exit with SIGINT); a caller in the same process keeps its own handlers."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    code, _, _ = run(["kits"], capsys)
    assert code == 0
    assert {s: signal.getsignal(s) for s in before} == before


def test_an_interrupt_is_reported_by_what_the_folder_holds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for files in ({"stl/a.stl": "one"}, {"stl/a.stl": "two"}):
        before = read_ownership(out)
        staging = Staging(out, "kit")
        for rel, text in files.items():
            (staging.path / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging.path / rel).write_text(text)
        unswapped = (
            f"interrupted; nothing written to {out}"
            if before is None
            else f"interrupted; {out} still holds the previous kit, untouched"
        )
        assert what_an_interrupt_left(out, before) == unswapped
        staging.commit()
        said = what_an_interrupt_left(out, before)
        assert said == f"interrupted after the swap; {out} holds the new kit, whole"


def test_an_interrupt_before_any_folder_is_watched_says_nothing_was_written(
    capsys, monkeypatch
) -> None:
    """A Ctrl-C while the parameters are read: said for any command, not as a kit's
    (the paper command said 'still holds the previous kit')."""

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    # options.Given imports the resolver when it resolves (not to parse): patch it there
    monkeypatch.setattr("squadron_cad.resolve.resolve", interrupted)
    code, _, stderr = run(["paper", "--out", "nowhere"], capsys)
    assert code == 130
    assert stderr == "squadron-cad: error: interrupted before anything was written\n"


LIGHT_PROBE = """
import sys
from squadron_cad.cli import main
for args in (["kits"], ["fit"], ["fit", "--kit", "squadrons"], ["list", "--kit", "space-planes"],
             ["tins"], ["clean", "--out", sys.argv[1]]):
    try:
        main(args)
    except SystemExit as done:
        assert not done.code, (args, done.code)
print("loaded:", sorted(m for m in ("trimesh", "scipy", "manifold3d") if m in sys.modules))
"""


def test_listing_fitting_and_cleaning_never_load_the_meshing_stack(tmp_path: Path) -> None:
    """They answer in 0.3-0.5 s; with trimesh and scipy loaded each took a second."""
    done = subprocess.run(
        [sys.executable, "-c", LIGHT_PROBE, str(tmp_path / "none")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout, done.stdout[-300:]


SWALLOWING_RUN = """
import importlib, os, signal, sys
from squadron_cad import cli

real = importlib.import_module
def swallowing(name, *args, **kwargs):
    try:  # as trimesh's optional loaders do: every exception caught, Ctrl-C too
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        pass
    importlib.import_module = real
    return real(name, *args, **kwargs)

importlib.import_module = swallowing
cli.main(sys.argv[1:])
"""


@pytest.mark.parametrize("command", ["build", "tolerance"])
def test_a_ctrl_c_that_a_library_swallows_still_ends_the_run(tmp_path: Path, command) -> None:
    """A Ctrl-C in the first half second landed in trimesh's imports, which catch it: the
    build then ran to the end and said 'built 14 parts', exit 0."""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWING_RUN, command, "--out", str(out), "--no-previews"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "SQUADRON_OPENSCAD": "/nonexistent/openscad"},
    )
    assert done.returncode == 130, done.stdout + done.stderr
    # where it lands depends on the first import the command asks for (the CLI imports
    # its machinery when it runs, not to parse): before the folder is watched, or after
    assert done.stderr.strip() in (
        "squadron-cad: error: interrupted before anything was written",
        f"squadron-cad: error: interrupted; nothing written to {out}",
    )
    assert not out.exists()

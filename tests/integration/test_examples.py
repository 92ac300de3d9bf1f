"""Every example command a maker is shown runs: the code blocks of the README, the docs
pages and CONTRIBUTING, each command's --help and `make help`. Builds run at draft quality
without slicer or pictures; a block that shows a command's output (`$ command` then its
lines) must match it exactly."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import cli_in_worker, cli_process
from typer.testing import CliRunner

from squadron_cad.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
COMMANDS = (
    "build", "check", "fit", "list", "params", "tins", "previews", "clean", "docs", "bench",
    "tolerance",
)  # fmt: skip
# Examples not run here, and why (each is exercised elsewhere).
NOT_RUN = {
    "make test": "this is the suite itself",
    "make serve": "a server that runs until stopped: the browser tests start it",
    "make bench-web": "timed in a real browser, minutes long",
    "make lint": "the suite's first step (make test runs it)",
    "make setup": "every make target runs it first",
    "bench": "timed by `make bench`, minutes long",
    "docs": "the gallery test redraws the docs and compares them",
    "paper": "the paper tests run it",
    "serve": "a server that runs until stopped: the browser tests start it",
}
MAKE_TARGETS = {"stl": ["build"], "previews": ["previews"], "clean": ["clean"]}
FAST = ["--set", "quality=draft", "--no-previews", "--no-slice"]


@dataclass(frozen=True)
class Example:
    where: str
    command: str
    shown: tuple[str, ...] = ()  # the output the README shows for it, if any


def doc_examples(doc: Path = README) -> list[Example]:
    examples: list[Example] = []
    in_block = False
    current: Example | None = None
    where = doc.relative_to(ROOT).as_posix()
    for line in doc.read_text().splitlines():
        if line.startswith("```"):
            in_block = not in_block
            current = _keep(examples, current)
            continue
        if not in_block:
            continue
        text = line.strip()
        if text.startswith("$ "):
            current = _keep(examples, current)
            current = Example(where, text[2:])
        elif current is not None:
            current = Example(current.where, current.command, (*current.shown, line.rstrip()))
        elif text.startswith(("make ", ".venv/bin/squadron-cad ", "squadron-cad ")):
            examples.append(Example(where, text.split("  #")[0].strip()))
    _keep(examples, current)
    return examples


def _keep(examples: list[Example], current: Example | None) -> None:
    if current is not None:
        examples.append(current)


HELP_EXAMPLE = re.compile(r"(?m)^[ \t]*(?:Example:[ \t]*)?(squadron-cad [^\n]*?)(?:[ \t]{2,}.*)?$")


def help_examples() -> list[Example]:
    """The examples in each command's --help, read in this process (12 interpreter starts
    cost each xdist worker 3 s to collect); the test below compares a real process's."""
    found = []
    for command in (None, *COMMANDS):
        args = ["--help"] if command is None else [command, "--help"]
        done = CliRunner().invoke(app, args, env={"COLUMNS": "200"}, prog_name="squadron-cad")
        assert done.exit_code == 0, done.output
        where = f"{command or 'squadron-cad'} --help"
        found += [Example(where, m.group(1).strip()) for m in HELP_EXAMPLE.finditer(done.output)]
    return found


@pytest.mark.parametrize("command", ["build", None])
def test_the_command_prints_the_examples_read_here(command: str | None) -> None:
    args = ["--help"] if command is None else [command, "--help"]
    printed = run_cli(args, ROOT).stdout
    where = f"{command or 'squadron-cad'} --help"
    shown = [e.command for e in help_examples() if e.where == where]
    assert shown
    assert [m.group(1).strip() for m in HELP_EXAMPLE.finditer(printed)] == shown


def make_help_examples() -> list[Example]:
    text = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "help"], capture_output=True, text=True, check=True
    ).stdout
    found = re.findall(r"ARGS='([^']*)'", text)
    return [Example("make help", f'make stl ARGS="{args}"') for args in found]


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return cli_process(args, cwd, {**os.environ, "COLUMNS": "200"})


def run_in_process(
    args: list[str], cwd: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, capfd
) -> tuple[int, str, str]:
    """An example through the command's own entry point, `main`, in this worker: the same
    parsing and code as the installed command without an interpreter start per example
    (0.9 s for a build: trimesh and scipy). Real processes run the --help test above and
    the fault, install and walkthrough tests."""
    env = {"COLUMNS": "200", "SQUADRON_CACHE": str(cache)}  # the session's render cache
    done = cli_in_worker(args, capfd, monkeypatch, cwd, env)
    return done.returncode, done.stdout, done.stderr


def as_cli(command: str) -> list[str] | None:
    """The squadron-cad arguments an example means, or None for one not run here."""
    if command in NOT_RUN:
        return None
    if command.startswith("make "):
        words = shlex.split(command)
        if words[1] not in MAKE_TARGETS:
            return None
        extra = next((w.split("=", 1)[1] for w in words if w.startswith("ARGS=")), "")
        return [*MAKE_TARGETS[words[1]], *shlex.split(extra)]
    words = shlex.split(command.removeprefix(".venv/bin/"))
    args = words[1:]
    if args and args[0] in NOT_RUN:
        return None
    return args


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A maker's folder: README says to copy the custom tin preset as mytin.yaml."""
    folder = tmp_path_factory.mktemp("maker")
    shutil.copy(ROOT / "params" / "tins" / "custom.yaml", folder / "mytin.yaml")
    return folder


def all_examples() -> list[Example]:
    seen: dict[str, Example] = {}
    shown_in_docs = [e for doc in DOCS for e in doc_examples(doc)]
    for example in shown_in_docs + help_examples() + make_help_examples():
        if example.command not in seen or example.shown:
            seen[example.command] = example
    return sorted(seen.values(), key=lambda e: "build" not in e.command and "stl" not in e.command)


EXAMPLES = all_examples()


def test_examples_were_found() -> None:
    places = {example.where for example in EXAMPLES}
    assert {"README.md", "squadron-cad --help", "make help"} <= places
    assert {"CONTRIBUTING.md", "docs/getting-started.md"} <= places
    assert len(EXAMPLES) >= 12


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.where}: {e.command}" for e in EXAMPLES])
def test_every_example_runs(
    example: Example, workdir: Path, shared_cache: Path, monkeypatch: pytest.MonkeyPatch, capfd
) -> None:
    args = as_cli(example.command)
    if args is None:
        words = shlex.split(example.command.removeprefix(".venv/bin/"))
        reason = NOT_RUN.get(example.command) or NOT_RUN.get(words[1], "not a squadron-cad run")
        pytest.skip(f"{example.command}: {reason}")
    if args and args[0] == "build" and not example.shown:
        args = [*args, *FAST]
    code, stdout, stderr = run_in_process(args, workdir, shared_cache, monkeypatch, capfd)
    output = (stdout + stderr).rstrip("\n").splitlines()
    if example.shown:
        refusal = example.shown[0].startswith("squadron-cad: error:")
        assert code == (2 if refusal else 0), stderr
        assert [line.rstrip() for line in output] == list(example.shown)
    else:
        assert code == 0, f"{example.where}: {example.command}\n{stderr}"

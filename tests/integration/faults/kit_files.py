"""What the fault tests read and run: a kit's files hashed, a build in a process of its own
(`squadron-cad build`, OpenSCAD replaced by a fake that misbehaves on demand), and the
checks that a kit is the previous one, or the new one whole."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from forked_cli import ForkedRun
from helpers import CLI_COMMAND
from helpers import kit_file_hashes as hashes

FAKE = Path(__file__).resolve().parents[2] / "fakes" / "fake_openscad.py"
PARTS = ["plane_token", "range_ruler_1"]


def copy_of(kit: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "out"
    shutil.copytree(kit, copy)
    return copy


def assert_kit_unchanged(out: Path, before: dict[str, str]) -> None:
    assert hashes(out) == before, "the previous kit changed"
    assert_nothing_beside(out)


def assert_nothing_beside(out: Path) -> None:
    beside = sorted(p.name for p in out.parent.iterdir() if p.name != out.name)
    assert beside == [], f"debris beside the kit: {beside}"
    assert not list(out.rglob(".tmp-*")), "a temporary file was left behind"


def cli(
    out: Path, *args: str, mode: str | None = None, fresh: bool = False, **env: str
) -> subprocess.Popen[str] | ForkedRun:
    """`squadron-cad build --out OUT ARGS` in a process of its own, forked from one that
    has its imports done (forked_cli); `fresh`: `python -m squadron_cad` in a new
    interpreter, for a signal that must land while the build still imports."""
    environment = {**os.environ, **env}
    if mode is not None:
        environment.update(fake_env(mode))
    arguments = ["build", "--out", str(out), *args]
    if not fresh:
        return ForkedRun(arguments, environment)
    return subprocess.Popen(
        [*CLI_COMMAND, *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def fake_env(mode: str) -> dict[str, str]:
    """The environment in which a build renders with the fake OpenSCAD, misbehaving as `mode`."""
    return {"SQUADRON_OPENSCAD": str(FAKE), "FAKE_OPENSCAD_MODE": mode}


def only_parts() -> list[str]:
    return [a for part in PARTS for a in ("--only", part)]


def assert_new_kit_whole(out: Path, height_mm: float) -> None:
    """Every file the new kit's record lists, as written; nothing else; nothing beside."""
    record = json.loads((out / ".squadron-cad.json").read_text())
    found = hashes(out)
    found.pop(".squadron-cad.json")
    assert found == record["files"]
    params = json.loads((out / "manifest.json").read_text())["params"]
    assert params["token"]["height_mm"] == height_mm
    assert_nothing_beside(out)

"""A build is all or nothing when OpenSCAD misbehaves (a crash, a hang, a garbage mesh) or
the disk fails it (full, a file size limit, a folder it may not write): the previous kit
is byte-identical, every file hashed, and no staging debris is left beside it."""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import CLI_COMMAND, run_cli, set_env
from kit_files import (
    PARTS,
    assert_kit_unchanged,
    fake_env,
    hashes,
    only_parts,
)

from squadron_cad.errors import ToolError
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.render import atomic, openscad
from squadron_cad.resolve import resolve

# ---- OpenSCAD misbehaving -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("crash", ["OpenSCAD failed", "SIGSEGV"]),
        ("warn", ["OpenSCAD complained", "WARNING: Object may not be a valid 2-manifold"]),
        ("truncated", ["truncated"]),
        ("empty", ["OpenSCAD wrote no mesh"]),
        ("triangle", ["FAIL"]),
        ("nan", ["non-finite"]),
    ],
)
def test_a_failing_openscad_keeps_the_previous_kit(
    out: Path, mode: str, words: list[str], monkeypatch, capsys
) -> None:
    """Run through the command's entry point in this worker (the fake OpenSCAD is a process
    of its own); a real process's Ctrl-C and kills are the interrupt tests'."""
    before = hashes(out)
    set_env(monkeypatch, fake_env(mode))
    code, _, stderr = run_cli(["build", "--out", str(out), *only_parts(), "--no-cache"], capsys)
    assert code == 1, stderr
    assert "Traceback" not in stderr
    for word in words:
        assert word in stderr
    assert_kit_unchanged(out, before)


def test_a_hanging_openscad_is_stopped_by_the_timeout(out: Path, monkeypatch, capsys) -> None:
    before = hashes(out)
    started = time.perf_counter()
    set_env(monkeypatch, fake_env("hang"))
    args = ["build", "--out", str(out), *only_parts(), "--no-cache", "--timeout", "2"]
    code, _, stderr = run_cli(args, capsys)
    assert time.perf_counter() - started < 30
    assert code == 1
    assert "did not finish within 2 s" in stderr
    assert_kit_unchanged(out, before)
    # This build's OpenSCAD only (its files are under out's folder): tests run side by side.
    leftover = subprocess.run(["pgrep", "-f", str(out.parent)], capture_output=True, check=False)
    assert leftover.stdout.strip() == b""


# ---- the disk ------------------------------------------------------------------------------


def test_a_full_disk_keeps_the_previous_kit(out: Path, monkeypatch) -> None:
    before = hashes(out)

    def disk_full(_temp: Path, target: Path) -> None:
        raise ToolError(f"cannot write {target}: {os.strerror(errno.ENOSPC)}")

    monkeypatch.setattr(atomic, "replace_into", disk_full)
    monkeypatch.setattr(openscad, "replace_into", disk_full)
    with pytest.raises(ToolError, match="No space left on device"):
        build(resolve(), BuildOptions(out_dir=out, only=tuple(PARTS), jobs=1, use_cache=False))
    assert_kit_unchanged(out, before)


def _small_file_limit() -> None:
    limit = 20_000  # bytes: the scad files fit, the plane token's STL (72 kB) does not
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_file_size_limit_keeps_the_previous_kit(out: Path) -> None:
    """A real write failure (EFBIG under ulimit -f), not a stand-in."""
    before = hashes(out)
    command = [*CLI_COMMAND, "build", "--out", str(out), "--quiet"]
    done = subprocess.run(
        [*command, *only_parts(), "--no-cache"],
        capture_output=True,
        text=True,
        preexec_fn=_small_file_limit,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert_kit_unchanged(out, before)


ROOT = os.geteuid() == 0
# Root ignores file modes: the build runs as root without the capabilities that override
# them (the checkout stays readable wherever CI clones it, unlike running as nobody).
AS_PLAIN_ROOT = [
    "setpriv",
    "--inh-caps=-dac_override,-dac_read_search,-fowner",
    "--bounding-set=-dac_override,-dac_read_search,-fowner",
]


@pytest.mark.skipif(ROOT and not shutil.which("setpriv"), reason="setpriv (util-linux) missing")
def test_a_read_only_output_folder_is_reported(good_outputs: Path, tmp_path_factory) -> None:
    base = Path(tmp_path_factory.mktemp("readonly"))
    out = base / "out"
    shutil.copytree(good_outputs, out)
    for path in [out, *out.rglob("*")]:
        os.chmod(path, 0o555 if path.is_dir() else 0o444)
    before = hashes(out)
    command = [
        *(AS_PLAIN_ROOT if ROOT else []),
        sys.executable,
        "-m",
        "squadron_cad",
        "build",
        "--out",
        str(out),
        "--quiet",
        *only_parts(),
    ]
    env = {**os.environ, "HOME": str(base)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1, done.stderr
    assert "cannot write" in done.stderr
    assert "Traceback" not in done.stderr
    assert hashes(out) == before

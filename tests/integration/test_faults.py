"""Faults never hurt: after a crash, a hang, a warning, an interrupt or an unwritable
folder, the previous outputs are intact, valid meshes, and no partial file is left."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from squadron_cad.build import BuildOptions, build
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.errors import ToolError
from squadron_cad.render import atomic, openscad
from squadron_cad.resolve import resolve

pytestmark = pytest.mark.integration

FAKE = Path(__file__).resolve().parent.parent / "fakes" / "fake_openscad.py"
PARTS = ["plane_token", "range_ruler_1"]
CHANGE = ["--set", "token.height_mm=4.2"]  # a different source: nothing comes from the cache


@pytest.fixture(scope="module")
def good_outputs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good")
    build(resolve(), BuildOptions(out_dir=out, only=tuple(PARTS), jobs=2))
    return out


@pytest.fixture
def out(good_outputs: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "out"
    shutil.copytree(good_outputs, copy)
    return copy


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def cli(out: Path, *args: str, mode: str = "real", **env: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "SQUADRON_OPENSCAD": str(FAKE), "FAKE_OPENSCAD_MODE": mode}
    environment.update(env)
    command = [sys.executable, "-m", "squadron_cad", "build", "--out", str(out), "--quiet"]
    for part in PARTS:
        command += ["--only", part]
    return subprocess.Popen(
        [*command, *args],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_previous_outputs_intact(out: Path, before: dict[str, bytes]) -> None:
    for name in PARTS:
        path = out / "stl" / f"{name}.stl"
        assert path.read_bytes() == before[f"stl/{name}.stl"], f"{name}.stl changed"
        assert load_mesh(path).is_watertight
    assert not list(out.rglob(".tmp-*")), "a temporary file was left behind"
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["parts"]:
        assert (out / entry["file"]).is_file()


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("crash", ["OpenSCAD failed", "SIGSEGV"]),
        ("warn", ["OpenSCAD complained", "WARNING: Object may not be a valid 2-manifold"]),
        ("truncated", ["truncated"]),
    ],
)
def test_a_failing_openscad_keeps_the_previous_outputs(
    out: Path, mode: str, words: list[str]
) -> None:
    before = snapshot(out)
    run = cli(out, *CHANGE, "--no-cache", mode=mode)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 1
    assert stderr.count("\n") == 1, stderr
    assert any(part in stderr for part in PARTS)
    for word in words:
        assert word in stderr
    assert_previous_outputs_intact(out, before)


def test_a_hanging_openscad_is_stopped_by_the_timeout(out: Path) -> None:
    before = snapshot(out)
    started = time.perf_counter()
    run = cli(out, *CHANGE, "--timeout", "2", mode="hang")
    _, stderr = run.communicate(timeout=60)
    assert time.perf_counter() - started < 30
    assert run.returncode == 1
    assert "did not finish within 2 s" in stderr
    assert_previous_outputs_intact(out, before)
    leftover = subprocess.run(["pgrep", "-f", str(FAKE)], capture_output=True, check=False)
    assert leftover.stdout.strip() == b""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_build_keeps_the_previous_outputs(out: Path, signum: int) -> None:
    before = snapshot(out)
    run = cli(out, *CHANGE, mode="slow", FAKE_OPENSCAD_DELAY="20")
    time.sleep(3)  # imports done, renders under way
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130
    assert "interrupted; the previous outputs are intact" in stderr
    assert "Traceback" not in stderr
    assert_previous_outputs_intact(out, before)


def test_a_full_disk_keeps_the_previous_outputs(out: Path, monkeypatch) -> None:
    before = snapshot(out)

    def disk_full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    failing = _raising(atomic.replace_into, disk_full)
    monkeypatch.setattr(atomic, "replace_into", failing)
    monkeypatch.setattr(openscad, "replace_into", failing)
    with pytest.raises(ToolError, match="No space left on device"):
        build(
            resolve(overrides=["token.height_mm=4.3"]),
            BuildOptions(out_dir=out, only=tuple(PARTS), jobs=1, use_cache=False),
        )
    assert_previous_outputs_intact(out, before)


def _raising(_original, failure):
    def replace(_temp: Path, target: Path) -> None:
        try:
            failure()
        except OSError as error:
            raise ToolError(f"cannot write {target}: {error.strerror}") from error

    return replace


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
    before = snapshot(out)
    command = [
        *(AS_PLAIN_ROOT if ROOT else []),
        sys.executable,
        "-m",
        "squadron_cad",
        "build",
        "--out",
        str(out),
        "--quiet",
        "--only",
        "plane_token",
        *CHANGE,
    ]
    env = {**os.environ, "HOME": str(base)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1, done.stderr
    assert "cannot write" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(out) == before

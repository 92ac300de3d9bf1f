"""An output folder that is a mount point (a tmpfs, a USB stick's root, a Docker bind
mount) builds like any other: atomically, nothing left beside it or inside it; and a full
disk on a first build is said in one line and leaves nothing.

Each case runs the command line in a private mount namespace (`unshare -m`, as root), so
that the mounts are the test's alone and vanish with it; what a tmpfs held is copied out
before the namespace ends.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import CLI_COMMAND

from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

COMMAND = shlex.join(CLI_COMMAND)
QUICK = "--no-previews --no-slice --quiet"


def _namespaces_missing() -> str | None:
    """Why mount namespaces cannot be used here, or None."""
    if os.geteuid() != 0:
        return "mounting a tmpfs or a bind mount needs root"
    if shutil.which("unshare") is None:
        return "util-linux's unshare is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs tmpfs /mnt || mount -t tmpfs tmpfs /tmp"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"no mount namespace here: {probe.stderr.strip()}"
    return None


MISSING = _namespaces_missing()
needs_namespaces = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


def in_namespace(work: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a shell script in a mount namespace of its own, in work."""
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", f"set -u\nSC={shlex.quote(COMMAND)}\n{script}"],
        cwd=work,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
        check=False,
    )


def codes(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("rc=")]


def assert_whole_output(folder: Path) -> dict[str, str]:
    """The folder holds exactly what its record lists, each file as recorded, and nothing
    of a run's (no staging folder, no journal)."""
    record = json.loads((folder / ".squadron-cad.json").read_text())
    for rel, sha in record["files"].items():
        assert hashlib.sha256((folder / rel).read_bytes()).hexdigest() == sha, rel
    present = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not p.relative_to(folder).as_posix().startswith(".cache/")
    }
    assert present - {".gitkeep"} == {*record["files"], ".squadron-cad.json"}
    assert not [p for p in folder.iterdir() if "staging" in p.name]
    return record["files"]


@needs_namespaces
def test_a_tmpfs_mount_point_builds_and_rebuilds_atomically(tmp_path: Path) -> None:
    """Everything rendered, then 'internal error: OSError: [Errno 18] Invalid cross-device
    link' (exit 1), and a staging folder holding the whole kit was left beside the mount,
    .cache inside it. `paper` failed the same way."""
    script = f"""
mkdir m p copy copy-paper
mount -t tmpfs tmpfs m && mount -t tmpfs tmpfs p
mkdir m/lost+found
$SC build --out m --only stat_dial_clip {QUICK}; echo rc=$?
echo "mine" > m/.gitkeep
$SC build --out m --only stat_dial_clip --only plane_token {QUICK}; echo rc=$?
$SC paper --out p --no-previews --quiet; echo rc=$?
ls -A m > in-m.txt
cp -a m/. copy/ && cp -a p/. copy-paper/
"""
    done = in_namespace(tmp_path, script)
    assert codes(done) == ["rc=0"] * 3, done.stderr
    files = assert_whole_output(tmp_path / "copy")
    assert {"stl/stat_dial_clip.stl", "stl/plane_token.stl", "manifest.json"} <= set(files)
    assert (tmp_path / "copy" / ".cache" / "CACHEDIR.TAG").is_file()  # kept inside
    assert (tmp_path / "copy" / ".gitkeep").read_text() == "mine\n"  # carried, untouched
    assert (tmp_path / "copy" / "lost+found").is_dir()  # an ext4 stick's: not the maker's
    assert_whole_output(tmp_path / "copy-paper")
    beside = sorted(p.name for p in tmp_path.iterdir())
    assert beside == ["copy", "copy-paper", "in-m.txt", "m", "p"], "debris beside the mounts"


@needs_namespaces
def test_a_docker_style_bind_mount_builds(tmp_path: Path, shared_cache: Path) -> None:
    """`docker run -v host:/app/out`: the output folder is a bind mount of a folder on the
    same filesystem, which a rename cannot cross all the same. A kit is there already:
    the rebuild swaps its entries inside the mount."""
    host = tmp_path / "host"
    options = BuildOptions(
        out_dir=host, only=("stat_dial_clip",), previews=False, slice=False, cache_dir=shared_cache
    )
    build(resolve(), options)
    script = f"""
mkdir -p app/out
mount --bind host app/out
$SC build --out app/out --only stat_dial_clip --only plane_token {QUICK}; echo rc=$?
ls -A app > in-app.txt
"""
    done = in_namespace(tmp_path, script, SQUADRON_CACHE=str(shared_cache))
    assert codes(done) == ["rc=0"], done.stderr
    files = assert_whole_output(host)
    assert {"stl/stat_dial_clip.stl", "stl/plane_token.stl"} <= set(files)
    assert (tmp_path / "in-app.txt").read_text().split() == ["out"]


@needs_namespaces
def test_a_full_disk_on_a_first_build_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """'internal error: OSError: [Errno 28] No space left on device', and a staging folder
    left on the full disk."""
    script = f"""
mkdir small
mount -t tmpfs -o size=64k tmpfs small
dd if=/dev/zero of=small/fill bs=1k 2>/dev/null
$SC build --out small/kit --only stat_dial_clip {QUICK}; echo rc=$?
ls -A small > in-small.txt
"""
    done = in_namespace(tmp_path, script)
    assert codes(done) == ["rc=1"], done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "No space left on device" in lines[0]
    assert "internal error" not in lines[0]
    assert (tmp_path / "in-small.txt").read_text().split() == ["fill"]

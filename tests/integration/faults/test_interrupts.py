"""A build interrupted at any stage (Ctrl-C, SIGTERM, SIGKILL) leaves the previous kit
byte-identical, or the new one whole, and no process or temporary folder behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import CLI_COMMAND, run_cli
from kit_files import (
    assert_kit_unchanged,
    assert_new_kit_whole,
    cli,
    copy_of,
    hashes,
    only_parts,
)

# ---- interrupted at each stage of a real build ---------------------------------------------


def interrupt_at(
    out: Path, stage: str, signum: int, *args: str, fresh: bool = False, **env: str
) -> tuple[int, str, list[str]]:
    """Start a real build and signal it when it reports `stage` (its --json events)."""
    run = cli(out, "--json", *args, fresh=fresh, **env)
    assert run.stdout is not None
    seen = []
    for line in run.stdout:
        event = json.loads(line)
        seen.append(event.get("part", event.get("event", "")))
        if event.get("part") == stage:
            run.send_signal(signum)
            break
    _, stderr = run.communicate(timeout=120)
    return run.returncode, stderr, seen


# The first stages' builds start in a fresh interpreter: their signal lands while the
# build's machinery is still being imported beside the renders (squadron_cad.pipeline.
# machinery). The later stages' are forked with their imports done (forked_cli).
FRESH_STAGES = ("scad", "box")


@pytest.mark.parametrize(
    ("stage", "args"),
    [
        ("scad", ["--no-cache"]),
        ("box", ["--no-cache"]),  # a render under way
        ("kit checks", []),
        # a slicer setting of its own: the renders come from the cache, PrusaSlicer runs
        ("slicer", ["--set", "slicer.infill_percent=16"]),
        ("layout", []),
        ("bom", []),
        ("plates", []),
        ("previews", []),
        ("swap", []),
    ],
)
def test_ctrl_c_at_any_stage_keeps_the_previous_kit(
    whole_kit: Path, its_cache: dict[str, str], tmp_path: Path, stage: str, args: list[str]
) -> None:
    out = copy_of(whole_kit, tmp_path)
    before = hashes(out)
    changed = ["--set", "quality=draft", "--set", "token.height_mm=4.4"]
    fresh = stage in FRESH_STAGES
    code, stderr, seen = interrupt_at(
        out, stage, signal.SIGINT, *changed, *args, fresh=fresh, **its_cache
    )
    assert stage in seen
    assert "Traceback" not in stderr, stderr
    # Nothing it started goes on working on its files (renders, slicers, pictures).
    left = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, check=False)
    assert left.stdout.strip() == b""
    # With every stage's result in the session's cache, the rest of the build can take
    # less than the signal's trip on a loaded machine: it lands after the swap (exit 0 when
    # the run was over, 130 if it was still saying so). Either way one kit, whole.
    if code == 0 or "after the swap" in stderr:
        assert code in (0, 130), stderr
        assert_new_kit_whole(out, height_mm=4.4)
        return
    assert code == 130, stderr
    assert "still holds the previous kit" in stderr
    assert_kit_unchanged(out, before)


def test_sigterm_during_renders_keeps_the_previous_kit(out: Path) -> None:
    before = hashes(out)
    run = cli(out, *only_parts(), "--no-cache", "--json", mode="slow", FAKE_OPENSCAD_DELAY="20")
    assert run.stdout is not None
    for line in run.stdout:  # renders under way
        if json.loads(line).get("part") == "render":
            break
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130
    assert "Traceback" not in stderr
    assert_kit_unchanged(out, before)


def test_a_killed_build_leaves_staging_that_the_next_run_removes(out: Path, capsys) -> None:
    before = hashes(out)
    run = cli(out, *only_parts(), "--no-cache", "--json", mode="slow", FAKE_OPENSCAD_DELAY="20")
    assert run.stdout is not None
    for line in run.stdout:  # renders under way: the staging folder exists
        if json.loads(line).get("part") == "render":
            break
    run.kill()  # SIGKILL: no cleanup can run
    run.communicate(timeout=30)
    subprocess.run(["pkill", "-f", str(out.parent)], check=False)  # this build's only
    assert hashes(out) == before
    assert [p for p in out.parent.iterdir() if p.name.startswith(".out.staging-")]
    code, _, stderr = run_cli(["build", "--out", str(out), *only_parts(), "--quiet"], capsys)
    assert code == 0, stderr  # the next run, in this worker: a process's start is not tested
    assert_kit_unchanged(out, hashes(out))


def _running(pid: int) -> bool:
    """Alive and not a zombie (a container's first process may never reap one)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


SLOW_SLICER = """#!/bin/sh
case "$1" in --help) echo "PrusaSlicer-2.5.0+UNKNOWN based on Slic3r"; exit 0;; esac
echo $$ >> "$FAKE_SLICER_PIDS"
exec sleep 120
"""


def test_a_killed_build_takes_its_slicer_and_temporary_folders_with_it(tmp_path: Path) -> None:
    """PrusaSlicer ran on after a build killed outright, and its squadron-slice-* folder
    (squadron-batch-*, squadron-preview-* too) stayed in $TMPDIR with nothing to clean it."""
    slicer = tmp_path / "prusa-slicer"
    slicer.write_text(SLOW_SLICER)
    slicer.chmod(0o755)
    pids, temp = tmp_path / "slicer-pids", tmp_path / "tmp"
    temp.mkdir()
    env = {"SQUADRON_CAD_SLICER": str(slicer), "FAKE_SLICER_PIDS": str(pids), "TMPDIR": str(temp)}
    args = ["--only", "stat_dial_clip", "--no-previews", "--cache-dir", str(tmp_path / "c")]
    run = cli(tmp_path / "kit", *args, "--quiet", **env)
    deadline = time.monotonic() + 120
    while not pids.is_file() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = [int(pid) for pid in pids.read_text().split()] if pids.is_file() else []
    run.kill()
    run.communicate(timeout=30)
    try:
        assert started, "the build started no slicer"
        time.sleep(1.0)
        assert not [pid for pid in started if _running(pid)], "the slicer outlived the build"
    finally:
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    left = list(temp.iterdir())
    for folder in left:  # a killed run's: a run that just started is left alone a moment
        os.utime(folder, (0, 0))
    again = subprocess.run(
        [*CLI_COMMAND, "kits"],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert list(temp.iterdir()) == [], f"left in $TMPDIR: {[p.name for p in left]}"

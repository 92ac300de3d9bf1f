"""A run's children and temporary folders end with it, even when it is killed outright.

SIGKILL skips every cleanup: OpenSCAD, node and PrusaSlicer (each in a session of its own,
or simply orphaned) rendered and sliced on, and the temporary folders they worked in stayed
in $TMPDIR. Children are started under util-linux's setpriv --pdeathsig, so the kernel
kills them when the thread that started them ends; each run keeps its temporary folders in
one folder of its own, locked while it lives, and the next run removes those whose lock
is free (their run is gone).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from squadron_cad.locks import release, try_lock, unless_held

RUN_PREFIX = "squadron-cad-run-"
SETTLE_S = 10.0


def tied(command: list[str]) -> list[str]:
    """command, run so that it dies with the thread that starts it. A command that cannot
    be found is left as it is, so that starting it fails as it always did."""
    if not command or shutil.which(command[0]) is None:
        return command
    return [*_pdeathsig(), *command]


@functools.cache
def _pdeathsig() -> list[str]:
    """setpriv's wrapper, when it has --pdeathsig (not busybox's, nor util-linux < 2.33)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    wrapper = [setpriv, "--pdeathsig", "KILL", "--"]
    try:
        works = subprocess.run([*wrapper, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        works = False
    return wrapper if works else []


@contextlib.contextmanager
def run_temporaries() -> Iterator[Path | None]:
    """Every temporary folder of this run inside one folder of its own (tempfile's
    default for the run), removed at its end; a killed run's is removed by the next."""
    base = Path(tempfile.gettempdir())
    remove_stale_runs(base)
    try:
        folder = Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{os.getpid()}-", dir=base))
    except OSError:  # no room, or no right: temporaries go where they always went
        yield None
        return
    held = try_lock(folder)
    previous = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = previous
        shutil.rmtree(folder, ignore_errors=True)
        release(held)


def remove_stale_runs(base: Path) -> list[Path]:
    """This user's run folders in base whose run is gone (their lock is free)."""
    removed = []
    for folder in base.glob(f"{RUN_PREFIX}*"):
        try:
            info = folder.lstat()
        except OSError:
            continue
        # A folder made a moment ago may not be locked yet: its run is just starting.
        young = time.time() - info.st_mtime < SETTLE_S
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or young:
            continue
        with unless_held(folder) as free:
            if free:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed

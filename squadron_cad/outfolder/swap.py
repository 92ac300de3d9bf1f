"""Putting a staged output in place, and taking the previous one away.

Beside the output folder (the usual case) the two folders' names are exchanged in one
atomic step. An output folder that is a mount point (a tmpfs, a USB stick, a Docker bind
mount) cannot be renamed, so its staging folder lives inside it and the swap exchanges
its entries one by one, the ownership record last. Before the first step a journal lists
each step with the identity (device, inode) of what it moves, so that every step can tell
whether it is done: a swap cut short by SIGKILL or a power cut is completed by the next
run from the journal. Ctrl-C and SIGTERM wait for the swap (squadron_cad.outfolder.staging).

Either way the previous output then sits in a hidden folder, and whatever in it the tool
did not write as it is (a file the maker saved or changed during the run) goes back into
the output folder, never deleted: at its own name when that is free, else beside the new
file as NAME.edited-STAMP. Each is said on stderr.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from squadron_cad.errors import ToolError
from squadron_cad.outfolder.record import (
    CACHE_NAME,
    INTERNALS,
    RECORD_NAME,
    STAGING_TOKEN,
    SWAP_JOURNAL,
    Ownership,
    edited_files,
    is_our_cache,
    read_ownership,
)
from squadron_cad.outfolder.removal import remove_owned
from squadron_cad.render.atomic import DIR_MODE, write_json

_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100
ASIDE = "-old"  # where _exchange parks a name when the filesystem cannot exchange two


@functools.cache
def _libc() -> ctypes.CDLL:
    """Looked up once: find_library runs ldconfig, which would widen the swap's window."""
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def exchange(a: Path, b: Path) -> None:
    """Swap two names in one step (renameat2 RENAME_EXCHANGE); two renames where the
    filesystem cannot, leaving the window of one missing name as small as it can be."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is not None:
        result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
        if result == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise ToolError(f"cannot swap {a} into {b}: {os.strerror(code)}")
    aside = a.with_name(a.name + ASIDE)
    os.rename(b, aside)
    os.rename(a, b)
    os.rename(aside, a)


# ---- beside: the previous output, swapped out whole -------------------------------------


def finish_old(old: Path, out: Path) -> None:
    """The previous output, now in the hidden folder `old`: what the maker saved or changed
    in it goes back into out; the rest, the tool's, is removed, then the folder."""
    rescue(old, out, read_ownership(old))
    remove_owned(old)
    with contextlib.suppress(OSError):
        old.rmdir()


# ---- inside a mount point: entry by entry, with a journal -------------------------------


def swap_in_place(staging: Path, out: Path, previous: Ownership | None) -> None:
    """Exchange the staged entries with the previous output's, inside out; the staging
    folder ends up holding the previous output, which finish() takes away."""
    steps = _plan(staging, out, previous)
    write_json(staging / SWAP_JOURNAL, {"out": str(out), "steps": steps})
    (staging / STAGING_TOKEN).unlink()
    apply(staging, out, steps)
    finish(staging, out)


def _plan(staging: Path, out: Path, previous: Ownership | None) -> list[dict[str, Any]]:
    """Each new entry to move in (the record last), each old one to move out, with the
    identity of what moves."""
    new = sorted(e.name for e in staging.iterdir() if e.name not in INTERNALS)
    old_only = sorted(
        name
        for name in (previous.top_names if previous is not None else set())
        if name not in new and name != CACHE_NAME and _lexists(out / name)
    )
    steps = [{"name": name, "in": _identity(staging / name)} for name in new]
    steps += [{"name": name, "out": _identity(out / name)} for name in old_only]
    return [*steps, {"name": RECORD_NAME, "in": _identity(staging / RECORD_NAME)}]


def apply(staging: Path, out: Path, steps: list[dict[str, Any]]) -> None:
    """Run each step not done yet (a step is one rename or exchange: done or not)."""
    for step in steps:
        name = step["name"]
        here, there = out / name, staging / name
        if "out" in step:
            if _is(here, step["out"]):
                os.rename(here, there)
            continue
        _unpark(there)
        if _is(here, step["in"]) or not _is(there, step["in"]):
            continue
        if _lexists(here):
            exchange(there, here)
        else:
            os.rename(there, here)


def _unpark(there: Path) -> None:
    """An exchange by two renames cut short: the old entry parked under NAME-old goes back
    to NAME (in the staging folder), where its swap leaves it."""
    parked = there.with_name(there.name + ASIDE)
    if _lexists(parked) and not _lexists(there):
        os.rename(parked, there)


def finish(staging: Path, out: Path) -> None:
    """After the steps: the previous output, now in the staging folder, is taken away."""
    rescue(staging, out, read_ownership(staging))
    remove_owned(staging)
    with contextlib.suppress(FileNotFoundError):
        (staging / SWAP_JOURNAL).unlink()  # last: until here, a rerun completes the swap
    with contextlib.suppress(OSError):
        staging.rmdir()


def roll_forward(staging: Path, out: Path) -> None:
    """Complete a swap its process did not finish (killed): the journal says how."""
    try:
        journal = json.loads((staging / SWAP_JOURNAL).read_text())
        steps = list(journal["steps"])
    except (OSError, ValueError, KeyError, TypeError):
        return  # not a journal of ours: left as it is
    apply(staging, out, steps)
    finish(staging, out)


def _identity(path: Path) -> list[int]:
    stat = os.lstat(path)
    return [stat.st_dev, stat.st_ino]


def _is(path: Path, identity: list[int]) -> bool:
    try:
        return _identity(path) == list(identity)
    except OSError:
        return False


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)


# ---- what the maker saved or changed during a run goes back ----------------------------


def rescue(old: Path, out: Path, owned: Ownership | None) -> list[str]:
    """Move back into out everything in the previous output `old` that the tool did not
    write as it is: files (and folders) the maker saved there during the run, and listed
    files changed since written. Returns where each went (relative to out)."""
    unchanged = set(owned.files) - set(edited_files(old, owned)) if owned else set()
    made = owned.tool_folders if owned else frozenset()
    placed: list[str] = []

    def walk(rel_dir: str) -> None:
        for entry in sorted((old / rel_dir).iterdir() if rel_dir else old.iterdir()):
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if not rel_dir and (entry.name in INTERNALS or _ours_at_top(entry)):
                continue
            real_folder = entry.is_dir() and not entry.is_symlink()
            if real_folder and rel in made:
                walk(rel)
            elif not (rel in unchanged and entry.is_file() and not entry.is_symlink()):
                listed = owned is not None and rel in owned.files
                placed.append(_move_back(entry, out, rel, changed=listed))

    if old.is_dir():
        walk("")
    return [rel for rel in placed if rel]


def _ours_at_top(entry: Path) -> bool:
    """The tagged cache, taken away with the previous output."""
    return entry.name == CACHE_NAME and is_our_cache(entry) and not entry.is_symlink()


def _move_back(entry: Path, out: Path, rel: str, *, changed: bool) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = out / rel
    if _lexists(target) or not _folder_for(target.parent, out):
        target = _free_name(out / f"{rel}.edited-{stamp}")
        if not _folder_for(target.parent, out):  # a file of the new output in the way
            target = _free_name(out / f"{rel.replace('/', '_')}.edited-{stamp}")
    try:
        os.rename(entry, target)
    except OSError as error:  # said, and left where it is: never lost, never a failed swap
        _say(f"{rel} could not go back into {out} ({error.strerror}); it is in {entry}")
        return ""
    placed = target.relative_to(out).as_posix()
    if changed:
        _say(f"your changed {rel} is kept as {placed} (the new output has its own {rel})")
    elif placed == rel:
        _say(f"{rel} was saved into {out} during the run: left there (not the tool's)")
    else:
        _say(f"{rel} was saved into {out} during the run: kept as {placed}")
    return placed


def _say(line: str) -> None:
    print(f"squadron-cad: note: {line}", file=sys.stderr)


def _folder_for(parent: Path, out: Path) -> bool:
    """Make parent (inside out) if it is missing; False where a file or link is in the way."""
    if parent.is_dir() and not parent.is_symlink():
        return True
    if _lexists(parent):
        return False
    if parent != out and not _folder_for(parent.parent, out):
        return False
    with contextlib.suppress(OSError):  # no room: the stray stays where it is, said
        parent.mkdir(mode=DIR_MODE)
    return parent.is_dir()


def _free_name(path: Path) -> Path:
    candidate, number = path, 1
    while _lexists(candidate):
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


# ---- what a killed run left ---------------------------------------------------------------


def finish_stale(folder: Path, out: Path) -> None:
    """A staging folder whose process is gone: a swap under way is completed; a staging
    never swapped in is removed; a previous output being taken away is taken away."""
    if (folder / SWAP_JOURNAL).is_file():
        roll_forward(folder, out)
    elif (folder / STAGING_TOKEN).is_file():
        shutil.rmtree(folder, ignore_errors=True)
    elif read_ownership(folder) is not None:
        finish_old(folder, out)
    else:  # nothing says whose its entries are: only an empty one goes
        with contextlib.suppress(OSError):
            folder.rmdir()

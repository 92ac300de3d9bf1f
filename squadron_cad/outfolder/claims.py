"""Runs into one output folder exclude each other.

A run that writes an output folder first claims it: under a short lock on the folder that
holds its staging folder, it removes what killed runs left, checks that no live run writes
there (or in a folder inside it, or one holding it), then makes its staging folder and
holds an flock on it until its swap is done. A live run is one whose staging folder is
locked; a killed one's is free (the kernel drops a dead process's locks), whatever its pid.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from squadron_cad.errors import InputError, ToolError
from squadron_cad.locks import first_lock, release, try_lock, unless_held
from squadron_cad.outfolder.record import INSIDE_PREFIX, STAGING_NAME, STAGING_TOKEN
from squadron_cad.outfolder.swap import finish_stale
from squadron_cad.render.atomic import DIR_MODE

_OURS: set[Path] = set()  # this process's staging folders: never "another run"


def beside_prefix(out: Path) -> str:
    return f".{out.name}.staging-{os.getpid()}-"


def inside_prefix() -> str:
    return f"{INSIDE_PREFIX}{os.getpid()}-"


def stage_inside(out: Path) -> bool:
    """Whether out's staging folder must be inside it: out is a mount point (nothing can be
    renamed across into it, nor can it be renamed), or the folder holding it is read-only."""
    if not out.is_dir():
        return False
    return is_mount_point(out) or not os.access(out.parent, os.W_OK)


def is_mount_point(folder: Path) -> bool:
    """A mount point, bind mounts of a folder on the same filesystem included (those
    os.path.ismount cannot see, and across which rename fails all the same)."""
    if os.path.ismount(folder):
        return True
    real = os.path.realpath(folder)
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return False
    return any(_unescape(line.split(" ")[4]) == real for line in lines if line.count(" ") > 4)


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    return field.encode().decode("unicode_escape").encode("latin-1").decode(errors="replace")


def staging_folders(out: Path) -> list[tuple[Path, Path]]:
    """Staging folders that write out or a folder inside it, each with the folder it
    writes: beside out, inside it (a mount point's), and beside each folder in it."""
    found = [(f, out) for f in _glob(out.parent, f".{glob.escape(out.name)}.staging-*")]
    found += [(f, out) for f in _glob(out, f"{INSIDE_PREFIX}*")]
    for folder in _glob(out, ".*.staging-*"):
        name = folder.name[1:].rsplit(".staging-", 1)[0]
        found.append((folder, out / name))
    return [(folder, owner) for folder, owner in found if STAGING_NAME.match(folder.name)]


def _holding(out: Path) -> list[tuple[Path, Path]]:
    """Staging folders of runs into a folder that holds out."""
    found = []
    for folder in out.parents:
        if folder.parent == folder:
            break
        found += [
            (f, folder) for f in _glob(folder.parent, f".{glob.escape(folder.name)}.staging-*")
        ]
        found += [(f, folder) for f in _glob(folder, f"{INSIDE_PREFIX}*")]
    return found


def _glob(folder: Path, pattern: str) -> list[Path]:
    try:
        return [p for p in folder.glob(pattern) if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


@dataclass(frozen=True)
class Busy:
    """Another live run writing where this one would."""

    pid: str
    command: str
    where: Path

    def message(self, out: Path) -> str:
        there = "there" if self.where == out else f"in {self.where}"
        return (
            f"--out {out}: busy: another squadron-cad run (pid {self.pid}: {self.command}) is "
            f"writing {there}; wait for it to end, or choose another folder"
        )


def busy_with(out: Path) -> Busy | None:
    """The live run writing out, a folder in it or one holding it, if any."""
    for folder, owner in [*staging_folders(out), *_holding(out)]:
        if folder in _OURS:
            continue
        with unless_held(folder) as free:
            if free or not folder.exists():  # its run ended: swapped in a moment ago
                continue
        return _who(folder, owner)
    return None


def _who(folder: Path, owner: Path) -> Busy:
    try:
        pid, command = (folder / STAGING_TOKEN).read_text().split("\n", 1)
    except (OSError, ValueError):
        matched = STAGING_NAME.match(folder.name)
        pid, command = (matched.group(1) if matched else "?"), "squadron-cad"
    return Busy(pid.strip(), command.strip() or "squadron-cad", owner)


def remove_stale(out: Path) -> list[Path]:
    """What killed runs left for out (and folders in it): a swap under way is completed,
    a staging folder removed. Folders a live run holds are left alone."""
    removed = []
    for folder, owner in staging_folders(out):
        if folder in _OURS:
            continue
        with unless_held(folder) as free:
            if free:
                finish_stale(folder, owner)
                removed.append(folder)
    return removed


def remove_stale_staging(out: Path) -> list[Path]:
    """remove_stale, taking turns with runs that are making their staging folder."""
    with anchor_lock(out):
        return remove_stale(out)


def anchor_lock(out: Path) -> contextlib.AbstractContextManager[None]:
    """The short lock under which staging folders of out are made and swapped: on the
    folder holding out, or on out itself when that cannot be opened."""
    return first_lock(out.parent, out)


@dataclass
class Claim:
    """A staging folder this run holds (its flock) until released."""

    path: Path
    fd: int | None
    inside: bool

    def release(self) -> None:
        release(self.fd)
        self.fd = None
        _OURS.discard(self.path)


def claim(out: Path, inside: bool) -> Claim:
    """Make this run's staging folder for out, refused in one line while another run
    writes there; what killed runs left is cleaned first."""
    where = out if inside else out.parent
    with anchor_lock(out):
        remove_stale(out)
        other = busy_with(out)
        if other is not None:
            raise InputError(other.message(out))
        prefix = inside_prefix() if inside else beside_prefix(out)
        try:
            path = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
        except OSError as error:
            raise ToolError(f"cannot write in {where}: {error.strerror}") from error
        made = Claim(path, try_lock(path), inside)
        _OURS.add(path)
        try:
            os.chmod(path, DIR_MODE)
            (path / STAGING_TOKEN).write_text(f"{os.getpid()}\n{_command()}\n")
        except OSError as error:
            made.release()
            shutil.rmtree(path, ignore_errors=True)
            raise ToolError(f"cannot write in {where}: {error.strerror}") from error
    return made


def _command() -> str:
    """How this run was started, for another run's "busy" line."""
    words = shlex.join(["squadron-cad", *sys.argv[1:]])
    return words if len(words) <= 120 else words[:117] + "..."

"""Staging: an output is written aside, then swapped into place whole."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from squadron_cad.errors import ToolError
from squadron_cad.interrupts import interrupts_deferred
from squadron_cad.locks import release, try_lock
from squadron_cad.outfolder.claims import anchor_lock, claim, stage_inside
from squadron_cad.outfolder.folders import forget_look, recheck
from squadron_cad.outfolder.record import (
    CACHE_NAME,
    KEEP_NAMES,
    RECORD_NAME,
    STAGING_TOKEN,
    Ownership,
    folders_made,
    hash_files,
    is_our_cache,
    read_ownership,
)
from squadron_cad.outfolder.removal import remove_owned
from squadron_cad.outfolder.swap import exchange, finish_old, swap_in_place
from squadron_cad.render.atomic import DIR_MODE, write_json

# A write that fails for want of room or rights is the maker's to mend, said in one line.
DISK_ERRORS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}
)


class Staging:
    """A folder to build into (beside `out`, or inside it when it is a mount point);
    commit() swaps it in, abort() removes it. It claims `out` (squadron_cad.outfolder.claims)
    from its making to the end of the swap: another run into `out` is refused as busy."""

    def __init__(self, out: Path, kind: str) -> None:
        self.out = out
        self.kind = kind
        inside = stage_inside(out)
        if not inside:
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ToolError(f"cannot make {out.parent}: {error.strerror}") from error
        previous = read_ownership(out) if out.is_dir() else None
        # The tool makes the folder when it is new, and the record carries that on.
        self.made_folder = not out.exists() or (previous is not None and previous.made_folder)
        self.claim = claim(out, inside)
        self.path = self.claim.path
        try:
            recheck(out, kind)
        except BaseException:
            self.abort()
            raise

    def seed(self, rels: Iterable[str]) -> None:
        """Copy files of the current kit in (a copy: the kit in place is never touched)."""
        for rel in rels:
            source = self.out / rel
            if source.is_file():
                target = self.path / rel
                try:
                    target.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
                    shutil.copyfile(source, target)
                    os.chmod(target, os.stat(source).st_mode & 0o777)
                except OSError as error:
                    raise ToolError(
                        f"cannot copy {rel} of the kit in {self.out}: {error.strerror}"
                    ) from error

    def commit(self) -> Ownership:
        """Record what is staged, then swap it in for the previous output, atomically. A
        Ctrl-C or SIGTERM from the record's writing to the previous output's removal waits
        for the end (it would leave a swap half done, or the previous output beside)."""
        with anchor_lock(self.out), interrupts_deferred():  # runs take turns to swap
            previous = read_ownership(self.out) if self.out.is_dir() else None
            files = hash_files(self.path)
            owned = Ownership(self.kind, files, folders_made(self.path), self.made_folder)
            write_json(self.path / RECORD_NAME, owned.as_dict())
            if self.claim.inside:
                swap_in_place(self.path, self.out, previous)
            else:
                self._swap_beside()
            self.claim.release()
        forget_look(self.out)
        return owned

    def _swap_beside(self) -> None:
        self._carry_over()
        if not self.out.exists():
            (self.path / STAGING_TOKEN).unlink()
            os.rename(self.path, self.out)
            return
        held = try_lock(self.out)  # the previous output: busy to others until it is gone
        try:
            (self.path / STAGING_TOKEN).unlink()
            exchange(self.path, self.out)
            finish_old(self.path, self.out)  # the previous output, now under the staging name
        finally:
            release(held)

    def _carry_over(self) -> None:
        """What lives beside a kit and outlasts it: placeholders, the cache, nested outputs."""
        if not self.out.is_dir():
            return
        for entry in self.out.iterdir():
            keep = entry.name in KEEP_NAMES or (entry.name == CACHE_NAME and is_our_cache(entry))
            nested = entry.is_dir() and not entry.is_symlink() and read_ownership(entry) is not None
            if (keep or nested) and not (self.path / entry.name).exists():
                os.rename(entry, self.path / entry.name)

    def abort(self) -> None:
        if (self.path / STAGING_TOKEN).is_file():
            shutil.rmtree(self.path, ignore_errors=True)
        self.claim.release()
        forget_look(self.out)


@contextlib.contextmanager
def staged(out: Path, kind: str) -> Iterator[Staging]:
    """Build into the staging folder; on any error (Ctrl-C included) it is removed. A
    write that fails for want of room or rights (a full disk) is said in one line."""
    staging = Staging(out, kind)
    try:
        yield staging
    except OSError as error:
        staging.abort()
        if error.errno not in DISK_ERRORS:
            raise
        raise ToolError(f"cannot write in {out}: {error.strerror}") from error
    except BaseException:
        staging.abort()
        raise


@contextlib.contextmanager
def no_trace_if_unfinished(out: Path) -> Iterator[Callable[[], None]]:
    """A command that makes `out` and then fails, is interrupted, or calls the callable it
    is given (its result was not kept) leaves no trace there, not even the render cache it
    put in the folder it made."""
    new_folder = not out.exists()
    abandoned: list[bool] = []
    try:
        yield lambda: abandoned.append(True)
    except BaseException:
        _remove_if_new(out, new_folder)
        raise
    if abandoned:
        _remove_if_new(out, new_folder)


def _remove_if_new(out: Path, new_folder: bool) -> None:
    if new_folder:
        remove_owned(out)
        with contextlib.suppress(OSError):
            out.rmdir()

"""Advisory locks between processes (flock): builds that share a folder take turns, and a
run holds a lock on its own staging folder for as long as it lives, so that another run can
tell a live one (locked) from one a killed process left (free)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's lock: processes that take it take turns."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def first_lock(*folders: Path) -> Iterator[None]:
    """Hold the lock of the first of folders that can be opened (none: no lock)."""
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
        return
    yield


def try_lock(path: Path) -> int | None:
    """An open descriptor holding path's lock, or None when another open file holds it (a
    live run) or path is gone. The lock lasts until the descriptor is closed; children do
    not inherit it (Python's descriptors are close-on-exec)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        raise
    return fd


@contextlib.contextmanager
def unless_held(path: Path) -> Iterator[bool]:
    """True inside the block when nobody else holds path's lock (then this process holds
    it until the block ends); False when a live process does."""
    fd = try_lock(path)
    try:
        yield fd is not None
    finally:
        if fd is not None:
            os.close(fd)


def release(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)

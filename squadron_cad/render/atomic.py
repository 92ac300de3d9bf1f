"""Atomic file writes: a temporary name in the same folder, then one rename into place.

A reader (or an interrupted build) sees either the previous good file or the new one,
never half of either.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from squadron_cad.errors import ToolError

TEMP_PREFIX = ".tmp-"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _umask()
FILE_MODE = 0o666 & ~UMASK  # what open() would give: 0644 under the usual umask
DIR_MODE = 0o777 & ~UMASK


@contextlib.contextmanager
def temporary_sibling(target: Path) -> Iterator[Path]:
    """A temporary path next to target, removed unless it was moved into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=target.suffix, dir=target.parent)
    except OSError as error:
        raise ToolError(f"cannot write in {target.parent}: {error.strerror}") from error
    os.close(handle)
    temp = Path(name)
    os.chmod(temp, FILE_MODE)  # mkstemp makes 0600; outputs are for others to read too
    try:
        yield temp
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def replace_into(temp: Path, target: Path) -> None:
    try:
        os.replace(temp, target)
    except OSError as error:
        raise ToolError(f"cannot write {target}: {error.strerror}") from error


def write_bytes(target: Path, data: bytes, *, durable: bool = True) -> None:
    """Durable: on the disk before it takes the target's name, so a power cut leaves the
    old file or the new one, not an empty one. A cache's entries need not be: each is
    checked as it is read, and the flush cost a fresh build 0.4 s (76 of them, measured)."""
    with temporary_sibling(target) as temp:
        try:
            with open(temp, "wb") as stream:
                stream.write(data)
                if durable:
                    stream.flush()
                    os.fsync(stream.fileno())
        except OSError as error:
            raise ToolError(f"cannot write {target}: {error.strerror}") from error
        replace_into(temp, target)


def write_text(target: Path, text: str, *, durable: bool = True) -> None:
    write_bytes(target, text.encode("utf-8"), durable=durable)


def write_json(target: Path, data: Any, *, durable: bool = True) -> None:
    write_text(target, json.dumps(data, indent=2, sort_keys=False) + "\n", durable=durable)


def remove_stale_temporaries(folder: Path) -> None:
    """Temporaries left by a killed process (SIGKILL skips every cleanup)."""
    if folder.is_dir():
        for stale in folder.glob(f"{TEMP_PREFIX}*"):
            with contextlib.suppress(OSError):
                stale.unlink()


def read_json_object(path: Path) -> dict[str, Any] | None:
    """A JSON object written here before, or None if it is missing, damaged or not an
    object (a cache or index read this way is only ever a slower build when it is lost)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None

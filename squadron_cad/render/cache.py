"""A content-addressed render cache: same OpenSCAD source and OpenSCAD, same STL.

An entry is `<key>.stl` plus `<key>.json` holding the STL's sha256 (so a corrupted entry is
detected and rebuilt), its render time and the check results computed on it. Entries are
not flushed to the disk as they are written: one a power cut damages reads as missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from squadron_cad.render.atomic import read_json_object, write_bytes, write_json

MAX_ENTRIES = 400  # a few dozen builds of the whole kit; older entries are pruned
MAX_RECORDS = 200  # check results per kind (printability: one per part and build)


class Renderer(Protocol):
    """Anything that renders: an OpenScad, or a render backend (squadron_cad.render.backends)."""

    @property
    def identity(self) -> str: ...


def source_key(source: str, tool: Renderer) -> str:
    """What a render depends on: the tool and the source's geometry. Comment lines are left
    out: they name the file and the part, so player 1's copy of a part (its own file, the
    same shape) would otherwise render again what the part itself rendered."""
    digest = hashlib.sha256()
    digest.update(tool.identity.encode())
    digest.update(b"\0")
    digest.update(geometry_text(source).encode())
    return digest.hexdigest()


def geometry_text(source: str) -> str:
    """The source without its whole-line // comments (OpenSCAD ignores them)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    stl: Path
    record: dict[str, Any]


class RenderCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.folder / f"{key}.stl", self.folder / f"{key}.json"

    def lookup(self, key: str) -> CacheEntry | None:
        """The entry for key if present and intact; a damaged entry is removed."""
        stl, meta = self._paths(key)
        try:
            record = json.loads(meta.read_text())
            intact = file_sha256(stl) == record["stl_sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            intact, record = False, {}
        if not intact:
            self.forget(key)
            return None
        return CacheEntry(stl=stl, record=record)

    def store(self, key: str, rendered: Path, record: dict[str, Any]) -> None:
        stl, meta = self._paths(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        data = rendered.read_bytes()
        write_bytes(stl, data, durable=False)
        sha256 = hashlib.sha256(data).hexdigest()
        write_json(meta, {**record, "stl_sha256": sha256}, durable=False)
        self._prune()

    def lookup_record(self, key: str) -> dict[str, Any] | None:
        """A result stored without a mesh (kit checks), or None."""
        return read_json_object(self.folder / f"{key}.json")

    def store_record(self, key: str, record: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_json(self.folder / f"{key}.json", record, durable=False)
        prefix = key.split("-", 1)[0]
        records = sorted((_age(path), path) for path in self.folder.glob(f"{prefix}-*.json"))
        for _mtime, stale in records[: max(0, len(records) - MAX_RECORDS)]:
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()

    def update_record(self, key: str, record: dict[str, Any]) -> None:
        _, meta = self._paths(key)
        write_json(meta, record, durable=False)

    def forget(self, key: str) -> None:
        for path in self._paths(key):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def _prune(self) -> None:
        entries = sorted((_age(meta), meta.stem) for meta in self.folder.glob("[0-9a-f]*.json"))
        for _mtime, key in entries[: max(0, len(entries) - MAX_ENTRIES)]:
            self.forget(key)


def _age(path: Path) -> float:
    """Modification time; another build may remove the entry meanwhile."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0

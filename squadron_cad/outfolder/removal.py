"""Removal of what the tool wrote, and nothing else.

Exactly the files an ownership record lists (unless changed since: the maker's now), the
folders the tool made once they are empty, its tagged render cache, and the output folder
itself when the tool made it and nothing is left in it. Nothing is reached through a link.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from squadron_cad.outfolder.record import (
    CACHE_NAME,
    KEEP_NAMES,
    RECORD_NAME,
    STAGING_NAME,
    edited_files,
    is_our_cache,
    plain_path,
    read_ownership,
)


@dataclass
class Removal:
    """What a removal did: files removed, files left that the tool did not write, and
    listed files kept because they changed since it wrote them."""

    removed: int = 0
    left: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)


def remove_owned(folder: Path, keep: Iterable[str] = (), *, folder_too: bool = False) -> Removal:
    """Remove what the folder's record lists (and nested outputs' records theirs), unchanged
    files only; then the folders the tool made that are left empty, the tagged cache and
    the record; with folder_too, the folder itself if the tool made it and it is empty."""
    kept = set(keep)
    done = Removal()
    if not folder.is_dir() or folder.is_symlink():
        return done
    owned = read_ownership(folder)
    if owned is not None:
        changed = set(edited_files(folder, owned))
        done.edited = sorted(rel for rel in changed if _top(rel) not in kept)
        for rel in owned.files:
            if _top(rel) in kept or rel in changed or not plain_path(folder, rel):
                continue
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
                (folder / rel).unlink()
                done.removed += 1
    for entry in sorted(folder.iterdir()):
        if entry.name in kept or not entry.is_dir() or entry.is_symlink():
            continue
        if read_ownership(entry) is not None:  # a paper edition or plate written inside
            nested = remove_owned(entry, folder_too=True)
            done.removed += nested.removed
            done.edited += [f"{entry.name}/{rel}" for rel in nested.edited]
    cache = folder / CACHE_NAME
    if CACHE_NAME not in kept and is_our_cache(cache) and not cache.is_symlink():
        done.removed += len(_files_in(cache))
        shutil.rmtree(cache, ignore_errors=True)
    if owned is not None:
        _remove_made_folders(folder, owned.tool_folders, kept)
        with contextlib.suppress(FileNotFoundError):
            (folder / RECORD_NAME).unlink()
            done.removed += 1  # last: until here, a rerun knows what is the tool's
        if folder_too and owned.made_folder:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
    edited = set(done.edited)
    done.left = [rel for rel in _files_in(folder, kept) if rel not in edited]
    return done


def _top(rel: str) -> str:
    return rel.split("/", 1)[0]


def _remove_made_folders(folder: Path, made: Iterable[str], kept: set[str]) -> None:
    """The folders the tool made, deepest first, each only when empty and a real folder."""
    for rel in sorted(made, key=lambda rel: rel.count("/"), reverse=True):
        if _top(rel) in kept or not plain_path(folder, rel):
            continue
        with contextlib.suppress(OSError):
            (folder / rel).rmdir()  # only succeeds when empty


def _files_in(folder: Path, kept: Iterable[str] = ()) -> list[str]:
    """Every file (a link included) under folder, not followed through links, but the
    placeholders, kept names and staging folders in the folder itself."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    skipped = set(kept) | KEEP_NAMES
    found = []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        rel_root = here.relative_to(folder).as_posix()
        if rel_root == ".":
            dirs[:] = [d for d in dirs if d not in skipped and not STAGING_NAME.match(d)]
            files = [f for f in files if f not in skipped]
        links = [d for d in dirs if (here / d).is_symlink()]  # walk lists them, never enters
        for name in sorted(files + links):
            found.append(name if rel_root == "." else f"{rel_root}/{name}")
    return sorted(found)

"""The ownership record (`.squadron-cad.json`): what the tool wrote in a folder.

It lists each file with its SHA-256, the folders the tool made, and whether it made the
output folder itself. A listed file whose bytes differ from the record was changed since:
it is the maker's, never overwritten or removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from squadron_cad.render.cache import file_sha256

RECORD_NAME = ".squadron-cad.json"  # the ownership record: what the tool wrote here
STAGING_TOKEN = ".squadron-cad-staging"  # inside a staging folder: the process that owns it
SWAP_JOURNAL = ".squadron-cad-swap.json"  # inside a staging folder: a swap under way
CACHE_NAME = ".cache"  # render cache: kept across builds, tagged as ours
# A kit's pictures: outputs.previews.FOLDER, named here too so that a build's transaction
# reads it without the pictures' libraries (a test holds the two equal).
PREVIEWS_NAME = "previews"
CACHE_TAG = "CACHEDIR.TAG"
CACHE_ENV = "SQUADRON_CACHE"  # a shared render cache for every build (like --cache-dir)
CACHE_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"  # bford.net cachedir spec
CACHE_NOTE = "# squadron-cad's render cache: safe to delete."
KEEP_NAMES = frozenset({".gitkeep"})  # placeholders a repository keeps; carried, never deleted
LEGACY_MANIFEST = "manifest.json"
# What a filesystem or an OS puts at the root of a volume (a USB stick): not the maker's
# files, never the tool's; a mount point holding them is still a new or empty folder.
VOLUME_NAMES = frozenset(
    {"lost+found", "System Volume Information", ".Trashes", ".Spotlight-V100", ".fseventsd"}
)
INSIDE_PREFIX = ".squadron-cad-staging-"  # a staging folder inside a mount point's --out
# A staging folder of ours, by its name: beside its --out (".out.staging-PID-...") or
# inside a mount point's (".squadron-cad-staging-PID-...").
STAGING_NAME = re.compile(r"^\.(?:squadron-cad-staging-|.+\.staging-)(\d+)-")
INTERNALS = frozenset({RECORD_NAME, STAGING_TOKEN, SWAP_JOURNAL})


@dataclass(frozen=True)
class Ownership:
    """The files the tool wrote in a folder (relative POSIX paths and their SHA-256), the
    folders it made (None in records from before they were listed: then the folders
    holding its files) and whether it made the folder itself."""

    kind: str
    files: dict[str, str]
    folders: frozenset[str] | None = None
    made_folder: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": "squadron-cad",
            "kind": self.kind,
            "files": dict(sorted(self.files.items())),
            "folders": sorted(self.tool_folders),
            "made_folder": self.made_folder,
        }

    @property
    def tool_folders(self) -> frozenset[str]:
        if self.folders is not None:
            return self.folders
        return frozenset(parent for rel in self.files for parent in parents_of(rel))

    @property
    def top_names(self) -> set[str]:
        """The names in the folder itself that are the tool's: files and folders."""
        return {rel.split("/", 1)[0] for rel in [*self.files, *self.tool_folders]}


def parents_of(rel: str) -> list[str]:
    """'a/b/c.txt' -> ['a', 'a/b']."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def read_ownership(folder: Path) -> Ownership | None:
    """The folder's ownership record, or None when it has none (or it is unreadable)."""
    try:
        data = json.loads((folder / RECORD_NAME).read_text())
    except FileNotFoundError:
        return _legacy_kit(folder)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    files = data.get("files")
    if data.get("tool") != "squadron-cad" or not isinstance(files, dict):
        return None
    folders = data.get("folders")
    listed = None if not isinstance(folders, list) else frozenset(_inside(dict.fromkeys(folders)))
    made = data.get("made_folder") is True
    return Ownership(str(data.get("kind", "")), _inside(files), listed, made)


def _inside(files: dict[Any, Any]) -> dict[str, str]:
    """The listed files that are relative paths inside the folder: a record or manifest
    naming '../x' or '/tmp/x' (edited, or copied from elsewhere) must not reach out."""
    kept = {}
    for rel, sha in files.items():
        path = Path(str(rel))
        if isinstance(rel, str) and rel and not path.is_absolute() and ".." not in path.parts:
            kept[rel] = str(sha or "")
    return kept


def _our_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest when squadron_cad wrote it (its generator says so)."""
    try:
        data = json.loads((folder / LEGACY_MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not str(data.get("generator", "")).startswith("squadron_cad"):
        return None
    return data


def _legacy_kit(folder: Path) -> Ownership | None:
    """A kit without its ownership record (built before records, or copied without the
    hidden file): its manifest lists the files it wrote, with their SHA-256. Only those
    still as written count as ours: a file of the maker's among them, in stl/ say, or one
    they changed, is not the tool's to replace or remove."""
    data = _our_manifest(folder)
    listed = data.get("files") if data else None
    if not isinstance(listed, dict):
        return None
    files = {
        rel: sha
        for rel, sha in _inside(listed).items()
        if sha and (not (folder / rel).is_file() or file_sha256(folder / rel) == sha)
    }
    return Ownership("legacy", {**files, LEGACY_MANIFEST: ""})


def old_kit_without_a_list(folder: Path) -> bool:
    """A kit an old squadron_cad wrote before manifests listed their files: ours, but
    nothing tells its files from the maker's, so it is neither replaced nor removed."""
    if (folder / RECORD_NAME).exists():
        return False
    data = _our_manifest(folder)
    return data is not None and not isinstance(data.get("files"), dict)


OLD_KIT = (
    "holds a kit from an older squadron-cad whose manifest lists no files, so they cannot "
    "be told from yours; move it aside or delete it yourself"
)


def hash_files(folder: Path, skip: Iterable[str] = ()) -> dict[str, str]:
    """Every regular file under folder (but the record, the cache and skipped names)."""
    skipped = {*INTERNALS, *skip}
    hashes: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        top = rel.split("/", 1)[0]
        if top == CACHE_NAME or rel in skipped or top in KEEP_NAMES or not path.is_file():
            continue
        if _nested_owned(folder, rel):
            continue
        hashes[rel] = file_sha256(path)
    return hashes


def folders_made(folder: Path) -> frozenset[str]:
    """Every folder under a staging folder (all made by the tool), but the cache's and the
    nested outputs' (they have owners of their own)."""
    made = set()
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if rel.split("/", 1)[0] == CACHE_NAME or not path.is_dir() or path.is_symlink():
            continue
        if (path / RECORD_NAME).is_file() or _nested_owned(folder, f"{rel}/x"):
            continue
        made.add(rel)
    return frozenset(made)


def _nested_owned(folder: Path, rel: str) -> bool:
    """Inside a sub-folder with an ownership record of its own (a paper edition, say)."""
    parts = rel.split("/")[:-1]
    return any(
        (folder.joinpath(*parts[: i + 1]) / RECORD_NAME).is_file() for i in range(len(parts))
    )


def plain_path(folder: Path, rel: str) -> bool:
    """Whether folder/rel is reached through real folders only (no link on the way, nor
    the entry itself a link): a listed name must never lead out of the folder."""
    return plain_parents(folder, rel) and not (folder / rel).is_symlink()


def plain_parents(folder: Path, rel: str) -> bool:
    """Whether the folders holding folder/rel are real folders, none of them a link."""
    return not any((folder / parent).is_symlink() for parent in parents_of(rel))


def edited_files(folder: Path, owned: Ownership | None) -> list[str]:
    """The listed files changed since the tool wrote them (a link put in a file's place
    counts): the maker's now. A missing file is not among them."""
    if owned is None:
        return []
    edited = []
    for rel, sha in sorted(owned.files.items()):
        path = folder / rel
        if not sha or not plain_parents(folder, rel) or not _exists(path):
            continue  # reached through a link: not this folder's file (said as foreign)
        if path.is_symlink() or not path.is_file() or file_sha256(path) != sha:
            edited.append(rel)
    return edited


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def is_our_cache(folder: Path) -> bool:
    """A render cache squadron-cad tagged (any tool's tag carries the same signature: the
    note tells ours)."""
    try:
        tag = (folder / CACHE_TAG).read_text()
    except OSError:
        return False
    return tag.startswith(CACHE_SIGNATURE) and CACHE_NOTE in tag


def is_staging_folder(entry: Path) -> bool:
    """A staging folder of ours by its name (a real folder, not a link)."""
    return bool(STAGING_NAME.match(entry.name)) and entry.is_dir() and not entry.is_symlink()

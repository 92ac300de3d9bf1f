"""Which folders may be written: refusals said in one line before anything is written."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

from squadron_cad.errors import InputError, ToolError
from squadron_cad.outfolder.claims import busy_with, is_mount_point
from squadron_cad.outfolder.record import (
    CACHE_NAME,
    CACHE_NOTE,
    CACHE_SIGNATURE,
    CACHE_TAG,
    KEEP_NAMES,
    LEGACY_MANIFEST,
    OLD_KIT,
    RECORD_NAME,
    VOLUME_NAMES,
    edited_files,
    is_our_cache,
    is_staging_folder,
    old_kit_without_a_list,
    read_ownership,
)
from squadron_cad.render.atomic import DIR_MODE, write_text

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
KIND_NAMES = {"kit": "kit", "paper": "paper edition", "tolerance": "tolerance plate"}
_LOOKED: dict[str, str | None] = {}  # output folder -> what its record held when checked


def output_path(text: str, label: str) -> Path:
    """The absolute folder --out names (a link at its end followed: the swap renames the
    folder, and the maker's link must stay a link), or a one-line error."""
    path = Path(os.path.abspath(os.path.expanduser(text)))
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(
                f"{label}: its symbolic links lead round in a loop; choose a folder"
            ) from error
        raise ToolError(f"{label}: cannot reach {path}: {error.strerror}") from error
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def refuse_root_or_home(real: Path, label: str, ending: str = "") -> None:
    """The filesystem root and the home folder are never an output folder."""
    if real == Path(real.anchor):
        raise InputError(
            f"{label}: refusing the filesystem root; choose a new or empty folder{ending}"
        )
    if real == Path.home().resolve():
        raise InputError(
            f"{label}: refusing your home folder; choose a new or empty folder{ending}"
        )


def safe_output_folder(out: Path | str, kind: str | None = None) -> Path:
    """The output folder as an absolute path, or a one-line InputError saying why not.
    With `kind` (what the command writes there), a folder holding another kind of output
    of ours is refused too: a paper edition must not replace a kit by a slip of --out."""
    text = str(out)
    if not text.strip():
        raise InputError("--out '': give a folder name, e.g. --out out")
    label = f"--out {text}"
    path = output_path(text, label)
    real = path.resolve()
    if path.exists() and not path.is_dir():
        raise InputError(f"{label}: is a file, not a folder; choose a new or empty folder")
    blocking = next((parent for parent in path.parents if parent.is_file()), None)
    if blocking is not None:
        raise InputError(f"{label}: {blocking} is a file, so no folder can be made inside it")
    refuse_root_or_home(real, label)
    if (real / ".git").exists() or real == PROJECT_ROOT:
        raise InputError(f"{label}: refusing a checkout's root folder; choose e.g. --out out")
    here = Path.cwd().resolve()
    if real == here or real in here.parents:
        raise InputError(
            f"{label}: refusing the folder you are in (or one that holds it); "
            "choose a new or empty folder, e.g. --out out"
        )
    if real.is_dir() and not os.access(real, os.W_OK):
        raise ToolError(f"cannot write in {path}: permission denied (a read-only folder)")
    if kind is not None:
        other = busy_with(path)
        if other is not None:
            raise InputError(other.message(path))
        _LOOKED[str(real)] = record_digest(real)
    _refuse_unowned(real, kind, label)
    return path


def _refuse_unowned(real: Path, kind: str | None, label: str) -> None:
    _refuse_another_kind(real, kind, label)
    if real.is_dir() and old_kit_without_a_list(real):
        raise InputError(f"{label}: {OLD_KIT}")
    foreign = foreign_files(real)
    if foreign:
        raise InputError(
            f"{label}: holds files squadron-cad did not write ({_shown(foreign)}); "
            "choose a new or empty folder"
        )


def _shown(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def record_digest(folder: Path) -> str | None:
    """What says which output a folder holds (its record, else a manifest), as a digest."""
    for name in (RECORD_NAME, LEGACY_MANIFEST):
        try:
            return hashlib.sha256((folder / name).read_bytes()).hexdigest()
        except OSError:
            continue
    return None


def forget_look(out: Path) -> None:
    """This run is done with out (its output swapped in, or given up)."""
    _LOOKED.pop(str(out.resolve()), None)


def recheck(out: Path, kind: str) -> None:
    """Once this run holds the folder: it still holds what it held when it was checked
    (another run may have swapped its output in meanwhile), nothing of the maker's, and no
    file of ours that the maker changed."""
    real = out.resolve()
    label = f"--out {out}"
    looked = _LOOKED.pop(str(real), "unchecked")
    if looked != "unchecked" and record_digest(real) != looked:
        raise InputError(
            f"{label}: another squadron-cad run wrote into it as this one started; "
            "nothing written; run this one again"
        )
    _refuse_unowned(real, kind, label)
    refuse_edited(real, label)


def refuse_edited(out: Path, label: str) -> None:
    """A file of ours changed since it was written is the maker's: never written over."""
    edited = edited_files(out, read_ownership(out)) if out.is_dir() else []
    if not edited:
        return
    them = "it" if len(edited) == 1 else "them"
    raise InputError(
        f"{label}: {_shown(edited)} changed since squadron-cad wrote {them}; a changed file "
        f"is yours and is never written over: move {them} out of {out} to keep your "
        f"changes, or delete {them} to have {them} written anew"
    )


def _refuse_another_kind(folder: Path, kind: str | None, label: str) -> None:
    owned = read_ownership(folder) if kind is not None else None
    if owned is None or not owned.files:
        return
    held = "kit" if owned.kind == "legacy" else owned.kind  # a kit from before the records
    if held not in ("", kind):
        named = KIND_NAMES.get(str(kind), str(kind))
        raise refused_replacing(
            label, f"a {KIND_NAMES.get(held, held)} squadron-cad wrote", f"the {named}"
        )


def refused_replacing(label: str, held: str, new: str, example: str = "") -> InputError:
    """The one-line refusal of an output of ours that another one would replace whole."""
    return InputError(
        f"{label}: holds {held}, which {new} would replace; choose another folder{example}, "
        f"or remove it first (squadron-cad clean {label})"
    )


def foreign_files(folder: Path) -> list[str]:
    """Files and folders in folder that the tool did not write (empty when it is new)."""
    if not folder.is_dir():
        return []
    owned = read_ownership(folder)
    listed = set(owned.files) if owned else set()
    foreign: list[str] = []
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if (
            name in KEEP_NAMES
            or name == RECORD_NAME
            or (name == CACHE_NAME and is_our_cache(entry))
            or is_staging_folder(entry)  # a run's (busy) or a killed one's (cleaned)
            or (name in VOLUME_NAMES and is_mount_point(folder))
        ):
            continue
        if entry.is_dir() and not entry.is_symlink():
            if read_ownership(entry) is not None:
                foreign += [f"{name}/{rel}" for rel in foreign_files(entry)]
            else:
                foreign += _unlisted(entry, name, listed)
        elif name not in listed:
            foreign.append(name)
    return foreign


def _unlisted(folder: Path, prefix: str, listed: set[str]) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        rel = f"{prefix}/{path.relative_to(folder).as_posix()}"
        if path.is_dir() and not path.is_symlink():
            continue
        if rel not in listed:
            found.append(rel)
    if not found and not any(rel.startswith(f"{prefix}/") for rel in listed):
        found.append(f"{prefix}/")  # an empty folder we never made
    return found


def prepare_cache(out: Path, shared: Path | None = None) -> Path:
    """The render cache, tagged as a cache directory (backup tools skip it; cleanup knows
    it): out/.cache, or a shared folder (`--cache-dir`) that any output folder may use."""
    folder = out / CACHE_NAME if shared is None else shared
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    except OSError as error:
        raise ToolError(f"cannot write in {folder.parent}: {error.strerror}") from error
    tag = folder / CACHE_TAG
    if not tag.is_file():
        write_text(tag, f"{CACHE_SIGNATURE}\n{CACHE_NOTE}\n")
    return folder


def shared_cache_folder(folder: Path, out: Path) -> Path:
    """A `--cache-dir` folder, checked before anything is written: new, empty or already a
    squadron-cad cache (its pruning removes files, so it must hold only ours), and outside
    the output folder, which every build replaces whole."""
    folder = Path(os.path.abspath(folder))
    out = Path(os.path.abspath(out))
    label = f"--cache-dir {folder}"
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{label}: is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not is_our_cache(folder):
        raise InputError(
            f"{label}: holds files that are not a squadron-cad cache; choose a new or empty folder"
        )
    if folder != out / CACHE_NAME and (folder == out or out in folder.parents):
        raise InputError(
            f"{label}: lies inside the output folder {out}, which each build replaces; "
            "choose a folder outside it"
        )
    return folder

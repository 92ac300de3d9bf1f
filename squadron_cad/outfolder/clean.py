"""`squadron-cad clean`: remove what the tool wrote in an output folder, nothing else."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import NamedTuple

from squadron_cad.errors import InputError, ToolError
from squadron_cad.outfolder.claims import (
    claim,
    is_mount_point,
    remove_stale_staging,
    stage_inside,
)
from squadron_cad.outfolder.folders import output_path, refuse_root_or_home
from squadron_cad.outfolder.record import (
    CACHE_NAME,
    KEEP_NAMES,
    OLD_KIT,
    RECORD_NAME,
    VOLUME_NAMES,
    is_our_cache,
    is_staging_folder,
    old_kit_without_a_list,
    read_ownership,
)
from squadron_cad.outfolder.removal import remove_owned

NOTHING_REMOVED = "; nothing removed"


class Cleaned(NamedTuple):
    removed: int  # files removed
    left: list[str]  # files left that the tool did not write
    edited: list[str]  # files it wrote that were changed since: the maker's, kept


def clean_output(out_dir: Path, *, cache: bool = True) -> Cleaned:
    """Remove what the tool wrote in out_dir (its ownership records list it) and the
    folders it made, once empty; what killed runs left beside it; the render cache unless
    kept. A file changed since it was written is kept, and said."""
    text = str(out_dir) or "."
    label = f"--out {out_dir}"
    out = output_path(text, label)
    if out.exists() and not out.is_dir():
        raise InputError(f"{label}: is a file, not a folder{NOTHING_REMOVED}")
    refuse_root_or_home(out.resolve(), label, NOTHING_REMOVED)
    if not out.is_dir():
        return Cleaned(len(remove_stale_staging(out)), [], [])
    if old_kit_without_a_list(out):
        raise InputError(f"{label}: {OLD_KIT}{NOTHING_REMOVED}")
    owned = read_ownership(out)
    if owned is None and _holds_anything_else(out):
        raise InputError(
            f"{out_dir}: holds no squadron-cad kit (no {RECORD_NAME}){NOTHING_REMOVED}"
        )
    stale = remove_stale_staging(out)
    held = claim(out, stage_inside(out))  # another run into out: refused as busy
    try:
        removal = remove_owned(out, keep=() if cache else (CACHE_NAME,))
    except OSError as error:
        raise ToolError(f"cannot remove files in {out}: {error.strerror}") from error
    finally:
        held.release()
        shutil.rmtree(held.path, ignore_errors=True)
    if owned is not None and owned.made_folder and not _holds_cwd(out):
        with contextlib.suppress(OSError):
            out.rmdir()  # the folder the tool made, when nothing is left in it
    return Cleaned(removal.removed + len(stale), removal.left, removal.edited)


def _holds_anything_else(out: Path) -> bool:
    """Anything but placeholders, our cache and outputs of ours written inside: with no
    record, such a folder is not ours to clean."""
    for entry in out.iterdir():
        if entry.name in KEEP_NAMES or is_staging_folder(entry):
            continue
        if entry.name in VOLUME_NAMES and is_mount_point(out):
            continue
        real_folder = entry.is_dir() and not entry.is_symlink()
        if entry.name == CACHE_NAME and real_folder and is_our_cache(entry):
            continue
        if real_folder and read_ownership(entry) is not None:
            continue
        return True
    return False


def _holds_cwd(out: Path) -> bool:
    here = Path.cwd().resolve()
    real = out.resolve()
    return real == here or real in here.parents

"""Output folders the tool owns: safe to write, built aside, swapped in whole.

A build writes into a staging folder beside the output folder (same filesystem), and only
a finished, verified kit is swapped into place with one atomic exchange of the two folder
names. At every instant the output folder holds the whole previous kit or the whole new one.

The tool deletes only what it wrote: every output folder carries an ownership record
(`.squadron-cad.json`) listing each file with its SHA-256, and cleanup removes exactly
those files. A folder holding anything else is refused as an output folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from squadron_cad.errors import InputError, ToolError
from squadron_cad.locks import folder_lock
from squadron_cad.render.atomic import DIR_MODE, write_json, write_text
from squadron_cad.render.cache import file_sha256

RECORD_NAME = ".squadron-cad.json"  # the ownership record: what the tool wrote here
STAGING_TOKEN = ".squadron-cad-staging"  # inside a staging folder: the process that owns it
CACHE_NAME = ".cache"  # render cache: kept across builds, tagged as ours
CACHE_TAG = "CACHEDIR.TAG"
CACHE_ENV = "SQUADRON_CACHE"  # a shared render cache for every build (like --cache-dir)
CACHE_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"  # bford.net cachedir spec
KEEP_NAMES = frozenset({".gitkeep"})  # placeholders a repository keeps; carried, never deleted
PROJECT_ROOT = Path(__file__).resolve().parent.parent
_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


# ---- the ownership record ---------------------------------------------------------------


@dataclass(frozen=True)
class Ownership:
    """The files the tool wrote in a folder (relative POSIX paths and their SHA-256)."""

    kind: str
    files: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": "squadron-cad",
            "kind": self.kind,
            "files": dict(sorted(self.files.items())),
        }


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
    return Ownership(str(data.get("kind", "")), _inside(files))


def _inside(files: dict[Any, Any]) -> dict[str, str]:
    """The listed files that are relative paths inside the folder: a record or manifest
    naming '../x' or '/tmp/x' (edited, or copied from elsewhere) must not reach out."""
    kept = {}
    for rel, sha in files.items():
        path = Path(str(rel))
        if isinstance(rel, str) and rel and not path.is_absolute() and ".." not in path.parts:
            kept[rel] = str(sha)
    return kept


LEGACY_MANIFEST = "manifest.json"


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


def _old_kit_without_a_list(folder: Path) -> bool:
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
    skipped = {RECORD_NAME, STAGING_TOKEN, *skip}
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


def _nested_owned(folder: Path, rel: str) -> bool:
    """Inside a sub-folder with an ownership record of its own (a paper edition, say)."""
    parts = rel.split("/")[:-1]
    return any(
        (folder.joinpath(*parts[: i + 1]) / RECORD_NAME).is_file() for i in range(len(parts))
    )


# ---- which folders may be written -------------------------------------------------------


KIND_NAMES = {"kit": "kit", "paper": "paper edition", "tolerance": "tolerance plate"}


def safe_output_folder(out: Path | str, kind: str | None = None) -> Path:
    """The output folder as an absolute path, or a one-line InputError saying why not.
    With `kind` (what the command writes there), a folder holding another kind of output
    of ours is refused too: a paper edition must not replace a kit by a slip of --out."""
    text = str(out)
    if not text.strip():
        raise InputError("--out '': give a folder name, e.g. --out out")
    # The swap renames the folder: the maker's link must stay a link.
    path = _symlink_resolved(Path(os.path.abspath(os.path.expanduser(text))))
    real = path.resolve()
    label = f"--out {text}"
    if path.exists() and not path.is_dir():
        raise InputError(f"{label}: is a file, not a folder; choose a new or empty folder")
    blocking = next((parent for parent in path.parents if parent.is_file()), None)
    if blocking is not None:
        raise InputError(f"{label}: {blocking} is a file, so no folder can be made inside it")
    if real == Path(real.anchor):
        raise InputError(f"{label}: refusing the filesystem root; choose a new or empty folder")
    if real == Path.home().resolve():
        raise InputError(f"{label}: refusing your home folder; choose a new or empty folder")
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
    _refuse_another_kind(real, kind, label)
    if real.is_dir() and _old_kit_without_a_list(real):
        raise InputError(f"{label}: {OLD_KIT}")
    foreign = foreign_files(real)
    if foreign:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise InputError(
            f"{label}: holds files squadron-cad did not write ({shown}); "
            "choose a new or empty folder"
        )
    return path


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


def is_our_cache(folder: Path) -> bool:
    try:
        return (folder / CACHE_TAG).read_text().startswith(CACHE_SIGNATURE)
    except OSError:
        return False


def prepare_cache(out: Path, shared: Path | None = None) -> Path:
    """The render cache, tagged as a cache directory (backup tools skip it; cleanup knows
    it): out/.cache, or a shared folder (`--cache-dir`) that any output folder may use."""
    folder = out / CACHE_NAME if shared is None else shared
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    tag = folder / CACHE_TAG
    if not tag.is_file():
        write_text(tag, f"{CACHE_SIGNATURE}\n# squadron-cad's render cache: safe to delete.\n")
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


# ---- staging and the swap ---------------------------------------------------------------


class Staging:
    """A folder beside `out` to build into; commit() swaps it in, abort() removes it."""

    def __init__(self, out: Path, kind: str) -> None:
        self.out = out
        self.kind = kind
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(out)
        try:
            name = tempfile.mkdtemp(prefix=staging_prefix(out), dir=out.parent)
        except OSError as error:
            raise ToolError(f"cannot write in {out.parent}: {error.strerror}") from error
        self.path = Path(name)
        os.chmod(self.path, DIR_MODE)
        (self.path / STAGING_TOKEN).write_text(f"{os.getpid()}\n")

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
        """Record what is staged, then swap it in for the previous kit, atomically. A
        Ctrl-C or SIGTERM from the token's removal until the previous kit is gone waits for
        the end (it would leave a staging folder without its token, or the previous kit
        beside the new one)."""
        with folder_lock(self.out.parent), interrupts_deferred():  # builds take turns
            (self.path / STAGING_TOKEN).unlink()
            owned = Ownership(self.kind, hash_files(self.path))
            write_json(self.path / RECORD_NAME, owned.as_dict())
            self._carry_over()
            if self.out.exists():
                _exchange(self.path, self.out)
                remove_owned(self.path)  # the previous kit, now under the staging name
            else:
                os.rename(self.path, self.out)
        return owned

    def _carry_over(self) -> None:
        """What lives beside a kit and outlasts it: placeholders, the cache, nested outputs."""
        if not self.out.is_dir():
            return
        for entry in self.out.iterdir():
            keep = entry.name in KEEP_NAMES or (entry.name == CACHE_NAME and is_our_cache(entry))
            nested = entry.is_dir() and read_ownership(entry) is not None
            if (keep or nested) and not (self.path / entry.name).exists():
                os.rename(entry, self.path / entry.name)

    def abort(self) -> None:
        if (self.path / STAGING_TOKEN).is_file():
            shutil.rmtree(self.path, ignore_errors=True)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and a polite kill: both end a run


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then act on the first one as its
    handler would have. Only the main thread can set handlers: elsewhere, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda n, _f: caught.append(n)) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            _deliver(caught[0], previous[caught[0]])


def _deliver(signum: int, handler: Any) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # SIGINT's default handler is Python's, a callable


@contextlib.contextmanager
def staged(out: Path, kind: str) -> Iterator[Staging]:
    """Build into the staging folder; on any error (Ctrl-C included) it is removed."""
    staging = Staging(out, kind)
    try:
        yield staging
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


def staging_prefix(out: Path) -> str:
    return f".{out.name}.staging-{os.getpid()}-"


def remove_stale_staging(out: Path) -> list[Path]:
    """Staging folders beside out whose process is gone (killed with SIGKILL, say)."""
    removed = []
    for folder in out.parent.glob(f".{out.name}.staging-*"):
        pid = _staging_pid(folder)
        if pid is not None and not _alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        elif pid is None and read_ownership(folder) is not None and _owner_gone(folder, out):
            remove_owned(folder)  # a previous kit swapped out, its removal interrupted
            removed.append(folder)
    return removed


def _staging_pid(folder: Path) -> int | None:
    try:
        return int((folder / STAGING_TOKEN).read_text().strip())
    except (OSError, ValueError):
        return None


def _owner_gone(folder: Path, out: Path) -> bool:
    pid_text = folder.name.removeprefix(f".{out.name}.staging-").split("-", 1)[0]
    return not pid_text.isdigit() or not _alive(int(pid_text))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exchange(a: Path, b: Path) -> None:
    """Swap two folder names in one step (renameat2 RENAME_EXCHANGE); two renames where the
    filesystem cannot, leaving the window of one missing name as small as it can be."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None:
        result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
        if result == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise ToolError(f"cannot swap {a} into {b}: {os.strerror(code)}")
    aside = a.with_name(a.name + "-old")
    os.rename(b, aside)
    os.rename(a, b)
    os.rename(aside, a)


# ---- removal: only what the tool wrote --------------------------------------------------


def remove_owned(folder: Path, keep: Iterable[str] = ()) -> list[str]:
    """Remove the files the ownership record lists (if unchanged since written, or not),
    the record, the tagged cache and folders left empty; anything else stays. Returns
    what stayed."""
    owned = read_ownership(folder)
    kept = set(keep)
    if owned is not None:
        real = folder.resolve()
        for rel in owned.files:
            if rel.split("/", 1)[0] in kept:
                continue
            if not (folder / rel).parent.resolve().is_relative_to(real):
                continue  # through a linked folder: not a file of this folder
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                (folder / rel).unlink()
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.is_dir() and entry.name not in kept and read_ownership(entry) is not None:
            remove_owned(entry)
    cache = folder / CACHE_NAME
    if CACHE_NAME not in kept and is_our_cache(cache):
        shutil.rmtree(cache, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        (folder / RECORD_NAME).unlink()
    _remove_empty_folders(folder)
    left = sorted(
        rel
        for rel in (p.relative_to(folder).as_posix() for p in _files_in(folder))
        if rel.split("/", 1)[0] not in kept
    )
    if not left and folder.name.startswith("."):
        with contextlib.suppress(OSError):
            folder.rmdir()  # a staging folder: nothing of anybody's is left in it
    return left


def _symlink_resolved(path: Path) -> Path:
    """The folder a symlinked --out points to: staging lives beside it, not the link."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _files_in(folder: Path) -> list[Path]:
    """Every file (a link included) under folder, not the folders that hold them."""
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if p.is_symlink() or not p.is_dir()]


def _remove_empty_folders(folder: Path) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            with contextlib.suppress(OSError):
                path.rmdir()  # only succeeds when empty


def clean_output(out_dir: Path, *, cache: bool = True) -> tuple[int, list[str]]:
    """Remove what the tool wrote in out_dir (its ownership record lists it), stale
    staging folders beside it, and the render cache unless kept. Returns (files removed,
    files left because the tool did not write them)."""
    out = _symlink_resolved(Path(os.path.abspath(os.path.expanduser(str(out_dir) or "."))))
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out_dir}: is a file, not a folder; nothing removed")
    stale = remove_stale_staging(out)
    if not out.is_dir():
        return len(stale), []
    if _old_kit_without_a_list(out):
        raise InputError(f"--out {out_dir}: {OLD_KIT}; nothing removed")
    if read_ownership(out) is None:
        left = [entry.name for entry in out.iterdir() if entry.name not in KEEP_NAMES]
        if left and not (out / CACHE_NAME).is_dir():
            raise InputError(
                f"{out_dir}: holds no squadron-cad kit (no {RECORD_NAME}); nothing removed"
            )
    before = _count_files(out)
    try:
        left = remove_owned(out, keep=() if cache else (CACHE_NAME,))
    except OSError as error:
        raise ToolError(f"cannot remove files in {out}: {error.strerror}") from error
    return before - _count_files(out) + len(stale), [p for p in left if p not in KEEP_NAMES]


def _count_files(folder: Path) -> int:
    return len(_files_in(folder))

"""Output folders: which are refused, what cleanup removes, how a staged kit is swapped in.

No OpenSCAD: these work on folders of plain files the tests write themselves.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import cli_in_worker

from squadron_cad import interrupts, outfolder
from squadron_cad.errors import InputError, ToolError
from squadron_cad.outfolder import (
    CACHE_NAME,
    RECORD_NAME,
    Staging,
    clean_output,
    prepare_cache,
    read_ownership,
    safe_output_folder,
    shared_cache_folder,
)
from squadron_cad.outfolder import staging as staging_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli(capsys, monkeypatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`squadron-cad ARGS` in this worker (no OpenSCAD), in `cwd` and with `env` added."""

    def run(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        environment = {"SQUADRON_OPENSCAD": "/nonexistent/openscad", **env}
        return cli_in_worker(list(args), capsys, monkeypatch, cwd, environment)

    return run


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def staged_kit(out: Path, files: dict[str, str]) -> None:
    """A kit swapped in the way a build does it."""
    staging = Staging(out, "kit")
    for rel, text in files.items():
        (staging.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (staging.path / rel).write_text(text)
    staging.commit()


# ---- refused folders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("/", "filesystem root"),
        ("~", "home folder"),
        ("", "give a folder name"),
        (".", "the folder you are in"),
        ("..", "refusing"),
    ],
)
def test_dangerous_folders_are_refused(tmp_path: Path, out: str, words: str, cli) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "precious.txt").write_text("mine")
    before = tree(tmp_path)
    done = cli("build", "--out", out, cwd=work, HOME=str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert tree(tmp_path) == before


def test_the_checkout_root_is_refused(tmp_path: Path, cli) -> None:
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    (clone / "README.md").write_text("a project")
    done = cli("build", "--out", str(clone), cwd=tmp_path)
    assert done.returncode == 2
    assert "checkout's root" in done.stderr
    with pytest.raises(InputError, match="checkout"):
        safe_output_folder(ROOT)


def test_a_regular_file_is_refused(tmp_path: Path, cli) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    done = cli("build", "--out", str(target), cwd=tmp_path)
    assert done.returncode == 2
    assert "is a file, not a folder" in done.stderr
    assert target.read_text() == "keep me"


def test_a_folder_with_files_the_tool_did_not_write_is_refused(tmp_path: Path, cli) -> None:
    out = tmp_path / "out"
    (out / "photos").mkdir(parents=True)
    (out / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    (out / ".gitkeep").write_text("")
    done = cli("build", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert "photos/cat.jpg" in done.stderr
    assert "did not write" in done.stderr


def test_new_empty_and_placeholder_folders_are_accepted(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / ".gitkeep").write_text("")
    for name in ("new", "empty", "kept"):
        assert safe_output_folder(tmp_path / name) == tmp_path / name


def test_a_kit_folder_with_an_added_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "solid", "manifest.json": "{}"})
    safe_output_folder(out)
    (out / "stl" / "mine.stl").write_text("not ours")
    with pytest.raises(InputError, match=r"stl/mine\.stl"):
        safe_output_folder(out)


def test_a_read_only_folder_is_a_tool_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(out, 0o555)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("this user writes read-only folders (root with override capabilities)")
        with pytest.raises(ToolError, match="read-only"):
            safe_output_folder(out)
    finally:
        os.chmod(out, 0o755)


# ---- the swap -------------------------------------------------------------------------------


def test_a_commit_swaps_the_whole_kit_and_carries_the_cache_and_placeholder(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    staged_kit(out, {"stl/a.stl": "one", "bom.md": "old"})
    outfolder.prepare_cache(out)
    (out / ".cache" / "entry.json").write_text("{}")
    staged_kit(out, {"stl/b.stl": "two", "bom.md": "new"})
    files = tree(out)
    assert "stl/a.stl" not in files
    assert files["stl/b.stl"] == b"two"
    assert files["bom.md"] == b"new"
    assert ".gitkeep" in files
    assert ".cache/entry.json" in files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "staging debris left"
    owned = read_ownership(out)
    assert owned is not None
    assert set(owned.files) == {"stl/b.stl", "bom.md"}


def half_written(out: Path) -> None:
    with outfolder.staged(out, "kit") as staging:
        (staging.path / "stl").mkdir()
        (staging.path / "stl" / "a.stl").write_text("half")
        raise KeyboardInterrupt


def test_an_aborted_staging_leaves_the_kit_and_no_debris(tmp_path: Path) -> None:
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one"})
    before = tree(out)
    with pytest.raises(KeyboardInterrupt):
        half_written(out)
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_swap_waits_for_it_and_leaves_no_debris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """Ctrl-C once landed after the staging token was gone and before the swap: the old
    kit stayed, but so did the staging folder, with nothing left to remove it."""
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one"})
    hash_files = staging_module.hash_files

    def hash_then_signal(folder: Path, skip=()) -> dict[str, str]:
        signal.raise_signal(signum)  # a Ctrl-C, mid-commit
        return hash_files(folder, skip)

    monkeypatch.setattr(staging_module, "hash_files", hash_then_signal)
    wanted = (signal.SIGINT, signal.SIGTERM)  # as the CLI has them (an xdist worker ignores)
    previous = {s: signal.signal(s, signal.default_int_handler) for s in wanted}
    try:
        with pytest.raises(KeyboardInterrupt):
            staged_kit(out, {"stl/b.stl": "two"})
        assert all(signal.getsignal(s) is signal.default_int_handler for s in wanted)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert tree(out) == {"stl/b.stl": b"two", RECORD_NAME: tree(out)[RECORD_NAME]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "staging debris left"


def test_interrupts_deferred_does_nothing_outside_the_main_thread() -> None:
    done: list[bool] = []
    before = signal.getsignal(signal.SIGINT)

    def inside() -> None:
        with interrupts.interrupts_deferred():
            done.append(signal.getsignal(signal.SIGINT) is before)

    worker = threading.Thread(target=inside)
    worker.start()
    worker.join()
    assert done == [True]


def test_staging_of_a_killed_process_is_removed_by_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stale = tmp_path / ".out.staging-999999999-abc"
    stale.mkdir()
    (stale / outfolder.STAGING_TOKEN).write_text("999999999\n")
    (stale / "stl.stl").write_text("half a kit")
    staging = Staging(out, "kit")
    assert not stale.exists()
    staging.abort()
    assert list(tmp_path.iterdir()) == []


def test_ownership_record_lists_every_file_with_its_sha256(tmp_path: Path) -> None:
    out = tmp_path / "out"
    staged_kit(out, {"a.txt": "alpha", "sub/b.txt": "beta"})
    record = json.loads((out / RECORD_NAME).read_text())
    assert record["files"] == {
        "a.txt": hashlib.sha256(b"alpha").hexdigest(),
        "sub/b.txt": hashlib.sha256(b"beta").hexdigest(),
    }


# ---- clean ---------------------------------------------------------------------------------


def test_clean_removes_only_what_the_tool_wrote(tmp_path: Path, cli) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    staged_kit(out, {"stl/a.stl": "one", "bom.md": "x"})
    (out / "stl" / "mine.txt").write_text("a maker's note")
    done = cli("clean", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(tree(out)) == [".gitkeep", "stl/mine.txt"]
    assert "stl/mine.txt" in done.stderr


def test_clean_says_only_the_files_it_did_not_write(tmp_path: Path) -> None:
    """--keep-cache keeps the render cache, which the tool wrote: not reported as someone
    else's (it was, file by file); a folder holding a maker's file is not a file."""
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one", "bom.md": "x"})
    outfolder.prepare_cache(out)
    (out / ".cache" / "entry.stl").write_text("cached")
    (out / "stl" / "mine.txt").write_text("a maker's note")
    removed, left, _edited = outfolder.clean_output(out, cache=False)
    assert removed == 3  # its two files and its record
    assert left == ["stl/mine.txt"]
    assert (out / ".cache" / "entry.stl").is_file()


def test_clean_refuses_a_folder_with_no_kit(tmp_path: Path, cli) -> None:
    (tmp_path / "README.md").write_text("a project")
    (tmp_path / ".git").mkdir()
    before = tree(tmp_path)
    done = cli("clean", "--out", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "holds no squadron-cad kit" in done.stderr
    assert tree(tmp_path) == before


def test_clean_of_a_file_is_refused(tmp_path: Path, cli) -> None:
    (tmp_path / "notes.txt").write_text("keep me")
    done = cli("clean", "--out", "notes.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "is a file, not a folder" in done.stderr
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_clean_of_an_empty_placeholder_folder_is_a_no_op(tmp_path: Path, cli) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    done = cli("clean", "--out", str(out))
    assert done.returncode == 0
    assert tree(out) == {".gitkeep": b""}


def test_a_kit_without_its_record_is_recognised_by_its_manifests_file_list(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    (out / "stl").mkdir(parents=True)
    (out / "stl" / "box.stl").write_text("solid")
    listed = {"stl/box.stl": hashlib.sha256(b"solid").hexdigest()}
    (out / "manifest.json").write_text(
        json.dumps({"generator": "squadron_cad 0.1.0", "files": listed})
    )
    assert safe_output_folder(out) == out
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"notes\.txt"):
        safe_output_folder(out)
    # A manifest that lists no files tells nothing of what the tool wrote: not ours.
    (out / "notes.txt").unlink()
    (out / "manifest.json").write_text(json.dumps({"generator": "squadron_cad 0.1.0"}))
    with pytest.raises(InputError, match=r"older squadron-cad whose manifest lists no files"):
        safe_output_folder(out)
    with pytest.raises(InputError, match=r"lists no files.*; nothing removed"):
        clean_output(out)
    assert (out / "stl" / "box.stl").is_file()


def test_another_kind_of_output_is_not_replaced_by_a_slip_of_out(tmp_path: Path) -> None:
    """A paper edition (or tolerance plate) aimed at a kit's folder is refused, and the
    other way round: each replaced the other whole. Its own kind, and a kit from before
    the records, are taken as before."""
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one"})
    assert safe_output_folder(out, "kit") == out
    with pytest.raises(InputError) as refused:
        safe_output_folder(out, "paper")
    assert str(refused.value) == (
        f"--out {out}: holds a kit squadron-cad wrote, which the paper edition would "
        f"replace; choose another folder, or remove it first (squadron-cad clean --out {out})"
    )
    with pytest.raises(InputError, match="which the tolerance plate would replace"):
        safe_output_folder(out, "tolerance")
    legacy = tmp_path / "legacy"
    (legacy / "stl").mkdir(parents=True)
    (legacy / "stl" / "box.stl").write_text("solid")
    listed = {"stl/box.stl": hashlib.sha256(b"solid").hexdigest()}
    (legacy / "manifest.json").write_text(
        json.dumps({"generator": "squadron_cad 0.1.0", "files": listed})
    )
    assert safe_output_folder(legacy, "kit") == legacy


def test_a_kit_without_its_record_owns_only_what_its_manifest_lists(tmp_path: Path) -> None:
    """`cp -r kit/* copy/` leaves the hidden record behind: the copy's files were all taken
    for the tool's by folder name, so build replaced and clean removed the maker's own
    stl/my_own.stl among them."""
    copy = tmp_path / "copy"
    (copy / "stl").mkdir(parents=True)
    (copy / "stl" / "box.stl").write_bytes(b"solid")
    (copy / "stl" / "my_own.stl").write_bytes(b"mine")
    (copy / "bom.md").write_text("edited")  # listed, but not as the build wrote it
    listed = {
        "stl/box.stl": hashlib.sha256(b"solid").hexdigest(),
        "bom.md": hashlib.sha256(b"as built").hexdigest(),
    }
    (copy / "manifest.json").write_text(
        json.dumps({"generator": "squadron_cad 0.1.0", "files": listed})
    )
    with pytest.raises(InputError, match=r"did not write \(bom\.md, stl/my_own\.stl\)"):
        safe_output_folder(copy, "kit")
    removed, left, _edited = clean_output(copy)
    assert removed == 2  # stl/box.stl and the manifest
    assert left == ["bom.md", "stl/my_own.stl"]
    assert (copy / "stl" / "my_own.stl").read_bytes() == b"mine"


def test_make_clean_in_the_checkout_keeps_the_checkout(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    venv = ROOT / ".venv"
    if not (venv / "bin" / "squadron-cad").is_file():
        pytest.skip("the project's .venv is not set up")
    # The .venv is newer than every file of the clone: make reinstalls nothing into it.
    for path in clone.rglob("*"):
        os.utime(path, (0, 0), follow_symlinks=False)
    stamp = ["make", "-q", "-C", str(clone), f"VENV={venv}", f"{venv}/.installed"]
    assert subprocess.run(stamp, capture_output=True, check=False).returncode == 0
    before = tree(clone)
    for out in (".", str(clone), "~"):
        done = subprocess.run(
            ["make", "-s", "-C", str(clone), "clean", f"OUT={out}", f"VENV={venv}"],
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": str(clone)},
            check=False,
        )
        assert done.returncode != 0, f"make clean OUT={out} succeeded"
        assert "nothing removed" in done.stderr
    assert tree(clone) == before


def test_an_out_folder_below_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    with pytest.raises(InputError, match=r"a-file is a file, so no folder can be made inside it"):
        safe_output_folder(tmp_path / "a-file" / "kit")


# ---- a shared render cache (--cache-dir) ----------------------------------------------


def test_a_new_empty_or_tagged_folder_is_accepted_as_a_shared_cache(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert shared_cache_folder(tmp_path / "new", out) == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert shared_cache_folder(tmp_path / "empty", out) == tmp_path / "empty"
    tagged = prepare_cache(out, tmp_path / "tagged")
    (tagged / "0123.json").write_text("{}")
    assert shared_cache_folder(tagged, out) == tagged
    assert shared_cache_folder(out / CACHE_NAME, out) == out / CACHE_NAME


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("mine", "not a squadron-cad cache"),
        ("notes.txt", "is a file"),
        ("out/cache", "inside the output folder"),
        ("out", "inside the output folder"),
    ],
)
def test_a_shared_cache_that_could_cost_a_file_is_refused(
    tmp_path: Path, where: str, words: str
) -> None:
    """Pruning deletes cache entries: a folder of the maker's own, or one inside the
    output folder (replaced whole by each build), is refused before anything is written."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "photo.jpg").write_bytes(b"jpeg")
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=words) as refused:
        shared_cache_folder(tmp_path / where, tmp_path / "out")
    assert "--cache-dir" in str(refused.value)
    assert (tmp_path / "mine" / "photo.jpg").read_bytes() == b"jpeg"
    assert not (tmp_path / "out").exists()


def test_a_linked_output_folder_is_written_through_the_link(tmp_path: Path) -> None:
    """`ln -s realk link; build --out link`: the swap replaced the link with a real folder
    (realk left empty, a hidden link to it left beside)."""
    real = tmp_path / "realk"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    out = safe_output_folder(link, "kit")
    assert out == real
    with outfolder.staged(out, "kit") as staging:
        (staging.path / "a.txt").write_text("new")
        staging.commit()
    assert link.is_symlink()
    assert (real / "a.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "realk"]


def test_an_unreadable_record_is_not_ours_and_says_so_in_one_line(tmp_path: Path) -> None:
    """A record holding a list crashed every command with an AttributeError."""
    out = tmp_path / "out"
    out.mkdir()
    (out / RECORD_NAME).write_text("[]")
    (out / "a.stl").write_text("solid")
    assert read_ownership(out) is None
    with pytest.raises(InputError, match="did not write"):
        safe_output_folder(out, "kit")
    with pytest.raises(InputError, match="holds no squadron-cad kit"):
        clean_output(out)


def test_clean_on_a_read_only_mount_says_so_in_one_line(tmp_path: Path, monkeypatch) -> None:
    """A read-only mount (root is not stopped by folder modes, so the mount's refusal is
    played here) ended in 'internal error: OSError ...'."""
    import errno

    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one"})

    def read_only(self: Path, *_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(ToolError, match=r"cannot remove files in .*: Read-only file system"):
        clean_output(out)


def test_a_changed_file_in_a_kit_without_its_record_stops_the_build(tmp_path: Path) -> None:
    """The build replaced it and hid the maker's edit in a staging folder, while clean
    called the same file theirs: both now treat it as theirs."""
    copy = tmp_path / "copy"
    (copy / "stl").mkdir(parents=True)
    (copy / "stl" / "box.stl").write_bytes(b"solid, edited")
    listed = {"stl/box.stl": hashlib.sha256(b"solid").hexdigest()}
    (copy / "manifest.json").write_text(
        json.dumps({"generator": "squadron_cad 0.1.0", "files": listed})
    )
    with pytest.raises(InputError, match=r"did not write \(stl/box\.stl\)"):
        safe_output_folder(copy, "kit")


def test_listed_paths_never_reach_outside_the_folder(tmp_path: Path) -> None:
    """A manifest (or record) naming '../victim.txt' or an absolute path had clean delete
    files outside the folder."""
    victims = [tmp_path / "victim.txt", tmp_path / "elsewhere" / "victim2.txt"]
    victims[1].parent.mkdir()
    for victim in victims:
        victim.write_text("mine")
    kit = tmp_path / "kit"
    kit.mkdir()
    sha = hashlib.sha256(b"mine").hexdigest()
    listed = {"../victim.txt": sha, str(victims[1]): sha}
    (kit / "manifest.json").write_text(
        json.dumps({"generator": "squadron_cad 0.1.0", "files": listed})
    )
    clean_output(kit)
    (kit / RECORD_NAME).write_text(
        json.dumps({"tool": "squadron-cad", "kind": "kit", "files": listed})
    )
    clean_output(kit)
    assert all(victim.read_text() == "mine" for victim in victims)


def test_clean_does_not_delete_through_a_linked_sub_folder(tmp_path: Path) -> None:
    """A record listing stl/notes.stl, with out/stl a link to a folder elsewhere: clean
    deleted elsewhere/notes.stl."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.stl").write_text("mine")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stl").symlink_to(elsewhere)
    record = {"tool": "squadron-cad", "kind": "kit", "files": {"stl/notes.stl": ""}}
    (out / RECORD_NAME).write_text(json.dumps(record))
    clean_output(out)
    assert (elsewhere / "notes.stl").read_text() == "mine"


# ---- clean removes only what the tool wrote, folders included ---------------------------


def folders_and_files(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) under root: a removed folder shows."""
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in root.rglob("*")
    }


def maker_folders(folder: Path) -> None:
    """What any home folder holds: a cache of other tools, empty folders, a repository."""
    for rel in (".cache/pip", "photos/2024", "proj/.git/refs/tags"):
        (folder / rel).mkdir(parents=True)
    (folder / "notes.txt").write_text("x")


def test_clean_refuses_a_folder_of_the_makers_even_with_a_cache_folder(tmp_path: Path) -> None:
    """`.cache` (every home folder has one) skipped the refusal, and then every empty
    folder in the tree was removed: only `d` was left."""
    folder = tmp_path / "d"
    maker_folders(folder)
    before = folders_and_files(tmp_path)
    with pytest.raises(InputError, match="holds no squadron-cad kit"):
        clean_output(folder)
    assert folders_and_files(tmp_path) == before


def test_clean_removes_no_folder_it_did_not_make(tmp_path: Path) -> None:
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one", "bom.md": "x"})
    maker_folders(out)
    (out / "stl" / "empty").mkdir()
    cleaned = clean_output(out)
    assert sorted(folders_and_files(out)) == [
        ".cache",
        ".cache/pip",
        "notes.txt",
        "photos",
        "photos/2024",
        "proj",
        "proj/.git",
        "proj/.git/refs",
        "proj/.git/refs/tags",
        "stl",
        "stl/empty",
    ]
    assert tuple(cleaned) == (3, ["notes.txt"], [])


def test_clean_refuses_the_home_folder_as_build_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    staged_kit(home, {"stl/a.stl": "one"})
    maker_folders(home)
    before = folders_and_files(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(InputError, match=r"refusing your home folder.*; nothing removed"):
        clean_output(Path("~"))
    assert folders_and_files(tmp_path) == before


def test_clean_removes_the_output_folder_only_when_it_made_it(tmp_path: Path) -> None:
    made = tmp_path / "made"
    staged_kit(made, {"stl/a.stl": "one"})
    staged_kit(made, {"stl/b.stl": "two"})  # a rebuild: the folder is still the tool's
    yours = tmp_path / "yours"
    yours.mkdir()
    staged_kit(yours, {"stl/a.stl": "one"})
    clean_output(made)
    clean_output(yours)
    assert not made.exists()
    assert yours.is_dir()
    assert not list(yours.iterdir())


def test_clean_keeps_a_file_changed_since_it_was_written(tmp_path: Path, cli) -> None:
    """An edited bom.md was deleted, exit 0, no word."""
    out = tmp_path / "out"
    staged_kit(out, {"stl/a.stl": "one", "bom.md": "as built"})
    (out / "bom.md").write_text("my notes in the BOM")
    done = cli("clean", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert tree(out) == {"bom.md": b"my notes in the BOM"}
    assert "kept 1 file(s) you changed since squadron-cad wrote them: bom.md" in done.stderr


def test_an_out_folder_in_a_loop_of_links_is_refused_in_one_line(tmp_path: Path, cli) -> None:
    """`ln -s loop loop; build --out loop` ended in 'internal error: RuntimeError'."""
    (tmp_path / "loop").symlink_to("loop")
    for target in ("loop", "loop/kit"):
        with pytest.raises(InputError, match="lead round in a loop"):
            safe_output_folder(tmp_path / target, "kit")
        with pytest.raises(InputError, match="lead round in a loop"):
            clean_output(tmp_path / target)
    for command in ("build", "clean"):
        done = cli(command, "--out", "loop", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert "loop" in done.stderr

"""`clean` over generated trees: a kit the tool wrote, then whatever a maker does to the
folder (files and empty folders of their own, a cache of another tool, a repository, links
out of the folder and in place of the tool's files and folders, edits, deletions). It
removes exactly the unchanged files the record lists, the folders the tool made once empty
(and the output folder when the tool made it), its own tagged cache; nothing else, and
nothing outside the folder.

No OpenSCAD: plain files staged the way a build stages its kit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from squadron_cad.outfolder import (
    CACHE_NAME,
    RECORD_NAME,
    Staging,
    clean_output,
    prepare_cache,
)

KIT_FILES = [
    "bom.md",
    "manifest.json",
    "stl/a.stl",
    "stl/b.stl",
    "scad/a.scad",
    "plates/one/p.3mf",
    "previews/a.png",
]
FOREIGN_FILES = [
    "notes.txt",
    "stl/mine.txt",
    "photos/2024/cat.jpg",
    "plates/one/extra.txt",
    "scad/deep/x.scad",
]
FOREIGN_FOLDERS = ["photos/2024", "stl/empty", "plates/one/sub", "plates/two", "empty"]
PAPER = {"a4.pdf", "svg/p1.svg"}  # a paper edition written inside the kit's folder
CACHES = ["none", "ours", "untagged", "another tool's"]
LINKS = ["none", "to a folder outside", "in place of a listed file", "in place of stl/"]

Snapshot = dict[str, tuple[str, bytes | str]]
# Memory, where there is one: folders are made and removed many times over.
FAST_DISK = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def snapshot(root: Path) -> Snapshot:
    """Every entry under root, links not followed: folders, files' bytes, links' targets."""
    found: Snapshot = {}
    for here, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(here) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                found[rel] = ("folder", "")
            else:
                found[rel] = ("file", path.read_bytes())
    return found


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def stage(out: Path, kind: str, files: set[str]) -> None:
    staging = Staging(out, kind)
    for rel in sorted(files):
        write(staging.path / rel, f"{kind}: {rel}")
    staging.commit()


def expected_after(before: Snapshot, made: set[str], removable: set[str]) -> Snapshot:
    """The model: remove the removable files, then each folder the tool made (deepest
    first) that nothing is left in."""
    after = {rel: entry for rel, entry in before.items() if rel not in removable}
    for rel in sorted(made, key=lambda r: r.count("/"), reverse=True):
        if after.get(rel, ("",))[0] != "folder":
            continue  # gone, or a link in its place
        if not any(other.startswith(f"{rel}/") for other in after):
            del after[rel]
    return after


@settings(max_examples=60, deadline=None)
@given(
    kit=st.sets(st.sampled_from(KIT_FILES), min_size=1),
    foreign=st.sets(st.sampled_from(FOREIGN_FILES)),
    empty=st.sets(st.sampled_from(FOREIGN_FOLDERS)),
    edited=st.sets(st.sampled_from(KIT_FILES)),
    missing=st.sets(st.sampled_from(KIT_FILES)),
    cache=st.sampled_from(CACHES),
    link=st.sampled_from(LINKS),
    repository=st.booleans(),
    paper=st.booleans(),
    made=st.booleans(),
    keep_cache=st.booleans(),
)
def test_clean_removes_exactly_what_the_tool_wrote(
    kit: set[str],
    foreign: set[str],
    empty: set[str],
    edited: set[str],
    missing: set[str],
    cache: str,
    link: str,
    repository: bool,
    paper: bool,
    made: bool,
    keep_cache: bool,
) -> None:
    with tempfile.TemporaryDirectory(dir=FAST_DISK) as work:
        root = Path(work)
        out = root / "out"
        if not made:
            out.mkdir()  # the maker's folder: it stays
        stage(out, "kit", kit)
        if paper:
            stage(out / "paper", "paper", PAPER)
        if cache == "ours":
            write(prepare_cache(out) / "entry.json", "{}")
        elif cache != "none":
            tag = "Signature: 8a477f597d28d172789f06886806bc55\n" if cache != "untagged" else ""
            write(out / CACHE_NAME / "CACHEDIR.TAG", tag + "# another tool's cache\n")
            write(out / CACHE_NAME / "theirs.bin", "theirs")
        for rel in sorted(foreign):
            write(out / rel, "mine")
        for rel in sorted(empty):
            (out / rel).mkdir(parents=True, exist_ok=True)
        if repository:
            (out / "proj" / ".git" / "refs" / "tags").mkdir(parents=True)
            write(out / "proj" / ".git" / "HEAD", "ref: refs/heads/main\n")
        for rel in sorted(edited & kit):
            write(out / rel, "edited by the maker")
        for rel in sorted(missing & kit - edited):
            (out / rel).unlink()
        outside = root / "outside"
        for rel in ("a.stl", "b.stl", "notes.txt"):
            write(outside / "stl" / rel, f"outside: {rel}")
        _link(out, outside, link, kit)

        before = snapshot(root)
        cleaned = clean_output(out, cache=not keep_cache)
        after = snapshot(root)

        outputs = {"out": ("kit", kit, made)} | (
            {"out/paper": ("paper", PAPER, True)} if paper else {}
        )
        removable, tool_folders, changed = _model(before, outputs, keep_cache)
        assert after == expected_after(before, tool_folders, removable)
        assert sorted(cleaned.edited) == sorted(changed)
        assert not [p for p in root.iterdir() if p.name.startswith(".")], "a claim was left"


def _link(out: Path, outside: Path, link: str, kit: set[str]) -> None:
    if link == "to a folder outside":
        (out / "elsewhere").symlink_to(outside / "stl")
    elif link == "in place of a listed file":
        first = sorted(kit)[0]
        if (out / first).exists():
            (out / first).unlink()
        (out / first).symlink_to(outside / "stl" / "notes.txt")
    elif link == "in place of stl/" and (out / "stl").is_dir():
        shutil.rmtree(out / "stl")
        (out / "stl").symlink_to(outside / "stl")


def _model(
    before: Snapshot, outputs: dict[str, tuple[str, set[str], bool]], keep_cache: bool
) -> tuple[set[str], set[str], list[str]]:
    """From what the test staged, not from the record: the files clean may remove (as
    written, reached through real folders), the folders the tool made (each staged file's
    folders, and the output folder when it was new), and the listed files changed since."""
    removable: set[str] = set()
    folders: set[str] = set()
    changed: list[str] = []
    for prefix, (kind, files, made_here) in outputs.items():
        removable.add(f"{prefix}/{RECORD_NAME}")
        folders |= {f"{prefix}/{parent}" for rel in files for parent in _parents(rel)}
        if made_here:
            folders.add(prefix)
        for rel in files:
            full = f"{prefix}/{rel}"
            if any(before.get(f"{prefix}/{p}", ("",))[0] == "link" for p in _parents(rel)):
                continue  # reached through a link: not the folder's file
            entry = before.get(full)
            if entry == ("file", f"{kind}: {rel}".encode()):
                removable.add(full)
            elif entry is not None:
                changed.append(full.removeprefix("out/"))
    tag = before.get(f"out/{CACHE_NAME}/CACHEDIR.TAG", ("", b""))[1]
    if not keep_cache and b"squadron-cad's render cache" in bytes(tag or b""):
        removable |= {rel for rel in before if rel.startswith(f"out/{CACHE_NAME}/")}
        folders.add(f"out/{CACHE_NAME}")
    return removable, folders, changed


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]

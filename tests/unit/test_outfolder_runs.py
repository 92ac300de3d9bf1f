"""Runs into one output folder: they exclude each other, a swap never takes what it did
not stage, a file of ours the maker changed is never written over, and a swap inside a
mount point (entry by entry) is never left half done.

No OpenSCAD: plain files staged the way a build stages its kit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import CLI_COMMAND

from squadron_cad.errors import InputError
from squadron_cad.outfolder import (
    RECORD_NAME,
    Staging,
    clean_output,
    remove_stale_staging,
    safe_output_folder,
)
from squadron_cad.outfolder import claims as claims_module
from squadron_cad.outfolder import staging as staging_module
from squadron_cad.outfolder import swap as swap_module

HOLD = """
import sys
from pathlib import Path
from squadron_cad.outfolder import Staging
staging = Staging(Path(sys.argv[1]), sys.argv[2])
print("held", flush=True)
sys.stdin.read()
"""


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def staged(out: Path, files: dict[str, str], kind: str = "kit") -> None:
    staging = Staging(out, kind)
    write_into(staging.path, files)
    staging.commit()


def write_into(folder: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


def hidden(folder: Path) -> list[str]:
    """Staging folders (beside a folder or inside it) left in folder."""
    return sorted(p.name for p in folder.iterdir() if claims_module.STAGING_NAME.match(p.name))


@pytest.fixture
def holder() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Another process holding a staging folder (a run under way), killed at the end."""
    runs: list[subprocess.Popen[str]] = []

    def hold(out: Path, kind: str = "kit") -> subprocess.Popen[str]:
        run = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(out), kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert run.stdout is not None
        assert run.stdout.readline().strip() == "held"
        runs.append(run)
        return run

    yield hold
    for run in runs:
        run.kill()
        run.communicate()


# ---- runs exclude each other ----------------------------------------------------------------


def test_a_run_into_a_busy_folder_is_refused_naming_the_other(tmp_path: Path, holder) -> None:
    """`paper --out r` during `build --out r` printed its summary, exit 0, and the kit's
    swap then deleted the paper edition."""
    out = tmp_path / "r"
    staged(out, {"stl/a.stl": "one"})
    before = tree(out)
    other = holder(out)
    for attempt in (
        lambda: safe_output_folder(out, "paper"),
        lambda: Staging(out, "kit"),
        lambda: clean_output(out),
    ):
        with pytest.raises(InputError) as refused:
            attempt()
        assert f"--out {out}: busy: another squadron-cad run (pid {other.pid}:" in str(
            refused.value
        )
    done = subprocess.run(
        [*CLI_COMMAND, "paper", "--out", str(out), "--no-previews"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert f"busy: another squadron-cad run (pid {other.pid}" in done.stderr
    assert tree(out) == before


def test_runs_into_a_folder_and_one_inside_it_exclude_each_other(tmp_path: Path, holder) -> None:
    """A paper edition written into out/paper while the kit swaps out whole lost its
    staging folder with the previous kit."""
    out = tmp_path / "out"
    staged(out, {"stl/a.stl": "one"})
    inner = holder(out / "paper", "paper")
    with pytest.raises(InputError, match=rf"pid {inner.pid}: .* is writing in {out / 'paper'}"):
        Staging(out, "kit")
    inner.kill()
    inner.communicate()
    outer = holder(out)
    with pytest.raises(InputError, match=rf"pid {outer.pid}: .* is writing in {out};"):
        Staging(out / "paper", "paper")


def test_a_killed_runs_staging_is_removed_and_the_folder_free_again(tmp_path: Path, holder) -> None:
    out = tmp_path / "out"
    staged(out, {"stl/a.stl": "one"})
    run = holder(out)
    run.kill()  # SIGKILL: its lock goes with it, whatever becomes of its pid
    run.communicate()
    assert hidden(tmp_path)
    staged(out, {"stl/b.stl": "two"})
    assert tree(out)["stl/b.stl"] == b"two"
    assert hidden(tmp_path) == []


def test_an_output_another_run_swapped_in_meanwhile_is_not_replaced(tmp_path: Path) -> None:
    """What --out holds was checked only at the start: a run that had looked at the folder
    went on to replace what another run had put there since."""
    out = tmp_path / "out"
    safe_output_folder(out, "kit")  # this run looks: a new folder
    script = (
        "import sys; from pathlib import Path; from squadron_cad.outfolder import Staging\n"
        "s = Staging(Path(sys.argv[1]), 'paper'); (s.path / 'a4.pdf').write_text('pdf')\n"
        "s.commit()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(out)], check=True)
    with pytest.raises(InputError, match="another squadron-cad run wrote into it"):
        Staging(out, "kit")
    assert tree(out)["a4.pdf"] == b"pdf"
    assert hidden(tmp_path) == []


# ---- what the maker saves or changes ------------------------------------------------------


@pytest.mark.parametrize("kind", ["kit", "paper", "tolerance"])
def test_a_file_changed_since_it_was_written_is_never_written_over(
    tmp_path: Path, kind: str
) -> None:
    """A plain build restored an edited scad/<part>.scad, even when nothing was rebuilt."""
    out = tmp_path / "out"
    staged(out, {"scad/box.scad": "as built", "bom.md": "as built"}, kind)
    (out / "scad" / "box.scad").write_text("my tweak")
    before = tree(out)
    with pytest.raises(InputError) as refused:
        Staging(out, kind)
    assert str(refused.value) == (
        f"--out {out}: scad/box.scad changed since squadron-cad wrote it; a changed file is "
        f"yours and is never written over: move it out of {out} to keep your changes, or "
        "delete it to have it written anew"
    )
    assert tree(out) == before
    assert hidden(tmp_path) == []
    (out / "scad" / "box.scad").unlink()  # deleted: written anew
    staged(out, {"scad/box.scad": "rebuilt"}, kind)
    assert tree(out)["scad/box.scad"] == b"rebuilt"


def test_files_the_maker_saves_during_a_run_stay_in_the_folder(tmp_path: Path, capsys) -> None:
    """A file saved into out/ during a build ended in the hidden staging folder, exit 0,
    no message; one changed during it was replaced and lost."""
    out = tmp_path / "out"
    staged(out, {"stl/a.stl": "one", "bom.md": "as built"})
    staging = Staging(out, "kit")
    write_into(staging.path, {"stl/a.stl": "new", "bom.md": "new"})
    write_into(out, {"notes.txt": "saved meanwhile", "stl/mine.stl": "mine", "photos/x.jpg": "x"})
    (out / "bom.md").write_text("changed meanwhile")
    staging.commit()
    files = tree(out)
    assert files["notes.txt"] == b"saved meanwhile"
    assert files["stl/mine.stl"] == b"mine"
    assert files["photos/x.jpg"] == b"x"
    assert files["bom.md"] == b"new"
    aside = [rel for rel in files if rel.startswith("bom.md.edited-")]
    assert len(aside) == 1
    assert files[aside[0]] == b"changed meanwhile"
    assert hidden(tmp_path) == []
    said = capsys.readouterr().err
    assert f"your changed bom.md is kept as {aside[0]}" in said
    assert "notes.txt was saved into" in said


# ---- inside a mount point: entry by entry, never half done --------------------------------


OLD_KIT = {"stl/a.stl": "old a", "stl/gone.stl": "old only", "bom.md": "old", "old.txt": "old"}
NEW_KIT = {"stl/a.stl": "new a", "stl/b.stl": "new b", "bom.md": "new", "plates/p.3mf": "new"}


@pytest.fixture
def mount_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder staged the way a mount point is (inside it), with the old kit in it."""
    monkeypatch.setattr(staging_module, "stage_inside", lambda _out: True)
    out = tmp_path / "m"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    staged(out, OLD_KIT)
    return out


def expected_new() -> dict[str, bytes]:
    return {**{rel: text.encode() for rel, text in NEW_KIT.items()}, ".gitkeep": b""}


def without_record(files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: data for rel, data in files.items() if rel != RECORD_NAME}


def test_a_mount_points_staging_lives_inside_it_and_leaves_nothing(mount_point: Path) -> None:
    out = mount_point
    staged(out, NEW_KIT)
    assert without_record(tree(out)) == expected_new()
    assert sorted(p.name for p in out.parent.iterdir()) == ["m"]
    assert not [p for p in out.iterdir() if p.name.startswith(".squadron-cad-staging")]


class Killed(BaseException):
    """The process dies here (SIGKILL): nothing after it runs."""


@pytest.mark.parametrize("steps_done", range(7))
def test_a_swap_cut_short_is_completed_by_the_next_run(
    mount_point: Path, monkeypatch: pytest.MonkeyPatch, steps_done: int
) -> None:
    out = mount_point
    apply = swap_module.apply

    def dies_after(staging: Path, out: Path, steps: list) -> None:
        apply(staging, out, steps[:steps_done])
        raise Killed

    monkeypatch.setattr(swap_module, "apply", dies_after)
    staging = Staging(out, "kit")
    write_into(staging.path, NEW_KIT)
    with pytest.raises(Killed):
        staging.commit()
    staging.claim.release()  # the kernel drops a dead process's lock
    monkeypatch.setattr(swap_module, "apply", apply)
    remove_stale_staging(out)
    assert without_record(tree(out)) == expected_new()
    assert not [p for p in out.iterdir() if p.name.startswith(".squadron-cad-staging")]


def test_ctrl_c_during_a_swap_inside_a_mount_point_waits_for_it(
    mount_point: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = mount_point
    apply = swap_module.apply

    def interrupted(staging: Path, out: Path, steps: list) -> None:
        apply(staging, out, steps[:2])
        signal.raise_signal(signal.SIGINT)
        apply(staging, out, steps)

    monkeypatch.setattr(swap_module, "apply", interrupted)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        staging = Staging(out, "kit")
        write_into(staging.path, NEW_KIT)
        with pytest.raises(KeyboardInterrupt):
            staging.commit()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert without_record(tree(out)) == expected_new()


def test_mount_points_are_told_from_plain_folders(tmp_path: Path) -> None:
    assert claims_module.is_mount_point(Path("/proc"))
    assert not claims_module.is_mount_point(tmp_path)
    assert not claims_module.stage_inside(tmp_path / "new")


def test_a_full_disk_when_a_run_starts_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staging token's write failed with a raw OSError: 'internal error', and the
    staging folder stayed. (The real full disk: tests/integration/test_out_mounts.py.)"""
    import errno

    def full(_self: Path, *_args: object, **_kwargs: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(Exception, match=r"cannot write in .*: No space left on device") as error:
        Staging(tmp_path / "kit", "kit")
    assert type(error.value).__name__ == "ToolError"
    assert list(tmp_path.iterdir()) == []


def test_paper_and_tolerance_plate_do_not_write_over_a_changed_file(tmp_path: Path) -> None:
    """Every command that replaces an output refuses the same way (build and previews:
    tests/integration/faults/), before it writes anything: the toy kit's paper
    edition, the lidded toy kit's tolerance plate (its lid's coupon)."""
    from helpers import registered
    from toykit import TOY_KIT
    from toykit.lidded import TOY_LID_KIT

    from squadron_cad import tolerance
    from squadron_cad.resolve import resolve

    paper, plate = tmp_path / "paper", tmp_path / "plate"
    staged(paper, {"toy_a4.pdf": "as written"}, "paper")
    staged(plate, {"README.md": "as written"}, "tolerance")
    (paper / "toy_a4.pdf").write_text("my annotations")
    (plate / "README.md").write_text("my notes")
    before = tree(tmp_path)
    ladder = tolerance.Ladder.parse(tolerance.DEFAULT_LADDER)
    with registered(TOY_KIT, TOY_LID_KIT):
        with pytest.raises(InputError, match=r"toy_a4\.pdf changed since"):
            TOY_KIT.paper(resolve(kit="toy"), paper, False)
        with pytest.raises(InputError, match=r"README\.md changed since squadron-cad wrote it"):
            tolerance.build_plate(resolve(kit="toy-lid"), plate, ladder, picture=False)
    assert tree(tmp_path) == before
    assert hidden(tmp_path) == []

"""A rebuild keeps what it may and refuses what is the maker's: an unchanged kit is not
rebuilt, pictures are not drawn over a changed kit, another game's kit is not replaced,
and an edited file stays as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kit_files import (
    assert_kit_unchanged,
    assert_nothing_beside,
    cli,
    copy_of,
    hashes,
)

from squadron_cad.errors import InputError
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.pictures import refresh_previews
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

UNCHANGED_PROBE = """
import sys
from squadron_cad.cli import main
try:
    main(["build", "--out", sys.argv[1], "--set", "quality=draft", "--json"])
except SystemExit as done:
    assert not done.code, done.code
heavy = ("numpy", "shapely", "solid2", "trimesh", "scipy", "matplotlib", "manifold3d")
loaded = [name for name in heavy if name in sys.modules]
loaded += [name for name in sys.modules if name.endswith((".design", ".registry"))]
print("heavy modules loaded:", sorted(loaded))
"""


def test_an_unchanged_kit_is_not_rebuilt_nor_its_machinery_loaded(
    whole_kit: Path, its_cache: dict[str, str], tmp_path: Path
) -> None:
    out = copy_of(whole_kit, tmp_path)
    before = hashes(out)
    killed = tmp_path / ".out.staging-4194303-x"  # a killed build's (no such process)
    killed.mkdir()
    (killed / ".squadron-cad-staging").write_text("4194303\n")
    done = subprocess.run(
        [sys.executable, "-c", UNCHANGED_PROBE, str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    # the meshing and CAD libraries, and the kit's design and parts: none to say "up to date"
    assert "heavy modules loaded: []" in done.stdout
    assert "is up to date" in done.stdout
    assert hashes(out) == before
    assert not killed.exists()  # removed by the next run, as README says, an unchanged one too
    bom = out / "bom.md"
    bom.write_text("edited by hand")  # a changed file: not up to date, and the maker's
    run = cli(out, "--set", "quality=draft", "--json", **its_cache)
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 2, stderr
    assert "bom.md changed since squadron-cad wrote it" in stderr
    assert bom.read_text() == "edited by hand"
    bom.unlink()  # deleted: the kit is rebuilt, nothing rendered
    run = cli(out, "--set", "quality=draft", "--json", **its_cache)
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr
    assert json.loads(stdout.splitlines()[-1])["rendered"] == []
    assert hashes(out)["bom.md"] == before["bom.md"]


def test_pictures_are_not_redrawn_over_a_changed_kit(whole_kit: Path, tmp_path: Path) -> None:
    """`previews` draws from the kit's files as built: it refuses a changed STL (it drew
    it, or failed with a blank picture, and recorded its new hash as the build's, so
    that `check` no longer saw the change). A missing picture it redraws."""
    out = copy_of(whole_kit, tmp_path)
    (out / "previews" / "box.png").unlink()
    stl = out / "stl" / "box.stl"
    built = stl.read_bytes()
    stl.write_bytes(built + b"x")
    before = hashes(out)
    with pytest.raises(InputError, match=r"^stl/box.stl is changed since the build: rebuild"):
        refresh_previews(out)
    assert hashes(out) == before
    assert_nothing_beside(out)
    stl.write_bytes(built)
    refresh_previews(out)
    assert (out / "previews" / "box.png").is_file()


def test_only_refuses_to_keep_a_changed_part(whole_kit: Path, tmp_path: Path) -> None:
    """--only keeps the rest of the kit as built: a kept STL changed since then is refused
    before anything is written (it used to fail mid-build naming the hidden staging
    folder), and the message says which part to rebuild too."""
    out = copy_of(whole_kit, tmp_path)
    with (out / "stl" / "plane_token.p1.stl").open("ab") as stream:
        stream.write(b"x")
    before = hashes(out)
    params = resolve(overrides=["quality=draft"])
    with pytest.raises(InputError) as refused:
        build(params, BuildOptions(out_dir=out, only=("box",), previews=False, slice=False))
    assert str(refused.value) == (
        "stl/plane_token.p1.stl is changed since the build: --only keeps it as it is; "
        "rebuild it too (--only plane_token) or the whole kit"
    )
    assert hashes(out) == before
    assert_nothing_beside(out)


def test_a_failed_first_build_leaves_no_folder_and_says_so(tmp_path: Path, capsys) -> None:
    """Failing checks in a folder the build made: no folder (it left the render cache
    there, and said the folder 'keeps the previous kit' though there was none); with
    --keep-failed the kit is there, and the line says so."""
    from squadron_cad.cli import main

    out = tmp_path / "new"
    failing = ["build", "--out", str(out), "--only", "stat_dial_clip", "--no-previews"]
    failing += ["--no-slice", "--set", "checks.min_wall_mm=3"]
    for extra, said in (
        ([], f"nothing written to {out} (--keep-failed puts the kit there to look at)"),
        (["--keep-failed"], f"the kit is in {out} to look at (--keep-failed)"),
    ):
        with pytest.raises(SystemExit) as done:
            main([*failing, *extra])
        stderr = capsys.readouterr().err
        assert done.value.code == 1
        assert stderr.splitlines()[-1].endswith(f"check(s) failed (see above); {said}"), stderr
        assert out.exists() == bool(extra)


def test_another_games_kit_does_not_replace_this_one(whole_kit: Path, tmp_path: Path) -> None:
    """`--kit squadrons` aimed at a Squadron Leader kit's folder is refused before anything
    is written (it replaced the kit whole); new parameters for the same game still
    replace it, as they must (the other tests here)."""
    from squadron_cad.kit import load_kit

    out = copy_of(whole_kit, tmp_path)
    before = hashes(out)
    other = resolve(kit=load_kit("squadrons"))
    with pytest.raises(InputError) as refused:
        build(other, BuildOptions(out_dir=out, previews=False, slice=False))
    assert str(refused.value) == (
        f"--out {out}: holds the squadron-leader kit, which the squadrons kit would replace; "
        f"choose another folder (e.g. --out out-squadrons), or remove it first "
        f"(squadron-cad clean --out {out})"
    )
    assert hashes(out) == before
    assert_nothing_beside(out)


# ---- a file the maker changed is theirs -----------------------------------------------------


def test_a_plain_build_does_not_restore_an_edited_scad_file(
    whole_kit: Path, tmp_path: Path
) -> None:
    """The README invites tweaks in scad/<part>.scad; a plain build restored the file,
    even when it reported '0 rendered, 14 unchanged'."""
    out = copy_of(whole_kit, tmp_path)
    (out / "scad" / "stat_dial_clip.scad").write_text("// my tweak\n")
    before = hashes(out)
    with pytest.raises(InputError, match=r"scad/stat_dial_clip\.scad changed since squadron-cad"):
        build(resolve(overrides=["quality=draft"]), BuildOptions(out_dir=out, jobs=2))
    assert_kit_unchanged(out, before)


def test_only_does_not_overwrite_an_edited_file_of_the_part_it_rebuilds(
    whole_kit: Path, tmp_path: Path
) -> None:
    out = copy_of(whole_kit, tmp_path)
    (out / "scad" / "stat_dial_clip.scad").write_text("// my tweak\n")
    before = hashes(out)
    options = BuildOptions(out_dir=out, only=("stat_dial_clip",), previews=False, slice=False)
    with pytest.raises(InputError, match=r"stat_dial_clip\.scad changed since .* is yours"):
        build(resolve(overrides=["quality=draft"]), options)
    assert_kit_unchanged(out, before)


def test_previews_do_not_redraw_over_an_edited_picture(whole_kit: Path, tmp_path: Path) -> None:
    out = copy_of(whole_kit, tmp_path)
    (out / "previews" / "box.png").write_bytes(b"my own picture")
    before = hashes(out)
    with pytest.raises(InputError, match=r"previews/box\.png changed since squadron-cad"):
        refresh_previews(out)
    assert_kit_unchanged(out, before)

"""The render cache: unchanged parts are not rendered again, a change re-renders exactly
the parts that depend on it, and a damaged or stale entry is never trusted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import MESHES_ONLY, TEST_JOBS

from squadron_cad.console import FINAL_STATUSES as FINAL
from squadron_cad.outfolder import CACHE_NAME, remove_owned
from squadron_cad.pipeline.context import BuildContext
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.parts import progress_total
from squadron_cad.pipeline.transaction import build
from squadron_cad.render import openscad
from squadron_cad.render.cache import source_key
from squadron_cad.resolve import resolve

FAKE = Path(__file__).resolve().parent.parent / "fakes" / "fake_openscad.py"
CHEAP = ("template_straight", "template_turn", "range_ruler_1", "range_ruler_2", "range_ruler_3")
# the slots' clearance alone (the snap ridges on the tabs follow the clearance unless set)
SLOTS_ONLY = ("ruler.joint_clearance_mm=0.2", "ruler.joint_snap_mm=0.3")


def _build(out: Path, overrides: tuple[str, ...] = (), **options):
    """The cheap parts built, renders only (the slicer's and pictures' caches have tests of
    their own)."""
    settings = {"out_dir": out, "only": CHEAP, "jobs": TEST_JOBS, **MESHES_ONLY, **options}
    return build(resolve(overrides=list(overrides)), BuildOptions(**settings))


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> Path:
    """The cheap parts built once for the module, render cache and all."""
    out = tmp_path_factory.mktemp("first")
    first = _build(out)
    assert sorted(first.rendered) == sorted(CHEAP)
    return out


@pytest.fixture
def built(first_build: Path, tmp_path: Path) -> Path:
    """A copy of the first build (kit and cache) that a test may damage."""
    shutil.copytree(first_build, tmp_path, dirs_exist_ok=True)
    return tmp_path


def test_an_unchanged_rebuild_renders_nothing(built: Path) -> None:
    assert _build(built).rendered == []


def test_one_change_re_renders_exactly_its_dependents(built: Path) -> None:
    # --only keeps a kit's parameters: take the kit away, keep its render cache.
    remove_owned(built, keep=(CACHE_NAME,))
    report = _build(built, SLOTS_ONLY)
    assert sorted(report.rendered) == ["range_ruler_2", "range_ruler_3"]


def test_no_cache_renders_everything(built: Path) -> None:
    assert sorted(_build(built, use_cache=False).rendered) == sorted(CHEAP)


def test_a_corrupted_cache_entry_is_detected_and_rebuilt(built: Path) -> None:
    for entry in (built / ".cache").glob("*.stl"):
        entry.write_bytes(entry.read_bytes()[:-50])
    report = _build(built)
    assert sorted(report.rendered) == sorted(CHEAP)
    assert all(result.ok for result in report.parts)


def test_a_deleted_output_file_is_restored_from_the_cache(built: Path) -> None:
    """(A changed one is the maker's: refused, tests/integration/faults/.)"""
    target = built / "stl" / "range_ruler_1.stl"
    good = target.read_bytes()
    target.unlink()
    report = _build(built)
    assert report.rendered == []
    assert target.read_bytes() == good


def test_another_openscad_version_invalidates(built: Path, monkeypatch) -> None:
    monkeypatch.setenv("SQUADRON_OPENSCAD", str(FAKE))
    monkeypatch.setenv("FAKE_OPENSCAD_VERSION", "2099.01")
    openscad._probe.cache_clear()
    try:
        report = _build(built)
    finally:
        openscad._probe.cache_clear()
    assert report.tool.version == "2099.01"
    assert sorted(report.rendered) == sorted(CHEAP)


def test_parallel_and_serial_builds_make_the_same_meshes(tmp_path: Path) -> None:
    serial = _build(tmp_path / "serial", jobs=1, use_cache=False)
    parallel = _build(tmp_path / "parallel", jobs=4, use_cache=False)
    for one, other in zip(serial.parts, parallel.parts, strict=True):
        assert one.stl.read_bytes() == other.stl.read_bytes(), one.spec.name


def test_a_shared_cache_serves_another_output_folder(first_build: Path, tmp_path: Path) -> None:
    """--cache-dir DIR: what one kit rendered, a kit in another folder reuses, byte for byte;
    neither output folder gets a cache of its own."""
    shared = tmp_path / "shared"
    shutil.copytree(first_build / CACHE_NAME, shared)
    report = _build(tmp_path / "other", cache_dir=shared)
    assert report.rendered == []
    for name in CHEAP:
        assert (tmp_path / "other" / "stl" / f"{name}.stl").read_bytes() == (
            first_build / "stl" / f"{name}.stl"
        ).read_bytes()
    assert not (tmp_path / "other" / CACHE_NAME).exists()
    changed = _build(tmp_path / "third", SLOTS_ONLY, cache_dir=shared)
    assert sorted(changed.rendered) == ["range_ruler_2", "range_ruler_3"]
    assert _build(tmp_path / "fourth", SLOTS_ONLY, cache_dir=shared).rendered == []


def test_the_progress_counts_to_the_parts_the_build_goes_through(tmp_path: Path) -> None:
    """The bar once read 20/14: it counted the players' own copies but not in its total
    (build and progress_total share planned_parts, --only inside a kit too)."""
    only = ("template_straight", "plane_token")
    options = BuildOptions(out_dir=tmp_path, only=only, jobs=TEST_JOBS, **MESHES_ONLY)
    params = resolve()
    total = progress_total(BuildContext.of(params, options))
    ended: list[str] = []
    build(params, options, lambda part, status: ended.append(part) if status in FINAL else None)
    assert len(ended) == total == 2 + params.players  # each player's own plane token


def test_player_ones_copy_is_not_rendered_again(tmp_path: Path) -> None:
    """Player 1's copy of a part has the part's own shape (its file and comments differ):
    it comes from the cache the part's render fills, and only player 2's renders."""
    events: list[tuple[str, str]] = []
    only = ("stat_dial_clip", "plane_token")
    options = BuildOptions(out_dir=tmp_path / "kit", only=only, jobs=TEST_JOBS, **MESHES_ONLY)
    report = build(resolve(), options, lambda name, status: events.append((name, status)))
    rendering = sorted(name for name, status in events if status == "rendering")
    assert rendering == ["plane_token", "plane_token.p2", "stat_dial_clip"]
    assert ("plane_token.p1", "cached") in events
    stl = tmp_path / "kit" / "stl"
    assert (stl / "plane_token.p1.stl").read_bytes() == (stl / "plane_token.stl").read_bytes()
    assert (stl / "plane_token.p2.stl").read_bytes() != (stl / "plane_token.stl").read_bytes()
    assert report.committed


def test_comments_do_not_change_a_render_key() -> None:
    tool = openscad.OpenScad("openscad", "2021.01", manifold=False)
    source = "// a.scad: a part\ncube(1);\n  // ---- a ----\nsphere(2);\n"
    renamed = "// a.p1.scad: a part\ncube(1);\n  // ---- a.p1 ----\nsphere(2);\n"
    assert source_key(source, tool) == source_key(renamed, tool)
    assert source_key(source.replace("cube(1)", "cube(2)"), tool) != source_key(source, tool)

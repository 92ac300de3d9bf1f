"""Real renders, once per session: the default kit and a second parameter set."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers import MESHES_ONLY, TEST_JOBS

from squadron_cad.kit import Part, design_of, kit_of
from squadron_cad.locks import folder_lock
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.resolve import resolve

if TYPE_CHECKING:
    import trimesh

# The meshes' and renders' modules (trimesh, the pipeline) are imported where they are
# used: the browser tests, run alone (`make test-web`), start 0.65 CPU-s sooner a process.

# Width 30 at draft quality, in a tin that holds it: the session's second parameter set.
WIDE_DRAFT = [
    "token.width_mm=30",
    "quality=draft",
    "tin.inner_length_mm=130",
    "tin.inner_width_mm=100",
    "tin.inner_depth_mm=30",
]


@pytest.fixture(scope="session", autouse=True)
def warm_node() -> Iterator[None]:
    """Each worker builds dozens of kits in its own process: its node batch process stays
    started between them (a start costs 0.45 CPU-s); a command's run starts its own."""
    from squadron_cad.render import manifold_batch

    manifold_batch.keep_warm(TEST_JOBS)
    yield
    manifold_batch.keep_warm(0)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One render cache (`--cache-dir`) for the session's kits, shared by the xdist workers: a
    part or a slicer figure made for one fixture is reused by the others. Tests of the
    renders themselves (faults, cache, fuzz, backends) keep caches of their own."""
    base = tmp_path_factory.getbasetemp()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return base.parent / f"render-cache-{run}" if run else base / "render-cache"


@pytest.fixture(scope="session")
def render_parts(shared_cache: Path) -> Callable[[KitParamsBase, Iterable[str], Path], Path]:
    """Build just the named parts into a folder (its stl/ holds them), through the
    pipeline's renderer and the session's cache; any failing mesh check fails the test."""

    def render(params: KitParamsBase, names: Iterable[str], folder: Path) -> Path:
        options = BuildOptions(
            out_dir=folder, only=tuple(names), jobs=TEST_JOBS, cache_dir=shared_cache, **MESHES_ONLY
        )
        from squadron_cad.pipeline.transaction import build

        report = build(params, options)
        assert not report.failures, [f.line() for f in report.failures]
        return folder / "stl"

    return render


class _ReportPickler(pickle.Pickler):
    """A build report pickled with its parts by name: a kit's builders are closures."""

    def persistent_id(self, obj: object) -> tuple[str, str | None, int | None] | None:
        if isinstance(obj, Part):
            return (obj.variant_of or obj.name, obj.variant_of and obj.name, obj.player)
        return None


class _ReportUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes, params: KitParamsBase) -> None:
        super().__init__(io.BytesIO(data))
        self.parts = {spec.name: spec for spec in kit_of(params).parts}
        self.players = params.players

    def persistent_load(self, pid: tuple[str, str | None, int | None]) -> Part:
        name, variant, player = pid
        if variant is None or player is None:
            return self.parts[name]
        return self.parts[name].player_variants(self.players)[player]


def _once_per_run(
    name: str, own: Path, shared_cache: Path, make: Callable[[Path], BuildReport]
) -> BuildReport:
    """The kit `make` builds, built once per test run: the first xdist worker to ask builds it
    (under a folder lock) and records its report; each worker then works on a copy of its
    own, so that neither sees what the other's tests do to theirs."""
    shared = shared_cache.with_name(f"{shared_cache.name}-kits") / name
    turn = shared / "turn"  # the lock's own folder: a build locks its out folder's parent
    turn.mkdir(parents=True, exist_ok=True)
    kit, record = shared / "kit", shared / "report.pickle"
    with folder_lock(turn):
        if not record.is_file():
            report = make(kit)
            stream = io.BytesIO()
            _ReportPickler(stream).dump(report)
            record.write_bytes(pickle.dumps((report.params, stream.getvalue())))
    params, data = pickle.loads(record.read_bytes())
    report = _ReportUnpickler(data, params).load()
    shutil.copytree(kit, own, symlinks=True)
    report.relocate(kit, own)
    report.out_dir = own
    return report


def _build(
    name: str, own: Path, shared_cache: Path, params: KitParamsBase, **options: Any
) -> BuildReport:
    def make(folder: Path) -> BuildReport:
        from squadron_cad.pipeline.transaction import build

        settings = BuildOptions(out_dir=folder, jobs=TEST_JOBS, cache_dir=shared_cache, **options)
        return build(params, settings)

    return _once_per_run(name, own, shared_cache, make)


@pytest.fixture(scope="session")
def default_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """The whole default kit at final quality, as `make stl` builds it."""
    own = tmp_path_factory.mktemp("default") / "out"
    return _build("default", own, shared_cache, resolve(), previews=False)


@pytest.fixture(scope="session")
def wide_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """Width 30 at draft quality: every size must scale with the token (its meshes are
    what its tests read: no slicer, plates or pictures)."""
    own = tmp_path_factory.mktemp("wide") / "out"
    return _build("wide", own, shared_cache, resolve(overrides=WIDE_DRAFT), **MESHES_ONLY)


@pytest.fixture(scope="session")
def wide_draft_overrides() -> list[str]:
    """wide_kit's overrides, for tests that render its parameter set their own way."""
    return list(WIDE_DRAFT)


@pytest.fixture(scope="session")
def draft_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """The whole default kit at draft quality with every output (slicer, plates, layout,
    BOM, pictures), built once for the session: copy it before changing anything in it
    (rebuilds of a copy find its parts in the session's cache: SQUADRON_CACHE)."""
    own = tmp_path_factory.mktemp("draft") / "out"
    return _build("draft", own, shared_cache, resolve(overrides=["quality=draft"]))


@pytest.fixture(scope="session")
def built_kit(
    tmp_path_factory: pytest.TempPathFactory, shared_cache: Path, request: pytest.FixtureRequest
) -> Callable[[str], BuildReport]:
    """Each installed kit built once for the session with its defaults (no pictures or
    slicer; the default kit is `default_kit`, which slices)."""
    from squadron_cad.kit import default_kit as the_default

    built: dict[str, BuildReport] = {}

    def kit(name: str) -> BuildReport:
        if name == the_default().name:
            return request.getfixturevalue("default_kit")
        if name not in built:
            own = tmp_path_factory.mktemp(name.replace("-", "_")) / "kit"
            params = resolve(kit=name)
            built[name] = _build(name, own, shared_cache, params, previews=False, slice=False)
        return built[name]

    return kit


@pytest.fixture(scope="session")
def default_meshes(default_kit) -> dict[str, trimesh.Trimesh]:
    from squadron_cad.checks.mesh import load_mesh

    return {r.spec.name: load_mesh(r.stl) for r in default_kit.parts}


@pytest.fixture(scope="session")
def wide_meshes(wide_kit) -> dict[str, trimesh.Trimesh]:
    from squadron_cad.checks.mesh import load_mesh

    return {r.spec.name: load_mesh(r.stl) for r in wide_kit.parts}


@dataclass(frozen=True)
class CgalRenders:
    """Every part of one parameter set, emitted to scad/<part>.scad and rendered by the
    pipeline's CGAL backend (Debian's OpenSCAD, each file alone in a folder of its own)."""

    overrides: tuple[str, ...]
    scad_dir: Path
    stl_dir: Path
    backends: dict[str, str]  # part -> the backend its render result names

    def stl(self, part: str) -> Path:
        return self.stl_dir / f"{part}.stl"


@pytest.fixture(scope="session")
def cgal_renders(shared_cache: Path) -> Callable[[list[str]], CgalRenders]:
    """CGAL renders of a parameter set, made once per test run for both xdist workers (a
    folder lock, then a record the other worker reads): the backend-equivalence and the
    Customizer tests share them, and CGAL is the suite's slowest renderer."""
    root = shared_cache.with_name(f"{shared_cache.name}-cgal")

    def renders(overrides: list[str]) -> CgalRenders:
        key = hashlib.sha256("\n".join(overrides).encode()).hexdigest()[:16]
        folder = root / key
        folder.mkdir(parents=True, exist_ok=True)
        with folder_lock(folder):
            record = folder / "record.json"
            if not record.is_file():
                backends = _render_with_cgal(overrides, folder)
                record.write_text(json.dumps(backends))
            backends = json.loads(record.read_text())
        return CgalRenders(tuple(overrides), folder / "scad", folder / "stl", backends)

    return renders


def _render_with_cgal(overrides: list[str], folder: Path) -> dict[str, str]:
    from squadron_cad.kits.squadron_leader.parts.registry import PARTS
    from squadron_cad.pipeline.rendering import emit_sources
    from squadron_cad.render.backends import RenderJob, select_backend

    sources = emit_sources(design_of(resolve(overrides=overrides)), list(PARTS))
    scad_dir, stl_dir = folder / "scad", folder / "stl"
    scad_dir.mkdir()
    stl_dir.mkdir()
    for name, source in sources.items():
        (scad_dir / f"{name}.scad").write_text(source.text, encoding="utf-8")
    jobs = [RenderJob(name, src.text, stl_dir / f"{name}.stl") for name, src in sources.items()]
    results = select_backend("cgal").render(jobs, timeout_s=600, workers=2)
    return {result.part: result.backend for result in results}

"""Real renders, once per session: the default kit and a second parameter set."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.build import BuildOptions, BuildReport, build
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.params import KitParamsBase
from squadron_cad.resolve import resolve


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
            out_dir=folder,
            only=tuple(names),
            jobs=2,
            previews=False,
            slice=False,
            plates=False,
            cache_dir=shared_cache,
        )
        report = build(params, options)
        assert not report.failures, [f.line() for f in report.failures]
        return folder / "stl"

    return render


def _build(folder: Path, overrides: list[str], cache: Path) -> BuildReport:
    options = BuildOptions(out_dir=folder, jobs=2, previews=False, cache_dir=cache)
    return build(resolve(overrides=overrides), options)


@pytest.fixture(scope="session")
def default_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """The whole default kit at final quality, as `make stl` builds it."""
    return _build(tmp_path_factory.mktemp("default"), [], shared_cache)


@pytest.fixture(scope="session")
def wide_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """Width 30 at draft quality: every size must scale with the token."""
    wider_tin = ["tin.inner_length_mm=130", "tin.inner_width_mm=100", "tin.inner_depth_mm=30"]
    overrides = ["token.width_mm=30", "quality=draft", *wider_tin]
    return _build(tmp_path_factory.mktemp("wide"), overrides, shared_cache)


@pytest.fixture(scope="session")
def draft_kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    """The whole default kit at draft quality with every output (slicer, plates, layout,
    BOM, pictures), built once for the session: copy it before changing anything in it
    (rebuilds of a copy find its parts in the session's cache: SQUADRON_CACHE)."""
    out = tmp_path_factory.mktemp("draft") / "out"
    options = BuildOptions(out_dir=out, jobs=2, cache_dir=shared_cache)
    return build(resolve(overrides=["quality=draft"]), options)


@pytest.fixture(scope="session")
def default_meshes(default_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in default_kit.parts}


@pytest.fixture(scope="session")
def wide_meshes(wide_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in wide_kit.parts}


def extents(mesh: trimesh.Trimesh) -> np.ndarray:
    return np.asarray(mesh.extents, dtype=float)

"""Real renders, once per session: the default kit and a second parameter set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.build import BuildOptions, BuildReport, build
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.resolve import resolve


def _build(folder: Path, overrides: list[str]) -> BuildReport:
    options = BuildOptions(out_dir=folder, jobs=2, previews=False)
    return build(resolve(overrides=overrides), options)


@pytest.fixture(scope="session")
def default_kit(tmp_path_factory) -> BuildReport:
    """The whole default kit at final quality, as `make stl` builds it."""
    return _build(tmp_path_factory.mktemp("default"), [])


@pytest.fixture(scope="session")
def wide_kit(tmp_path_factory) -> BuildReport:
    """Width 30 at draft quality: every size must scale with the token."""
    wider_tin = ["tin.inner_length_mm=130", "tin.inner_width_mm=100", "tin.inner_depth_mm=30"]
    return _build(
        tmp_path_factory.mktemp("wide"), ["token.width_mm=30", "quality=draft", *wider_tin]
    )


@pytest.fixture(scope="session")
def draft_kit(tmp_path_factory) -> BuildReport:
    """The whole default kit at draft quality with every output (slicer, plates, layout,
    BOM, pictures), built once for the session: copy it before changing anything in it."""
    out = tmp_path_factory.mktemp("draft") / "out"
    return build(resolve(overrides=["quality=draft"]), BuildOptions(out_dir=out, jobs=2))


@pytest.fixture(scope="session")
def default_meshes(default_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in default_kit.parts}


@pytest.fixture(scope="session")
def wide_meshes(wide_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in wide_kit.parts}


def extents(mesh: trimesh.Trimesh) -> np.ndarray:
    return np.asarray(mesh.extents, dtype=float)

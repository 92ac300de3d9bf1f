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
    return build(resolve(overrides=overrides), BuildOptions(out_dir=folder, jobs=2))


@pytest.fixture(scope="session")
def default_kit(tmp_path_factory) -> BuildReport:
    """The whole default kit at final quality, as `make stl` builds it."""
    return _build(tmp_path_factory.mktemp("default"), [])


@pytest.fixture(scope="session")
def wide_kit(tmp_path_factory) -> BuildReport:
    """Width 30 at draft quality: every size must scale with the token."""
    return _build(tmp_path_factory.mktemp("wide"), ["token.width_mm=30", "quality=draft"])


@pytest.fixture(scope="session")
def default_meshes(default_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in default_kit.parts}


@pytest.fixture(scope="session")
def wide_meshes(wide_kit) -> dict[str, trimesh.Trimesh]:
    return {r.spec.name: load_mesh(r.stl) for r in wide_kit.parts}


def extents(mesh: trimesh.Trimesh) -> np.ndarray:
    return np.asarray(mesh.extents, dtype=float)

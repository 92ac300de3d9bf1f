"""The kits the fault tests hurt: copies of a two-part kit (`out`) and of the session's
draft kit (`whole_kit`), so that no test sees what another did to its copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest
from helpers import TEST_JOBS
from kit_files import PARTS, copy_of

from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve


@pytest.fixture(scope="session", autouse=True)
def forks_stopped() -> Iterator[None]:
    """The process the builds are forked from ends with the session, reaped (forked_cli)."""
    yield
    forked_cli.stop()


@pytest.fixture(scope="module")
def good_outputs(tmp_path_factory) -> Path:
    """A kit of two parts (quick to render, enough to hurt)."""
    out = tmp_path_factory.mktemp("good") / "out"
    build(resolve(), BuildOptions(out_dir=out, only=tuple(PARTS), jobs=TEST_JOBS))
    return out


@pytest.fixture(scope="module")
def whole_kit(draft_kit) -> Path:
    """The whole default kit with every output: plates, previews, layout, BOM (the
    session's draft kit; tests change only copies of it)."""
    return draft_kit.out_dir


@pytest.fixture(scope="module")
def its_cache(shared_cache: Path) -> dict[str, str]:
    """The environment that gives a rebuild of whole_kit's copy the cache it was built
    with (the session's: the copy has none of its own), as `cli(..., **its_cache)`."""
    return {"SQUADRON_CACHE": str(shared_cache)}


@pytest.fixture
def out(good_outputs: Path, tmp_path: Path) -> Path:
    return copy_of(good_outputs, tmp_path)

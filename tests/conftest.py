"""Markers by folder: every test under tests/integration is `integration`, every test
under tests/integration/web is `web` as well (`make test-fast` leaves both out), so a new
file there needs no marker of its own. And the toy kit (tests/toykit) the engine's tests
drive the engine with: `toy_kit`, `toy_params` (tests/ is on the path: `import toykit`,
`import helpers`).

Under `make test` (xdist, `--dist loadfile --no-loadscope-reorder`) a file's tests run on
one worker, so that what its module fixtures build is built once, not on both workers;
the integration files go first, the longest of them ahead (xdist would otherwise order
files by their number of tests, and a long file started last keeps one worker busy
alone at the end), and the unit files fill in behind them, their longest first."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from squadron_cad.kit import Kit
    from squadron_cad.params import KitParamsBase

TESTS = Path(__file__).parent
# The tests' helper modules (beside the files that import them): their asserts show the
# values compared on failure, as a test file's own do.
pytest.register_assert_rewrite("helpers", "kit_files", "fuzz_draws", "plate_layers", "page_steps")
FOLDER_MARKERS = {"integration": pytest.mark.integration, "web": pytest.mark.web}
# The longest files (15-35 s of one worker each, measured 2026-11-28), first: only an order.
LONGEST_FIRST = (
    "integration/faults/test_interrupts.py",
    "integration/kits/squadron_leader/test_fuzz_renders.py",
    "integration/faults/test_kit_whole.py",
    "integration/kits/squadron_leader/test_fuzz_kept_draws.py",
    "integration/test_examples.py",
    # It builds the Squadrons kit: started beside test_squadrons_kit, which needs the same
    # build, one worker waited 4 s for the other's (the build is locked, made once a run).
    "integration/kits/squadrons/test_paper_squadrons_parts.py",
    "integration/faults/test_rebuilds.py",
)
# The unit files that take seconds ahead of the others, so that the run ends on short files
# on both workers: ended by these, one core idled for 4 s (measured 2026-11-28). Those that
# mostly wait (timeouts, child processes) alternate with those that compute: the two
# workers take neighbours at once, and two waiting together left a core idle.
UNIT_LONGEST_FIRST = (
    "unit/test_cli.py",
    "unit/test_render_backends.py",  # waits
    "unit/kits/squadron_leader/test_fit.py",
    "unit/test_bench.py",  # waits
    "unit/kits/squadron_leader/test_fuzz_leader_params.py",
    "unit/test_input_limits.py",  # waits
)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Markers as each test is collected, before -m deselects by them."""
    if not item.path.is_relative_to(TESTS):
        return
    for folder in item.path.relative_to(TESTS).parts[:-1]:
        marker = FOLDER_MARKERS.get(folder)
        if marker is not None:
            item.add_marker(marker)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_order)  # stable: a file's tests stay in their order


def pytest_collection_finish() -> None:
    """What collection made (the test modules, their items, the libraries they imported)
    lives to the end of the run: frozen, the collector no longer walks it at each full
    pass, and young objects are collected less often (a worker spent 4-5 CPU-s in GC)."""
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist the second worker collects the test files last to first. Each worker
    imports every test file (rewriting its asserts, compiling what it imports): on a fresh
    clone the two did the same work side by side, 7.9-9.2 s before the first test; from
    both ends each finds the other's half written, 6.3-7.3 s (measured 2026-11-28). The
    tests run in _order's order either way, as xdist requires of both workers."""
    if os.environ.get("PYTEST_XDIST_WORKER") != "gw1":
        return
    if [Path(arg).resolve() for arg in config.args] != [TESTS.resolve()]:
        return  # files named on the command line: collected as named
    config.args[:] = [str(path) for path in sorted(TESTS.rglob("test_*.py"), reverse=True)]


def _order(item: pytest.Item) -> tuple[int, int, tuple[str, ...]]:
    """Integration files first, then unit files, each group's listed ones ahead; then by
    path, as pytest collects a folder, whatever order the files were collected in."""
    if not item.path.is_relative_to(TESTS):
        return (2, 0, item.path.parts)
    relative = item.path.relative_to(TESTS)
    name = relative.as_posix()
    if name.startswith("integration/"):
        return (0, _rank(name, LONGEST_FIRST), relative.parts)
    return (1, _rank(name, UNIT_LONGEST_FIRST), relative.parts)


def _rank(name: str, first: tuple[str, ...]) -> int:
    return first.index(name) if name in first else len(first)


@pytest.fixture(scope="module")
def toy_kit() -> Iterator[Kit]:
    """The toy kit, known to this process while the module's tests run (helpers.registered)."""
    from helpers import registered
    from toykit import TOY_KIT

    with registered(TOY_KIT):
        yield TOY_KIT


@pytest.fixture(scope="module")
def toy_params(toy_kit: Kit) -> KitParamsBase:
    """The toy kit's defaults: the engine's sections as the engine's defaults.yaml sets them."""
    from squadron_cad.resolve import resolve

    return resolve(kit=toy_kit.name)

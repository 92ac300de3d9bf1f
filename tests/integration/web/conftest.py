"""The customizer in a real browser: `squadron-cad serve` on a free port, Debian's chromium.

Every page fails its test on a request that leaves 127.0.0.1 and on any console error.
One page per worker, one server per module. Its builds use the session's render cache
(shared_cache), and the kit the page builds is the session's Space Planes kit (built_kit:
the same parameters), so a build from the page finds every part in the cache; a test that
needs a built kit and finds none gets a copy of the session's, in the folder the server
owns.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from page_steps import BUILT_KIT, copy_kit

from squadron_cad.pipeline.report import BuildReport
from squadron_cad.web.browser import (
    Server,
    Watch,
    launch,
    start_server,
    stop_server,
    watched_page,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("web") / "out", shared_cache)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def built(server: Server, page_kit: BuildReport) -> Callable[[], Path]:
    """The server's folder for the page's kit, holding a kit: the session's copied in when
    no test of the module has built one from the page yet."""

    def folder() -> Path:
        target = server.kit_folder(BUILT_KIT)
        if not (target / "manifest.json").is_file():
            shutil.rmtree(target, ignore_errors=True)
            copy_kit(page_kit, target)
        return target

    return folder


@pytest.fixture(scope="module")
def page_kit(built_kit: Callable[[str], BuildReport]) -> BuildReport:
    """The session's build of the kit the page builds (its defaults; no pictures or slicer,
    which the page's build adds)."""
    return built_kit(BUILT_KIT)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            launched = launch(playwright)
        except RuntimeError as error:
            pytest.fail(str(error))
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def one_page(browser: Any) -> Iterator[tuple[Any, Watch]]:
    """One page for the worker's tests, each left at about:blank. A context and page made
    for each test cost chromium about half a CPU-second: with one, `make test-web` took
    0.82 x the wall and 0.90 x the CPU (5 paired runs, 2026-11-28)."""
    opened, seen = watched_page(browser)
    yield opened, seen
    opened.context.close()


@pytest.fixture
def page(one_page: tuple[Any, Watch]) -> Iterator[Any]:
    opened, seen = one_page
    seen.outside.clear()
    seen.errors.clear()
    yield opened
    opened.goto("about:blank")  # the test's page ends: its streams and timers with it
    assert not seen.outside, f"requests left 127.0.0.1: {seen.outside}"
    assert not seen.errors, f"console errors: {seen.errors}"

"""The customizer in a real browser: `squadron-cad serve` on a free port, Debian's chromium.

Every page fails its test on a request that leaves 127.0.0.1 and on any console error.
The server's builds use the session's render cache (tests/integration/conftest.py's
shared_cache: the same folder), so the draft kit a build needs is rendered once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from squadron_cad.web.browser import Server, launch, start_server, stop_server, watched_page


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The integration tests' render cache folder (same name, so the same folder)."""
    base = tmp_path_factory.getbasetemp()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return base.parent / f"render-cache-{run}" if run else base / "render-cache"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("web") / "out", shared_cache)
    yield running
    stop_server(running)


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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened, seen = watched_page(browser)
    yield opened
    opened.context.close()
    assert not seen.outside, f"requests left 127.0.0.1: {seen.outside}"
    assert not seen.errors, f"console errors: {seen.errors}"

"""The customizer in a real browser: `squadron-cad serve` on a free port, Debian's chromium.

Every page fails its test on a request that leaves 127.0.0.1 and on any console error.
The server's builds use the session's render cache (tests/integration/conftest.py's
shared_cache: the same folder), so the draft kit a build needs is rendered once.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"  # Debian's (scripts/setup-system.sh); never `playwright install`
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-unsafe-swiftshader",  # WebGL on the CPU: the 3D view, headless
    "--use-angle=swiftshader",
]


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The integration tests' render cache folder (same name, so the same folder)."""
    base = tmp_path_factory.getbasetemp()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return base.parent / f"render-cache-{run}" if run else base / "render-cache"


@dataclass
class Server:
    url: str
    out: Path
    process: subprocess.Popen[str]

    def kit_folder(self, kit: str) -> Path:
        return self.out / kit


def start_server(out: Path, cache: Path) -> Server:
    env = {**os.environ, "SQUADRON_CACHE": str(cache)}
    command = [sys.executable, "-m", "squadron_cad", "serve", "--port", "0", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert found, f"serve said {line!r}"
    return Server(found.group(0), out, process)


def stop_server(server: Server) -> None:
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("web") / "out", shared_cache)
    yield running
    stop_server(running)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: run `make setup` (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@dataclass
class Watch:
    """What a page did that it must not: leave the machine, or log an error."""

    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def watched_page(browser: object, width: int = 1280, height: int = 900) -> tuple[object, Watch]:
    context = browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True
    )  # type: ignore[attr-defined]
    seen = Watch()

    def gate(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        host = urlsplit(url).hostname
        if url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()  # type: ignore[attr-defined]
        else:
            seen.outside.append(url)
            route.abort()  # type: ignore[attr-defined]

    context.route("**/*", gate)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    return page, seen


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    opened, seen = watched_page(browser)
    yield opened
    opened.context.close()  # type: ignore[attr-defined]
    assert not seen.outside, f"requests left 127.0.0.1: {seen.outside}"
    assert not seen.errors, f"console errors: {seen.errors}"

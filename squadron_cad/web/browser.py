"""The customizer in a real browser, for its tests, its benchmark and `make docs`' pictures.

Debian's chromium (scripts/setup-system.sh installs it) driven by Playwright for Python, a
dev dependency: never `playwright install`, which downloads a browser from elsewhere.
`serve` runs as a child on a free port; a page counts every request that leaves
127.0.0.1 (and refuses it) and every console error.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = "/usr/bin/chromium"
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


@dataclass
class Server:
    url: str
    out: Path
    process: subprocess.Popen[str]

    def kit_folder(self, kit: str) -> Path:
        return self.out / kit


def start_server(out: Path, cache: Path | None = None) -> Server:
    """`squadron-cad serve --port 0` into `out`, its builds sharing the render cache."""
    env = dict(os.environ)
    if cache is not None:
        env["SQUADRON_CACHE"] = str(cache)
    command = [sys.executable, "-m", "squadron_cad", "serve", "--port", "0", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if found is None:
        process.kill()
        raise RuntimeError(f"serve said {line!r}")
    return Server(found.group(0), out, process)


def stop_server(server: Server) -> None:
    """Ctrl-C, as a maker stops it: a running build is cancelled on the way out."""
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise


def launch(playwright: Any) -> Any:
    if not Path(CHROMIUM).is_file():
        raise RuntimeError(f"{CHROMIUM} is missing: `make setup` installs Debian's chromium")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class Watch:
    """What a page did that it must not: leave the machine, or log an error."""

    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def watched_page(
    browser: Any, width: int = 1280, height: int = 900, *, gate: bool = True
) -> tuple[Any, Watch]:
    """A new page that notes every request leaving 127.0.0.1 and every console error.
    With `gate` (the tests) such a request is also refused, each request passing through
    Playwright's router; without it (the benchmark, timing the page as a maker's browser
    runs it) requests are only watched."""
    size = {"width": width, "height": height}
    context = browser.new_context(viewport=size, accept_downloads=True)
    seen = Watch()

    def outside(url: str) -> bool:
        return not url.startswith(("data:", "blob:")) and urlsplit(url).hostname != "127.0.0.1"

    def route(route: Any) -> None:
        if outside(route.request.url):
            seen.outside.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def console_message(message: Any) -> None:
        if message.type == "error":
            seen.errors.append(message.text)

    def request(request: Any) -> None:
        if outside(request.url):
            seen.outside.append(request.url)

    if gate:
        context.route("**/*", route)
    else:
        context.on("request", request)
    page = context.new_page()
    page.on("console", console_message)
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    return page, seen


def screenshots(folder: Path) -> list[Path]:
    """The page as a maker first sees it, on a desktop and at a phone's width (390 px),
    for the README and docs/customizer.md (`make docs`)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    written = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        server = start_server(Path(scratch) / "out")
        browser = launch(playwright)
        try:
            for name, width, height in (("customizer", 1280, 860), ("customizer-phone", 390, 844)):
                page, seen = watched_page(browser, width, height)
                page.goto(server.url + "?kit=squadron-leader&tin=v2-box&players=2")
                page.wait_for_selector("body[data-ready='1']", timeout=30_000)
                target = folder / f"{name}.png"
                page.screenshot(path=str(target))
                page.context.close()
                if seen.errors or seen.outside:
                    raise RuntimeError(f"the page misbehaved: {seen}")
                written.append(target)
        finally:
            browser.close()
            stop_server(server)
    return written


if __name__ == "__main__":
    for path in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(path)

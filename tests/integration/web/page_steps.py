"""What the customizer's tests do on the page: open it, edit a field, wait for the fit or
the build."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

KIT = "squadron-leader"
DRAFT = f"?kit={KIT}&quality=draft"
# The kit the page builds: the session's Space Planes kit (conftest's `built`), the three
# kits' quickest to build (2.1 s cold, against 7.6 s for Squadron Leader's draft kit).
BUILT_KIT = "space-planes"
BUILT = f"?kit={BUILT_KIT}"


def open_page(page, server, query: str) -> None:
    page.goto(server.url + query)
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)


def fitted(page, seq_before: str) -> None:
    """Wait for the fit asked after an edit (a later sequence number than before)."""
    # selectors, not a script: the page's Content-Security-Policy forbids eval
    page.wait_for_selector(f"body[data-fit-seq]:not([data-fit-seq='{seq_before}'])", timeout=5_000)


def edit(page, key: str, text: str) -> None:
    before = page.evaluate("document.body.dataset.fitSeq")
    page.fill(f'[name="{key}"]', text)
    fitted(page, before)


def wait_build(page, timeout_s: float = 240) -> str:
    page.wait_for_selector(
        "body[data-build-state]:not([data-build-state=running])", timeout=timeout_s * 1000
    )
    return page.evaluate("document.body.dataset.buildState")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def copy_kit(report, folder: Path) -> Path:
    """A built kit (a BuildReport's folder) copied into a server's kit folder, its render
    cache left behind: the kit a page's build then keeps or replaces."""
    shutil.copytree(report.out_dir, folder, ignore=shutil.ignore_patterns(".cache"))
    return folder

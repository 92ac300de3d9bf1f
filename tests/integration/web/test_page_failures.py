"""What the customizer's page says when things go wrong, in Debian's chromium against a
real `squadron-cad serve`: a build whose checks fail, a server that was stopped (a file of
its own: it runs beside the builds)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import kit_file_hashes
from page_steps import BUILT, BUILT_KIT, copy_kit, edit, open_page, wait_build

from squadron_cad.web.browser import start_server, stop_server, watched_page
from squadron_cad.web.builds import group_alive


def test_a_failed_build_names_its_failing_checks_and_keeps_the_kit(page, server, built) -> None:
    folder = built()
    before = kit_file_hashes(folder)
    # 2-3 mm beside each piece in its pocket: none has that much (no mesh changes, and no
    # part's own checks are measured again: a quick failure)
    open_page(page, server, f"{BUILT}&checks.pocket_fit.min_mm=2&checks.pocket_fit.max_mm=3")
    page.click("#build")
    assert wait_build(page) == "exit-1"
    verdict = page.locator("#verdict")
    assert "bad" in (verdict.get_attribute("class") or "")
    lines = verdict.locator("p").all_text_contents()
    failing = [line for line in lines if line.startswith("FAIL ")]
    assert any(line.startswith("FAIL box+joker_gauge: pocket_gap: ") for line in failing), lines
    assert all("under 2-3 mm per side (checks.pocket_fit)" in line for line in failing), lines
    assert any("check(s) failed (see above)" in line for line in lines), lines
    # the findings come before the line that points above to them
    said = next(i for i, line in enumerate(lines) if "see above" in line)
    assert said > max(lines.index(line) for line in failing)
    assert "keeps the previous kit" in lines[said]
    assert kit_file_hashes(folder) == before
    # asked to keep it: the failed kit replaces the folder's, to look at (the CLI's option)
    page.click("[data-tab=make]")
    page.check("#keep-failed")
    page.click("#build2")
    assert wait_build(page) == "exit-1"
    assert page.text_content("#command").endswith("--keep-failed")
    assert "to look at (--keep-failed)" in page.text_content("#verdict")
    kept = json.loads((folder / "manifest.json").read_text())
    assert kept["params"]["checks"]["pocket_fit"] == {"min_mm": 2.0, "max_mm": 3.0}
    assert page.locator("#downloads a[href$='manifest.json']").count() == 1
    # the build is over: no stage is left shown as running (the swap says no end of its own)
    assert page.locator("#steps li[data-status=running]").count() == 0


def test_ctrl_c_on_serve_mid_build_keeps_the_kit_and_the_page_says_so(
    browser, tmp_path: Path, shared_cache, page_kit
) -> None:
    """Ctrl-C on `serve` while the page's build renders: the build stops with it, the kit
    the folder held is byte-identical, no process or staging folder is left, and the page
    says so. Left open, its next Build and edit say that the server is not answering and
    how to start it again, and Build waits for it."""
    server = start_server(tmp_path / "out", shared_cache)
    page, seen = watched_page(browser)
    try:
        folder = copy_kit(page_kit, server.kit_folder(BUILT_KIT))
        before = kit_file_hashes(folder)
        open_page(page, server, f"{BUILT}&cube.side_mm=14.5")  # new cubes: renders
        page.click("#build")
        page.wait_for_selector("#steps li[data-status=rendering]", timeout=60_000)
        pid = page.request.get(server.url + f"api/built?kit={BUILT_KIT}").json()["build_pid"]
    finally:
        stop_server(server)
    assert server.process.returncode == 0
    assert wait_build(page, 30) == "cancelled"
    assert "Stopped (the server was stopped)" in page.text_content("#verdict")
    assert pid is not None
    assert not group_alive(pid)
    assert kit_file_hashes(folder) == before
    assert sorted(p.name for p in folder.parent.iterdir()) == [BUILT_KIT]
    page.click("#build")
    assert wait_build(page, 30) == "lost"
    assert "bad" in (page.get_attribute("#verdict", "class") or "")
    assert "server is not answering" in page.text_content("#verdict")
    edit(page, "tin.inner_width_mm", "101")
    assert "server is not answering" in page.text_content("#refusal")
    assert page.is_disabled("#build")
    page.context.close()
    # chromium's own line for each connection refused (or cut as the server stopped);
    # nothing of the page's
    network = ("net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET")
    assert all(error.endswith(network) for error in seen.errors), seen.errors

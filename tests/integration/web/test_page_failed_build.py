"""A build whose checks fail, from the customizer's page in Debian's chromium against a
real `squadron-cad serve`: the page names each failing check, as the CLI does, and the
server's folder keeps the kit it held (a file of its own: it runs beside the builds)."""

from __future__ import annotations

from helpers import kit_file_hashes
from page_steps import BUILT, open_page, wait_build


def test_a_failed_build_names_its_failing_checks_and_keeps_the_kit(page, server, built) -> None:
    folder = built()
    before = kit_file_hashes(folder)
    # walls of 2.5 mm: thinner than the cubeship's, the box's, the lid's (from the cache)
    open_page(page, server, f"{BUILT}&checks.min_wall_mm=2.5")
    page.click("#build")
    assert wait_build(page) == "exit-1"
    verdict = page.locator("#verdict")
    assert "bad" in (verdict.get_attribute("class") or "")
    lines = verdict.locator("p").all_text_contents()
    failing = [line for line in lines if line.startswith("FAIL ")]
    assert any(line.startswith("FAIL cubeship: thin_walls: ") for line in failing), lines
    assert any("check(s) failed (see above)" in line for line in lines), lines
    # the findings come before the line that points above to them
    said = next(i for i, line in enumerate(lines) if "see above" in line)
    assert said > max(lines.index(line) for line in failing)
    assert "keeps the previous kit" in lines[said]
    assert kit_file_hashes(folder) == before

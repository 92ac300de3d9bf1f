"""The paper edition and the tolerance plate built from the customizer's page, in Debian's
chromium against a real `squadron-cad serve` (no kit needed: a file of its own, so that it
runs beside the builds of the kit)."""

from __future__ import annotations

import shutil

import pytest
from page_steps import BUILT_KIT, open_page, sha256, wait_build

from squadron_cad.outfolder import read_ownership


@pytest.mark.parametrize(
    ("what", "kit", "must_hold"),
    [
        ("paper", "space-planes", ".pdf"),  # one page: 2 s, where squadron-leader's 16 take 4
        # 3.3 s, where squadron-leader's 64 coupons take 4.8 s
        ("tolerance", BUILT_KIT, ".3mf"),
    ],
)
def test_an_edition_built_from_the_page(page, server, what, kit, must_hold) -> None:
    """The paper edition or the tolerance plate, in a folder with no kit: built, its
    progress to the end, and each download the file its ownership record lists, byte for
    byte."""
    shutil.rmtree(server.kit_folder(kit), ignore_errors=True)  # its downloads, not the kit's
    open_page(page, server, f"?kit={kit}")
    page.click("[data-tab=make]")
    page.click(f"#{what}")
    assert wait_build(page) == "exit-0"
    assert page.text_content("#command").startswith(f"squadron-cad {what} --kit {kit}")
    total = page.evaluate("document.body.dataset.total")
    assert int(total) >= 1
    assert page.evaluate("document.body.dataset.progress") == total
    assert f"{total} of {total}" in page.text_content("#progress-text")
    # every step and stage (the plate's picture and slice too) ends shown as over
    steps = page.locator("#steps li")
    assert steps.count() >= int(total)
    statuses = steps.evaluate_all("rows => rows.map(li => li.dataset.status)")
    assert set(statuses) <= {"done", "cached", "finished"}, statuses
    record = read_ownership(server.kit_folder(kit) / what)
    assert record is not None
    assert record.kind == what
    assert any(rel.endswith(must_hold) for rel in record.files)
    links = page.locator(f"#downloads a[href^='/files/{kit}/{what}/']")
    links.first.wait_for(timeout=5_000)  # the downloads are asked for once the build ends
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    depths = [href.count("/") for href in hrefs]
    assert depths == sorted(depths)  # the PDF or the plate first, then the folders' files
    listed = {rel for rel in record.files if not rel.endswith(".json")}
    assert {href.split("/", 4)[4].replace("%2F", "/") for href in hrefs} == listed
    for href in hrefs:
        rel = href.split("/", 4)[4].replace("%2F", "/")
        body = page.request.get(server.url + href.lstrip("/")).body()
        assert sha256(body) == record.files[rel], rel

"""The customizer page driven in Debian's chromium against a real `squadron-cad serve`."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import psutil
import pytest
from PIL import Image
from test_safety import only_idle_runners

from squadron_cad.kit import load_kit
from squadron_cad.outfolder import read_ownership
from squadron_cad.resolve import resolve

KIT = "squadron-leader"
ALTOIDS = f"?kit={KIT}&tin=altoids"
DRAFT = f"?kit={KIT}&quality=draft"  # the session's draft kit (conftest's `built`)


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


def test_the_altoids_tin_shows_its_layout(page, server) -> None:
    open_page(page, server, "?kit=squadron-leader")
    before = page.evaluate("document.body.dataset.fitSeq")
    page.select_option("#tin", "altoids")
    fitted(page, before)
    params = resolve(tin="altoids", kit="squadron-leader")
    layout = load_kit("squadron-leader").design(params).layout
    drawn = page.locator("#layout svg polygon.piece")
    # every piece of the library's own layout is drawn, each named on hover
    assert drawn.count() == sum(1 for q in layout.placements if not q.on_top)
    titles = drawn.locator("title").all_text_contents()
    assert {t.split(" (")[0] for t in titles} == {
        q.name.replace("_", " ") for q in layout.placements if not q.on_top
    }
    assert "altoids" in page.text_content("#fit-text")
    assert f"length +{layout.margins['x']:.1f} mm" in page.text_content("#layout svg")
    assert "tin=altoids" in page.url
    assert page.is_enabled("#build")


def cli_refusal(server, query_params: str, tmp_path: Path, kit: str, tin: str) -> str:
    """The CLI's one line for the page's own params.yaml (downloaded as a maker would)."""
    import urllib.request

    with urllib.request.urlopen(f"{server.url}params.yaml?{query_params}") as answer:
        (tmp_path / "params.yaml").write_bytes(answer.read())
    done = subprocess.run(
        [sys.executable, "-m", "squadron_cad", "fit", "--kit", kit, "--tin", tin,
         "--params", "params.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().removeprefix("squadron-cad: error: ")


def test_a_tin_too_small_is_refused_beside_its_field_then_fixed(page, server, tmp_path) -> None:
    open_page(page, server, ALTOIDS)
    edit(page, "tin.inner_width_mm", "10")  # how fast: bench/web_bench.py
    error = page.locator("#e-tin\\.inner_width_mm")
    assert error.is_visible()
    said = error.text_content()
    assert said == cli_refusal(
        server, "kit=squadron-leader&tin=altoids&tin.inner_width_mm=10", tmp_path,
        "squadron-leader", "altoids",
    )  # fmt: skip
    assert "tin.inner_width_mm" in said
    assert "at least 20" in said
    assert page.is_disabled("#build")
    # too small for the pieces, though a valid size: the fit's refusal, with its figures
    edit(page, "tin.inner_width_mm", "40")
    assert "more width" in error.text_content()
    assert page.is_disabled("#build")
    edit(page, "tin.inner_width_mm", "56")
    assert error.is_hidden()
    assert page.is_enabled("#build")


def wait_build(page, timeout_s: float = 240) -> str:
    page.wait_for_selector(
        "body[data-build-state]:not([data-build-state=running])", timeout=timeout_s * 1000
    )
    return page.evaluate("document.body.dataset.buildState")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_build_streams_progress_and_every_download_is_the_built_file(
    page, server, draft_kit, tmp_path
) -> None:
    """The session's draft kit built from the page into an empty folder: every part,
    slicer figure and picture comes from the session's cache, and the files are the
    session's own, byte for byte."""
    folder = server.kit_folder(KIT)
    shutil.rmtree(folder, ignore_errors=True)  # a kit there would be up to date: no build
    open_page(page, server, DRAFT)
    page.click("#build")
    assert wait_build(page) == "exit-0"
    manifest = json.loads((folder / "manifest.json").read_text())
    # the progress reached the end: every part and player's copy came in once
    variants = sum(1 for name in manifest["files"] if name.startswith("stl/") and ".p" in name)
    assert int(page.evaluate("document.body.dataset.total")) == len(manifest["parts"]) + variants
    assert page.evaluate("document.body.dataset.progress") == page.evaluate(
        "document.body.dataset.total"
    )
    assert "of " in page.text_content("#progress-text")
    assert page.locator("#verdict.good").is_visible()
    links = page.locator("#downloads a[href^='/files/']")
    assert links.count() > len(manifest["parts"])
    for href in links.evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        rel = href.split("/", 3)[3].replace("%2F", "/")
        body = page.request.get(server.url + href.lstrip("/")).body()
        if rel != "manifest.json":
            assert sha256(body) == manifest["files"][rel], rel
    zipped = page.request.get(server.url + f"zip/{KIT}.zip").body()
    (tmp_path / "kit.zip").write_bytes(zipped)
    with zipfile.ZipFile(tmp_path / "kit.zip") as archive:
        for rel, digest in manifest["files"].items():
            assert sha256(archive.read(f"{KIT}/{rel}")) == digest, rel
    # the page's params.yaml is the session's draft kit's parameters, and the page built
    # that kit's very files (the session built it with the library, not the page)
    with page.expect_download() as download:
        page.click("[data-tab=make]")
        page.click("#params-link")
    download.value.save_as(tmp_path / "params.yaml")
    downloaded = resolve([tmp_path / "params.yaml"], kit=KIT)
    assert downloaded.model_dump(mode="json") == manifest["params"]
    assert manifest["params"] == draft_kit.params.model_dump(mode="json")
    session = json.loads((draft_kit.out_dir / "manifest.json").read_text())["files"]
    meshes = {k: v for k, v in manifest["files"].items() if k.endswith((".stl", ".3mf"))}
    assert meshes == {k: session[k] for k in meshes}


def files_and_hashes(folder: Path) -> dict[str, str]:
    """Every file under the folder (hidden ones too) with its SHA-256."""
    return {
        path.relative_to(folder).as_posix(): sha256(path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".cache" not in path.parts
    }


def build_processes(folder: Path) -> list[psutil.Process]:
    """Every process working for a build of that folder: the CLI (its --out), its renders
    (paths in its staging folder beside it)."""
    staging = f"{folder.parent}/.{folder.name}.staging"
    found = []
    for process in psutil.process_iter(["cmdline"]):
        words = " ".join(process.info["cmdline"] or [])
        if str(folder) in words or staging in words:
            found.append(process)
    return found


def test_cancel_leaves_the_previous_kit_and_no_process(page, server, built) -> None:
    folder = built()
    open_page(page, server, DRAFT)
    before = files_and_hashes(folder)
    edit(page, "token.width_mm", "27")  # every part anew: a build long enough to cancel
    page.click("#build")
    page.wait_for_selector("#steps li[data-status=rendering]", timeout=60_000)
    busy = page.request.post(
        server.url + "api/build",
        data=json.dumps({"kit": KIT, "changes": {}}),
        headers={"Content-Type": "application/json"},
    )
    assert busy.status == 409
    assert "busy" in busy.json()["error"]
    page.click("#cancel")
    assert wait_build(page, 60) == "cancelled"
    assert "still holds the previous kit, untouched" in page.text_content("#verdict")
    assert files_and_hashes(folder) == before
    assert build_processes(folder) == []
    assert only_idle_runners(server)


def test_a_part_drawn_in_3d(page, server, built, tmp_path) -> None:
    built()
    open_page(page, server, DRAFT)
    page.click("[data-tab=view3d]")
    page.select_option("#model", "part:stl/plane_token.stl")
    page.wait_for_selector("#viewer[data-drawn='part:stl/plane_token.stl']", timeout=10_000)
    shot = tmp_path / "plane_token_3d.png"
    page.locator("#viewer canvas").screenshot(path=str(shot))
    pixels = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3).astype(int)
    background = np.array([0xF3, 0xF5, 0xF8])
    drawn = np.abs(pixels - background).sum(axis=1) > 30
    assert drawn.mean() > 0.02, f"{shot}: only {drawn.mean():.1%} of the pixels drawn"
    page.select_option("#model", "box:layout.json")
    page.wait_for_selector("#viewer[data-drawn='box:layout.json']", timeout=10_000)


@pytest.mark.parametrize(
    ("what", "kit", "must_hold"),
    [
        ("paper", "space-planes", ".pdf"),  # one page: 2 s, where squadron-leader's 16 take 4
        # the kit's defaults: the coupons test_tolerance_plate renders (the session's cache)
        ("tolerance", KIT, ".3mf"),
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


def test_the_address_restores_the_kit_the_tin_and_every_changed_value(page, server) -> None:
    open_page(page, server, "?kit=squadrons&tin=custom&players=1&base.size_mm=42")
    assert page.input_value("#kit") == "squadrons"
    assert page.input_value("#tin") == "custom"
    assert page.input_value('[name="players"]') == "1"
    assert page.input_value('[name="base.size_mm"]') == "42"
    assert "tin.inner_length_mm" not in page.url  # only what the maker changed
    edit(page, "tin.inner_depth_mm", "31")
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    assert page.input_value('[name="tin.inner_depth_mm"]') == "31"
    assert "31 mm inside" in page.text_content("#fit-text")


def test_a_phone_width_shows_the_layout_and_the_form(browser, server) -> None:
    from squadron_cad.web.browser import watched_page

    phone, seen = watched_page(browser, 390, 844)
    open_page(phone, server, "?kit=space-planes")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at 390: it scrolls sideways"
    assert phone.locator("#layout svg").bounding_box()["width"] > 300
    assert phone.is_visible("#build")
    phone.context.close()
    assert not seen.errors

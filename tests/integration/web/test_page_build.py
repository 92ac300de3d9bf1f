"""The customizer's builds, driven in Debian's chromium against a real `squadron-cad serve`:
progress and downloads, Cancel, a part in 3D (the session's Space Planes kit, built once)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import psutil
from helpers import kit_file_hashes
from page_steps import BUILT, BUILT_KIT, edit, open_page, sha256, wait_build
from PIL import Image
from test_safety import only_idle_runners

from squadron_cad.resolve import resolve


def test_a_build_streams_progress_and_every_download_is_the_built_file(
    page, server, page_kit, tmp_path
) -> None:
    """The session's Space Planes kit built from the page into an empty folder: every part
    comes from the session's cache, and the meshes are the session's own, byte for byte."""
    folder = server.kit_folder(BUILT_KIT)
    shutil.rmtree(folder, ignore_errors=True)  # a kit there would be up to date: no build
    open_page(page, server, BUILT)
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
    zipped = page.request.get(server.url + f"zip/{BUILT_KIT}.zip").body()
    (tmp_path / "kit.zip").write_bytes(zipped)
    with zipfile.ZipFile(tmp_path / "kit.zip") as archive:
        for rel, digest in manifest["files"].items():
            assert sha256(archive.read(f"{BUILT_KIT}/{rel}")) == digest, rel
    # the page's params.yaml is the session's kit's parameters, and the page built that
    # kit's very meshes (the session built it with the library, not the page)
    with page.expect_download() as download:
        page.click("[data-tab=make]")
        page.click("#params-link")
    download.value.save_as(tmp_path / "params.yaml")
    downloaded = resolve([tmp_path / "params.yaml"], kit=BUILT_KIT)
    assert downloaded.model_dump(mode="json") == manifest["params"]
    assert manifest["params"] == page_kit.params.model_dump(mode="json")
    session = json.loads((page_kit.out_dir / "manifest.json").read_text())["files"]
    meshes = {k: v for k, v in manifest["files"].items() if k.endswith((".stl", ".3mf"))}
    assert meshes == {k: session[k] for k in meshes}


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
    open_page(page, server, BUILT)
    before = kit_file_hashes(folder)
    edit(page, "cube.side_mm", "15")  # the cubes, their pockets and the box anew
    page.click("#build")
    page.wait_for_selector("#steps li[data-status=rendering]", timeout=60_000)
    busy = page.request.post(
        server.url + "api/build",
        data=json.dumps({"kit": BUILT_KIT, "changes": {}}),
        headers={"Content-Type": "application/json"},
    )
    assert busy.status == 409
    assert "busy" in busy.json()["error"]
    page.click("#cancel")
    assert wait_build(page, 60) == "cancelled"
    assert "still holds the previous kit, untouched" in page.text_content("#verdict")
    assert kit_file_hashes(folder) == before
    assert build_processes(folder) == []
    assert only_idle_runners(server)


def test_a_part_drawn_in_3d(page, server, built, tmp_path) -> None:
    built()
    open_page(page, server, BUILT)
    page.click("[data-tab=view3d]")
    page.select_option("#model", "part:stl/cubeship.stl")
    page.wait_for_selector("#viewer[data-drawn='part:stl/cubeship.stl']", timeout=10_000)
    shot = tmp_path / "cubeship_3d.png"
    page.locator("#viewer canvas").screenshot(path=str(shot))
    pixels = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3).astype(int)
    background = np.array([0xF3, 0xF5, 0xF8])
    drawn = np.abs(pixels - background).sum(axis=1) > 30
    assert drawn.mean() > 0.02, f"{shot}: only {drawn.mean():.1%} of the pixels drawn"
    # a build ending (its list of what is built, made anew) keeps the model on show
    listed = page.request.get(server.url + f"api/built?kit={BUILT_KIT}").json()
    ended = "built => window.dispatchEvent(new CustomEvent('built', {detail: built}))"
    page.evaluate(ended, listed)
    page.wait_for_selector("#viewer[data-drawn='part:stl/cubeship.stl']", timeout=10_000)
    assert page.input_value("#model") == "part:stl/cubeship.stl"
    page.select_option("#model", "box:layout.json")
    page.wait_for_selector("#viewer[data-drawn='box:layout.json']", timeout=10_000)

"""Preview pictures drawn for real: one per part, the scenes, and the cache."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import TEST_JOBS
from PIL import Image

from squadron_cad.kits.squadron_leader import scenes
from squadron_cad.outputs import previews
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.transaction import build
from squadron_cad.render.cache import file_sha256
from squadron_cad.resolve import resolve

MIN_SIZE = (800, 600)


@pytest.fixture(scope="module")
def kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    # The smallest pictures the parameters allow, to keep the suite quick.
    sizes = ["previews.width_px=800", "previews.height_px=600"]
    params = resolve(overrides=["quality=draft", *sizes])
    out = tmp_path_factory.mktemp("previews")
    options = BuildOptions(out_dir=out, jobs=TEST_JOBS, slice=False, cache_dir=shared_cache)
    report = build(params, options)  # the pictures, not the slicer's figures
    write_layout(report.out_dir)
    return report


def write_layout(out_dir: Path) -> None:
    """A layout.json in the fit solver's format, unless the build wrote one."""
    if (out_dir / "layout.json").is_file():
        return
    lift = np.eye(4)
    lift[:3, 3] = [30.0, 30.0, 40.0]  # above the box, so the picture must show it
    layout = {
        "box": {"stl": "stl/box.stl", "transform": np.eye(4).tolist()},
        "contents": [
            {"part": "plane_token", "stl": "stl/plane_token.stl", "transform": lift.tolist()}
        ],
    }
    (out_dir / "layout.json").write_text(json.dumps(layout))


@pytest.fixture(scope="module")
def drawn(kit: BuildReport) -> tuple[list[Path], float]:
    started = time.perf_counter()
    paths = previews.write_previews(kit.out_dir, [r.spec.name for r in kit.parts], kit.params, 2)
    return paths, time.perf_counter() - started


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=float)


def test_every_part_and_scene_has_a_picture(kit: BuildReport, drawn) -> None:
    paths, _seconds = drawn
    names = {path.stem for path in paths}
    assert {r.spec.name for r in kit.parts} <= names
    assert {scenes.KIT_VIEW, scenes.STACK_VIEW, previews.BOX_VIEW} <= names
    for path in paths:
        assert path.parent == kit.out_dir / "previews"
        assert path.is_file()


def test_pictures_have_the_size_and_show_the_part(kit: BuildReport, drawn) -> None:
    paths, _seconds = drawn
    wanted = (kit.params.previews.width_px, kit.params.previews.height_px)
    assert wanted[0] >= MIN_SIZE[0]
    assert wanted[1] >= MIN_SIZE[1]
    for path in paths:
        image = pixels(path)
        assert image.shape == (wanted[1], wanted[0], 3), path.name
        rgb = image.astype(np.uint32)  # one number a colour: np.unique of rows is slow
        shades = np.unique((rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2])
        assert len(shades) >= 3, f"{path.name}: no shaded faces on the background"
        background = image[0, 0]
        part = np.abs(image - background).sum(axis=2) > 30
        assert part.mean() > 0.02, f"{path.name} shows mostly background"  # the ruler: 4 %
        rows, cols = np.nonzero(part)
        width = (cols.max() - cols.min()) / wanted[0]
        height = (rows.max() - rows.min()) / wanted[1]
        assert max(width, height) > 0.85, f"{path.name}: the part does not fill the frame"


def test_player_parts_wear_the_player_colours(drawn) -> None:
    paths, _seconds = drawn
    kit_picture = pixels(next(p for p in paths if p.stem == scenes.KIT_VIEW))
    red, green, blue = kit_picture[..., 0], kit_picture[..., 1], kit_picture[..., 2]
    reddish = (red > green + 60) & (red > blue + 60)
    bluish = (blue > red + 50) & (blue > green + 20)
    assert reddish.mean() > 0.01, "player 1 (red) is in the picture"
    assert bluish.mean() > 0.01, "player 2 (blue) is in the picture"


def test_the_packed_box_shows_its_contents(drawn) -> None:
    paths, _seconds = drawn
    box = pixels(next(p for p in paths if p.stem == previews.BOX_VIEW))
    red, green, blue = box[..., 0], box[..., 1], box[..., 2]
    assert ((red > green + 60) & (red > blue + 60)).mean() > 0.005, "player 1's plane"


def test_unchanged_pictures_are_not_redrawn(kit: BuildReport, drawn) -> None:
    paths, first_seconds = drawn
    before = {path.name: path.stat().st_mtime_ns for path in paths}
    again = previews.write_previews(kit.out_dir, [r.spec.name for r in kit.parts], kit.params, 2)
    assert {path.name: path.stat().st_mtime_ns for path in again} == before  # not redrawn
    index = json.loads((kit.out_dir / "previews" / "index.json").read_text())
    timings = [entry["seconds"] for entry in index["previews"].values()]
    print(f"previews: {len(paths)} in {first_seconds:.1f} s, {np.mean(timings):.2f} s each")


def test_a_kit_built_elsewhere_with_the_same_cache_takes_its_pictures_from_it(
    kit: BuildReport, drawn, tmp_path: Path, shared_cache: Path, monkeypatch
) -> None:
    """Only a picture of a mesh that is not the first kit's may be drawn again: the other
    xdist worker can replace a cached mesh meanwhile (the same parameters, its own render)."""
    redrawn: dict[str, bool] = {}  # view -> whether it shows a mesh the first kit has not
    snapshot = previews.snapshot

    def drawing(view: previews.View, *args: object) -> float:
        rels = [Path(*item.stl.parts[-2:]) for item in view.items]  # stl/x.stl, layout/y.stl
        redrawn[view.name] = any(
            file_sha256(item.stl) != file_sha256(kit.out_dir / rel)
            for item, rel in zip(view.items, rels, strict=True)
        )
        return snapshot(view, *args)

    monkeypatch.setattr(previews, "snapshot", drawing)
    options = BuildOptions(
        out_dir=tmp_path / "again", jobs=TEST_JOBS, slice=False, cache_dir=shared_cache
    )
    again = build(kit.params, options)
    assert not [notice for notice in again.notices if "previews" in notice], again.notices
    unchanged = [name for name, other_mesh in redrawn.items() if not other_mesh]
    assert not unchanged, f"drawn although the cache keeps them: {unchanged}"
    first = sorted((kit.out_dir / "previews").glob("*.png"))
    assert len(first) == len(drawn[0])
    for picture in first:
        if picture.stem in redrawn:
            continue
        copy = again.out_dir / "previews" / picture.name
        assert copy.read_bytes() == picture.read_bytes(), picture.name

"""Preview pictures: scenes, colours and the cache (the painter faked where it is not the
subject; tests/unit/test_raster.py draws for real), for the toy kit (Squadron Leader's own
scenes: tests/unit/kits/squadron_leader/test_leader_scenes.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image

from squadron_cad.errors import ToolError
from squadron_cad.kit import Kit
from squadron_cad.outputs import picture_colours, previews
from squadron_cad.outputs.previews import PictureSettings, Placed, View
from squadron_cad.render.cache import RenderCache
from squadron_cad.resolve import resolve

SIZE = (800, 600)


def stl(folder: Path, name: str, size: float = 10.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.stl"
    trimesh.creation.box(extents=[size, size, 2]).export(path)
    return path


@pytest.fixture(autouse=True, scope="module")
def _toy(toy_kit: Kit) -> None:
    """Every test here pictures the toy kit's parts."""


def test_player_colours_fall_back_to_a_palette() -> None:
    params = resolve(overrides=["players=3"], kit="toy")
    assert [name for name, _ in picture_colours.player_colours(params)] == ["red", "blue", "green"]
    plain = params.model_copy(update={"player_colours": None})
    assert len(picture_colours.player_colours(plain)) == 3


def test_packed_box_colours_each_players_pieces(tmp_path: Path) -> None:
    """Pieces as layout.json names them: player<n>_..., die_<colour>_<k>, shared parts."""
    params = resolve(kit="toy")
    stl_dir = tmp_path / "stl"
    for name in ("tray", "tile", "tile_plain"):
        stl(stl_dir, name)
    (tmp_path / "layout").mkdir()
    stl(tmp_path / "layout", "die")

    def entry(name: str, part: str, z: float = 0.0) -> dict:
        folder = "layout" if part == "die" else "stl"
        on_top = {"on_top": True} if z else {}
        return {"name": name, "stl": f"{folder}/{part}.stl", "transform": translation(z), **on_top}

    contents = [entry(f"player{n}_tile_1", "tile") for n in (2, 1)]
    contents += [entry(f"player{n}_tile_{k}", "tile") for n in (1, 2) for k in (2, 3)]
    contents += [entry("die_green_1", "die"), entry("tile_plain", "tile_plain", 20.0)]
    layout = {"box": {"stl": "stl/tray.stl", "transform": np.eye(4).tolist()}, "contents": contents}
    (tmp_path / "layout.json").write_text(json.dumps(layout))
    view = previews.box_view(tmp_path, params)
    assert view is not None
    colours = [item.colour for item in view.items]
    (_, red), (_, blue) = picture_colours.player_colours(params)  # the palette: no player_colours
    green = previews.COLOUR_NAMES["green"]
    # The plain tile lies on top (layout.json says so): left off so the pockets show.
    assert colours == [picture_colours.NEUTRAL, blue, red, red, red, blue, blue, green]
    assert [item.stl.name for item in view.items] == ["tray.stl", *["tile.stl"] * 6, "die.stl"]
    assert {item.accent_from_z_mm for item in view.items} == {None}  # no raised marks


def translation(z: float) -> list[list[float]]:
    return [list(row) for row in previews.translation(0.0, 0.0, z)]


def test_no_layout_no_box_view_and_a_bad_one_is_named(tmp_path: Path) -> None:
    params = resolve(kit="toy")
    assert previews.box_view(tmp_path, params) is None
    (tmp_path / "layout.json").write_text('{"box": {"stl": "stl/tray.stl", "transform": [1]}}')
    with pytest.raises(ToolError, match=r"layout\.json"):
        previews.box_view(tmp_path, params)


@pytest.fixture
def fake_camera(monkeypatch) -> list[str]:
    """Replace the painter with one of flat pictures; record what was drawn."""
    drawn: list[str] = []

    def snapshot(view, target, settings, _meshes=None) -> float:
        drawn.append(view.name)
        Image.new("RGB", (settings.width_px, settings.height_px), (90, 90, 90)).save(target)
        return 0.5

    monkeypatch.setattr(previews, "snapshot", snapshot)
    return drawn


def test_pictures_are_redrawn_only_when_their_stls_or_settings_change(
    tmp_path: Path, fake_camera: list[str]
) -> None:
    parts = [stl(tmp_path / "stl", name) for name in ("a", "b")]
    views = [View(p.stem, (Placed(p, "#e0a526"),)) for p in parts]
    folder = tmp_path / "previews"
    settings = PictureSettings(*SIZE)
    previews.render_views(views, folder, settings, 2)
    assert sorted(fake_camera) == ["a", "b"]
    previews.render_views(views, folder, settings, 2)
    assert sorted(fake_camera) == ["a", "b"], "nothing changed: nothing redrawn"
    stl(tmp_path / "stl", "b", size=12.0)
    previews.render_views(views, folder, settings, 2)
    assert sorted(fake_camera) == ["a", "b", "b"]
    previews.render_views(views, folder, PictureSettings(1000, 750), 2)
    assert len(fake_camera) == 5
    (folder / "a.png").write_bytes(b"damaged")
    previews.render_views(views, folder, PictureSettings(1000, 750), 2)
    assert fake_camera[-1] == "a"
    index = json.loads((folder / "index.json").read_text())
    assert index["previews"]["a"]["seconds"] == 0.5


def test_pictures_of_removed_parts_are_dropped(tmp_path: Path, fake_camera) -> None:
    params = resolve(kit="toy")
    for name in ("tile", "tray"):
        stl(tmp_path / "stl", name)
    written = previews.write_previews(tmp_path, ["tile", "tray"], params, 1)
    assert {p.name for p in written} == {"tile.png", "tray.png"}
    (tmp_path / "stl" / "tray.stl").unlink()
    previews.write_previews(tmp_path, ["tile"], params, 1)
    assert not (tmp_path / "previews" / "tray.png").exists()
    assert fake_camera == ["tile", "tray"]


def test_a_damaged_kept_picture_is_drawn_again(tmp_path: Path) -> None:
    store = RenderCache(tmp_path / "cache")
    store.store_record("picture-k", {"png": "not base64!", "seconds": 1})
    target = tmp_path / "p.png"
    assert previews._from_store(store, "k", target) is None
    assert not target.exists()
    store.store_record("picture-k", {"png": base64.b64encode(b"png bytes").decode(), "seconds": 2})
    assert previews._from_store(store, "k", target) == 2
    assert target.read_bytes() == b"png bytes"

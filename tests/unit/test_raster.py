"""Pictures drawn in this process (OpenGL on Mesa's EGL): OpenSCAD's look, measured on the
pixels, with no display and no OpenSCAD."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image, ImageColor

from squadron_cad.outputs import picture_colours, previews, raster
from squadron_cad.outputs.previews import PictureSettings, Placed, View
from squadron_cad.params import KitParamsBase

SIZE = (800, 600)
GOLD = "#e0a526"
# OpenSCAD 2021's preview of color("#e0a526") cube([20, 20, 4]) at its default camera
# (--viewall --autocenter --colorscheme=Tomorrow), read off its PNG: the top, the front
# (-y) and the right (+x) faces.
OPENSCAD_FACES = {(225, 166, 38), (128, 94, 22), (149, 109, 25)}


def box_stl(folder: Path, name: str, extents: tuple[float, float, float]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.stl"
    shift = np.eye(4)
    shift[:3, 3] = np.asarray(extents) / 2  # a corner at the origin, as OpenSCAD's cube
    trimesh.creation.box(extents=extents, transform=shift).export(path)
    return path


def draw(tmp_path: Path, view: View) -> np.ndarray:
    target = tmp_path / f"{view.name}.png"
    previews.snapshot(view, target, PictureSettings(*SIZE))
    with Image.open(target) as image:
        assert image.size == SIZE
        return np.asarray(image.convert("RGB"))


def colours(picture: np.ndarray, least_share: float = 0.01) -> set[tuple[int, ...]]:
    """The flat colours that cover at least least_share of the picture."""
    flat, counts = np.unique(picture.reshape(-1, 3), axis=0, return_counts=True)
    shown = flat[counts >= least_share * len(picture.reshape(-1, 3))]
    return {tuple(int(v) for v in colour) for colour in shown}


def part_pixels(picture: np.ndarray) -> np.ndarray:
    return np.abs(picture.astype(int) - previews.BACKGROUND).sum(axis=2) > 30


def test_faces_are_lit_as_openscad_lights_them(tmp_path: Path) -> None:
    box = box_stl(tmp_path, "box", (20, 20, 4))
    picture = draw(tmp_path, View("box", (Placed(box, GOLD),)))
    faces = colours(picture) - {previews.BACKGROUND}
    assert len(faces) == 3
    for seen in faces:
        closest = min(OPENSCAD_FACES, key=lambda face: np.abs(np.subtract(face, seen)).sum())
        assert np.abs(np.subtract(closest, seen)).max() <= 2, (seen, closest)


def test_the_part_fills_the_frame_centred_with_its_margin(tmp_path: Path) -> None:
    ruler = box_stl(tmp_path, "ruler", (150, 8, 3))  # long and thin: framed by its width
    part = part_pixels(draw(tmp_path, View("ruler", (Placed(ruler, GOLD),))))
    rows, cols = np.nonzero(part)
    width = (cols.max() - cols.min() + 1) / SIZE[0]
    assert width == pytest.approx(1 - 2 * previews.MARGIN, abs=0.01)
    assert (cols.min() + cols.max()) / 2 == pytest.approx(SIZE[0] / 2, abs=2)
    assert (rows.min() + rows.max()) / 2 == pytest.approx(SIZE[1] / 2, abs=2)


def test_straight_down_shows_only_the_top_at_its_proportions(tmp_path: Path) -> None:
    """OpenSCAD's rotation form: 0,0,0 looks straight down the z axis."""
    plate = box_stl(tmp_path, "plate", (40, 20, 2))
    view = View("plate", (Placed(plate, GOLD),), camera="0,0,0,0,0,0,0")
    picture = draw(tmp_path, view)
    # Facing the viewer, lit from the upper left front: 0.2 + 1 / sqrt(3) of the colour.
    assert colours(picture) - {previews.BACKGROUND} == {(174, 128, 30)}
    rows, cols = np.nonzero(part_pixels(picture))
    assert (np.ptp(cols) + 1) / (np.ptp(rows) + 1) == pytest.approx(2.0, rel=0.01)


def test_a_raised_top_is_drawn_darker_above_its_height(tmp_path: Path) -> None:
    base = trimesh.creation.box(extents=(24, 24, 4), transform=previews.translation(0, 0, 2))
    bar = trimesh.creation.box(extents=(16, 4, 1), transform=previews.translation(0, 0, 4.5))
    token = tmp_path / "token.stl"
    trimesh.util.concatenate([base, bar]).export(token)
    view = View("token", (Placed(token, GOLD, None, 4.0),))
    faces = colours(draw(tmp_path, view), least_share=0.002)
    assert (225, 166, 38) in faces, "the top around the bar: the part's colour"
    shaded = picture_colours.shade(GOLD, previews.ACCENT_SHADE)
    bar_top = ImageColor.getrgb(shaded)
    assert any(np.abs(np.subtract(face, bar_top)).max() <= 2 for face in faces), faces


def test_pictures_need_no_display_and_no_openscad(
    tmp_path: Path, monkeypatch, toy_params: KitParamsBase
) -> None:
    """OpenSCAD 2021 under Xvfb drew them before: neither is needed now."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    monkeypatch.delenv("DISPLAY", raising=False)
    box_stl(tmp_path / "stl", "tray", (20, 20, 4))
    written = previews.write_previews(tmp_path, ["tray"], toy_params, 1)
    assert [path.name for path in written] == ["tray.png"]


def test_a_player_part_is_pictured_in_player_one_colour_a_shared_part_in_the_preview_colour(
    tmp_path: Path, toy_params: KitParamsBase
) -> None:
    params = toy_params
    for name in ("tile", "tray"):
        box_stl(tmp_path, name, (20, 20, 4))
    tile = previews.part_view(tmp_path, "tile", params)
    assert tile.items[0].colour == picture_colours.player_colours(params)[0][1]
    assert tile.items[0].colour != picture_colours.part_colour(params)
    shared = previews.part_view(tmp_path, "tray", params)
    assert shared.items[0].colour == picture_colours.part_colour(params)


def test_a_camera_is_seven_numbers() -> None:
    assert previews.angles("0,0,0,55,0,25,0") == (55.0, 0.0, 25.0)
    with pytest.raises(previews.ToolError, match="7 numbers"):
        previews.angles("55,0,25")


def test_no_shapes_no_picture() -> None:
    with pytest.raises(raster.ToolError, match="nothing to draw"):
        raster.Painter.draw([], (55, 0, 25), SIZE, 0.05, previews.BACKGROUND)


def test_pictures_drawn_from_threads_that_have_ended_draw_alike(tmp_path: Path) -> None:
    """Each build draws from a thread of its own, which ends with the build; the OpenGL
    context stays with the painter's thread, so a later build's thread draws the same."""
    import threading

    box = box_stl(tmp_path, "box", (20, 20, 4))
    pictures = []
    for name in ("first", "second"):
        view = View(name, (Placed(box, GOLD),))
        worker = threading.Thread(target=lambda v=view: pictures.append(draw(tmp_path, v)))
        worker.start()
        worker.join()
    assert len(pictures) == 2
    assert np.array_equal(pictures[0], pictures[1])

"""Preview pictures: every part, the kit's scenes (one player's set), and the packed box.

Drawn in this process from the parts' meshes (squadron_cad.outputs.raster: OpenGL on
Mesa's software renderer, no display needed), with OpenSCAD's preview look: flat faces,
its light and its perspective, framed to the part, so every part fills the frame whatever
its size. A picture is redrawn only when its STLs or the settings change (index.json in the
previews folder); a build also keeps each picture in its render cache by that same content
key, so a kit built into another folder with the same cache (`--cache-dir`) takes the
pictures of its unchanged parts from there.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import hashlib
import io
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from squadron_cad.checks.memo import RecordStore
from squadron_cad.errors import ToolError
from squadron_cad.geometry import frames
from squadron_cad.kit import Part, kit_of
from squadron_cad.outputs import raster
from squadron_cad.params import COLOUR_NAMES, KitParamsBase
from squadron_cad.render.atomic import read_json_object, write_bytes, write_json
from squadron_cad.render.cache import file_sha256
from squadron_cad.versions import code_version

# The picture pipeline's own source: a change to it redraws every preview.
PICTURE_VERSION = code_version(sys.modules[__name__], raster)
INDEX_NAME = "index.json"
BOX_VIEW = "packed_box"
ACCENT_SHADE = 0.5  # a raised silhouette is drawn this much darker: flat shading hides it
MARGIN = 0.05  # blank border around the part, as a fraction of the frame
CAMERA = "0,0,0,55,0,25,0"  # OpenSCAD's --camera: its default angles (above, turned 25 deg)
BACKGROUND = (248, 248, 248)  # OpenSCAD's "Tomorrow" colour scheme: a light background
STORE_PREFIX = "picture"  # the cache's records of drawn pictures, pruned as one kind
NEUTRAL = COLOUR_NAMES["silver"]  # the box and shared parts in scenes, under coloured parts
FALLBACK_PLAYER_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "orange", "purple")

Matrix = tuple[tuple[float, ...], ...]
FOLDER = "previews"  # under the kit's folder
Progress = Callable[[str, str], None]  # (picture name, "cached" | "drawing" | "drawn")


@dataclass(frozen=True)
class Placed:
    """One STL in a scene: its colour (#rrggbb) and where it goes (4x4, row-major)."""

    stl: Path
    colour: str
    transform: Matrix | None = None
    accent_from_z_mm: float | None = None  # above this height, drawn in a darker shade


@dataclass(frozen=True)
class View:
    """One picture: a file stem and what it shows."""

    name: str
    items: tuple[Placed, ...]
    caption: str = ""  # what the gallery says under it
    camera: str = CAMERA  # OpenSCAD's --camera: translate x,y,z, rotate x,y,z, distance


@dataclass(frozen=True)
class PictureSettings:
    width_px: int
    height_px: int

    @property
    def size_px(self) -> tuple[int, int]:
        return self.width_px, self.height_px

    @property
    def key(self) -> str:
        size = f"{self.width_px}x{self.height_px}"
        return f"{PICTURE_VERSION}|{size}|{raster.SUPERSAMPLE}|{MARGIN}|{CAMERA}|{BACKGROUND}"


@dataclass(frozen=True)
class Picture:
    view: View
    path: Path
    key: str
    seconds: float
    cached: bool


# ---- colours -------------------------------------------------------------------------


def player_colours(params: KitParamsBase) -> list[tuple[str, str]]:
    """(name, #rrggbb) for each player, from player_colours or a fixed palette."""
    if params.player_colours:
        chosen = [(c.name, c.hex) for c in params.player_colours]
    else:
        chosen = [(name, COLOUR_NAMES[name]) for name in FALLBACK_PLAYER_COLOURS]
    return [chosen[i % len(chosen)] for i in range(params.players)]


def part_colour(params: KitParamsBase) -> str:
    """The colour of shared parts' own pictures (previews.colour)."""
    return _hex(params.previews.colour)


def own_colour(part: Part | None, params: KitParamsBase) -> str:
    """The colour a part's own picture shows it in: a player's part in player 1's colour
    (as on the table), any other in previews.colour."""
    if part is not None and part.colour == "player":
        return player_colours(params)[0][1]
    return part_colour(params)


def _hex(colour: str) -> str:
    return COLOUR_NAMES.get(colour.lower(), colour.lower())


# ---- scenes --------------------------------------------------------------------------


def translation(x: float, y: float, z: float) -> Matrix:
    """A shift as the scene's hashable rows (geometry.frames makes the matrix)."""
    return tuple(tuple(float(v) for v in row) for row in frames.translate(x, y, z))


def accent_height(stl: Path, params: KitParamsBase) -> float | None:
    """Where a part's raised top begins (its `accent_from_mm`), or None."""
    parts = {part.name: part for part in kit_of(params).parts}
    part = parts.get(stl.stem)
    if part is None or part.accent_from_mm is None:
        return None
    return float(part.accent_from_mm(params))


def part_view(stl_dir: Path, name: str, params: KitParamsBase) -> View:
    """A part on its own, in its own colour (own_colour), from its declared camera."""
    stl = stl_dir / f"{name}.stl"
    part = {part.name: part for part in kit_of(params).parts}.get(name)
    items = (Placed(stl, own_colour(part, params), None, accent_height(stl, params)),)
    return View(name, items, camera=(part.camera if part is not None else "") or CAMERA)


def box_view(out_dir: Path, params: KitParamsBase) -> View | None:
    """out/layout.json drawn: every piece in its pocket; the lid and a piece on top off."""
    layout_path = out_dir / "layout.json"
    if not layout_path.is_file():
        return None
    try:
        layout = json.loads(layout_path.read_text(encoding="utf-8"))
        box = layout["box"]
        items = [Placed(out_dir / box["stl"], NEUTRAL, _matrix(box.get("transform")))]
        items += _content_items(out_dir, layout.get("contents", []), params)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ToolError(f"{layout_path}: cannot draw the packed box ({error})") from error
    return View(BOX_VIEW, tuple(items))


def _content_items(out_dir: Path, contents: list[dict], params: KitParamsBase) -> list[Placed]:
    """Each piece in its player's or die's colour; a piece lying on top is left off."""
    items = []
    for entry in contents:
        if not entry.get("stl") or not (out_dir / entry["stl"]).is_file():
            continue  # a part built later has no mesh yet
        stl = out_dir / entry["stl"]
        transform = _matrix(entry.get("transform"))
        if entry.get("on_top"):
            continue  # a piece lying over the pockets would hide them
        colour = _content_colour(str(entry.get("name", stl.stem)), params)
        items.append(Placed(stl, colour, transform, accent_height(stl, params)))
    return items


_PLAYER = re.compile(r"^player(\d+)_")
_DIE = re.compile(r"^die_([a-z]+)_\d+$")


def _content_colour(name: str, params: KitParamsBase) -> str:
    """player<n>_... in player n's colour, die_<colour>_<k> in that colour, the rest in
    previews.colour; each one standing out from the box's grey (standing_out)."""
    player = _PLAYER.match(name)
    if player:
        colours = player_colours(params)
        return standing_out(colours[(int(player.group(1)) - 1) % len(colours)][1], params)
    die = _DIE.match(name)
    if die and die.group(1) in COLOUR_NAMES:
        return standing_out(COLOUR_NAMES[die.group(1)], params)
    return standing_out(part_colour(params), params)


# CIE76 difference a piece keeps from the box's colour: a white piece (15) reads against the
# silver box at a glance, a silver one (0) vanished.
MIN_DELTA_E = 12.0


BOX_SHADES = (0.4, 0.55, 0.7, 0.85, 1.0)  # the box's faces, lit or turned from the light
PIECE_FALLBACK = COLOUR_NAMES["orange"]  # when neither a piece's colour nor previews.colour will


def standing_out(colour: str, params: KitParamsBase, box: str = NEUTRAL) -> str:
    """The colour, or one that stands out from the box's when too close to it in any of
    its shades (a grey piece vanished among the grey box's walls and shadows):
    previews.colour, else orange."""
    for candidate in (colour, part_colour(params)):
        if box_contrast(candidate, box) >= MIN_DELTA_E:
            return candidate
    return PIECE_FALLBACK


def box_contrast(colour: str, box: str = NEUTRAL) -> float:
    """The least CIE76 difference of a colour from the box's colour in any of its shades."""
    return min(delta_e(colour, shade(box, factor)) for factor in BOX_SHADES)


def delta_e(first: str, second: str) -> float:
    """CIE76 difference of two sRGB colours (#rrggbb): the distance in CIELAB (D65)."""
    return float(np.linalg.norm(np.subtract(_lab(first), _lab(second))))


def _lab(colour: str) -> tuple[float, float, float]:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(colour)]
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear  # fmt: skip
    white = (0.95047, 1.0, 1.08883)
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
         for t in (xyz[i] / white[i] for i in range(3))]  # fmt: skip
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _matrix(value: Any) -> Matrix | None:
    if value is None:
        return None
    rows = np.asarray(value, dtype=float)
    if rows.shape != (4, 4) or not np.all(np.isfinite(rows)):
        raise ValueError(f"a transform must be 4x4 numbers, got shape {rows.shape}")
    return tuple(tuple(float(v) for v in row) for row in rows)


def shade(colour: str, factor: float) -> str:
    """#rrggbb scaled towards black."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(v * factor):02x}" for v in rgb)


def view_key(view: View, settings: PictureSettings) -> str:
    """What a picture depends on: the STLs' contents, colours, placements and settings."""
    digest = hashlib.sha256(f"{settings.key}|{view.camera}".encode())
    hashes: dict[Path, str] = {}
    for item in view.items:
        if item.stl not in hashes:
            hashes[item.stl] = file_sha256(item.stl)
        placed = f"{item.colour}|{item.transform}|{item.accent_from_z_mm}"
        digest.update(f"|{hashes[item.stl]}|{placed}".encode())
    return digest.hexdigest()


# ---- one picture ---------------------------------------------------------------------


class Meshes:
    """Each STL's triangles, read once for a batch of pictures (a scene shows the same
    token many times; the parts' pictures and the scenes share them)."""

    def __init__(self) -> None:
        self._triangles: dict[Path, raster.Corners] = {}
        self._lock = threading.Lock()

    def triangles(self, stl: Path) -> raster.Corners:
        with self._lock:
            if stl not in self._triangles:
                try:
                    self._triangles[stl] = raster.read_triangles(stl)
                except OSError as error:
                    raise ToolError(f"preview: cannot read {stl}: {error.strerror}") from error
            return self._triangles[stl]


def _rgb(colour: str) -> tuple[float, float, float]:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return red, green, blue


def shapes_of(view: View, meshes: Meshes) -> list[raster.Shape]:
    """The view's items as the painter takes them; a raised top in a darker shade."""
    return [
        raster.Shape(
            meshes.triangles(item.stl),
            _rgb(item.colour),
            None if item.transform is None else np.asarray(item.transform, dtype=float),
            item.accent_from_z_mm,
            _rgb(shade(item.colour, ACCENT_SHADE)),
        )
        for item in view.items
    ]


def angles(camera: str) -> tuple[float, float, float]:
    """The rotation of an OpenSCAD --camera string (its translation and distance are
    OpenSCAD's --viewall --autocenter's to choose, as they were)."""
    numbers = [float(value) for value in camera.split(",")]
    if len(numbers) != 7:
        raise ToolError(f"preview: a camera is 7 numbers (x,y,z, rotations, distance): {camera}")
    return numbers[3], numbers[4], numbers[5]


def snapshot(
    view: View, target: Path, settings: PictureSettings, meshes: Meshes | None = None
) -> float:
    """Draw one view into target (PNG, atomically); the seconds it took."""
    started = time.perf_counter()
    shapes = shapes_of(view, meshes or Meshes())
    image = raster.Painter.draw(shapes, angles(view.camera), settings.size_px, MARGIN, BACKGROUND)
    buffer = io.BytesIO()
    # 256 colours look the same here (flat faces, few hues) at a third of the bytes.
    palette = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette.save(buffer, format="PNG")
    write_bytes(target, buffer.getvalue())
    return time.perf_counter() - started


# ---- a batch, cached -----------------------------------------------------------------


def load_index(folder: Path) -> dict[str, Any]:
    return read_json_object(folder / INDEX_NAME) or {}


def render_views(
    views: Sequence[View],
    folder: Path,
    settings: PictureSettings,
    jobs: int,
    progress: Progress | None = None,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> list[Picture]:
    """Draw the views into folder/<name>.png, skipping those already drawn as they are now
    (in folder, or in store: a render cache that keeps pictures by their content key)."""
    report = progress or _quiet
    folder.mkdir(parents=True, exist_ok=True)
    index = load_index(folder)
    known = index.get("previews", {}) if isinstance(index.get("previews"), dict) else {}
    pictures: dict[str, Picture] = {}
    todo: list[tuple[View, str]] = []
    for view in views:
        key = view_key(view, settings)
        target = folder / f"{view.name}.png"
        if _still_valid(known.get(view.name), key, target):
            seconds = float(known[view.name].get("seconds", 0.0))
            pictures[view.name] = Picture(view, target, key, seconds, cached=True)
            report(view.name, "cached")
        elif (kept := _from_store(store, key, target)) is not None:
            pictures[view.name] = Picture(view, target, key, kept, cached=True)
            report(view.name, "cached")
        else:
            todo.append((view, key))
    if todo:
        pictures.update(_draw_all(todo, folder, settings, jobs, report, sharing, store))
    ordered = [pictures[view.name] for view in views]
    _save_index(folder, index, ordered)
    return ordered


def _store_key(key: str) -> str:
    return f"{STORE_PREFIX}-{key}"


def _from_store(store: RecordStore | None, key: str, target: Path) -> float | None:
    """Write the picture kept under key into target; the seconds it took to draw, or None
    when the store has no readable copy."""
    record = store.lookup_record(_store_key(key)) if store is not None else None
    if record is None:
        return None
    try:
        png = base64.b64decode(str(record["png"]), validate=True)
        seconds = float(record["seconds"])
    except (KeyError, TypeError, ValueError, binascii.Error):
        return None  # not one of ours, or damaged: drawn again and replaced
    write_bytes(target, png)
    return seconds


def _keep(store: RecordStore | None, picture: Picture) -> None:
    if store is not None:
        png = base64.b64encode(picture.path.read_bytes()).decode()
        store.store_record(_store_key(picture.key), {"png": png, "seconds": picture.seconds})


def _still_valid(entry: Any, key: str, target: Path) -> bool:
    if not isinstance(entry, dict) or entry.get("key") != key or not target.is_file():
        return False
    return file_sha256(target) == entry.get("png_sha256")


def _draw_all(
    todo: list[tuple[View, str]],
    folder: Path,
    settings: PictureSettings,
    jobs: int,
    report: Progress,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> dict[str, Picture]:
    """Draw the pictures not kept: one at a time on the OpenGL context, each encoding its
    PNG while the next is drawn."""
    share = sharing or Sharing()
    meshes = Meshes()

    def draw(job: tuple[View, str]) -> Picture:
        view, key = job
        target = folder / f"{view.name}.png"
        with share.slot():
            report(view.name, "drawing")
            seconds = snapshot(view, target, settings, meshes)
        picture = Picture(view, target, key, seconds, cached=False)
        _keep(store, picture)
        report(view.name, "drawn")
        return picture

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return {picture.view.name: picture for picture in pool.map(draw, todo)}


@dataclass
class Sharing:
    """How pictures drawn beside other work share the machine: each picture holds one of
    the build's `slots` while it is drawn, and none starts once `stopped` is set (the build
    was interrupted)."""

    slots: threading.Semaphore | None = None
    stopped: threading.Event = dataclasses.field(default_factory=threading.Event)

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        with self.slots if self.slots is not None else contextlib.nullcontext():
            if self.stopped.is_set():
                raise ToolError("pictures cancelled")
            yield


def _quiet(_name: str, _status: str) -> None:
    """Progress is optional: library callers need not show any."""


def _save_index(folder: Path, index: dict[str, Any], pictures: Iterable[Picture]) -> None:
    entries = dict(index.get("previews", {})) if isinstance(index.get("previews"), dict) else {}
    for picture in pictures:
        entries[picture.view.name] = {
            "key": picture.key,
            "png_sha256": file_sha256(picture.path),
            "seconds": round(picture.seconds, 3),
            "stls": sorted({item.stl.name for item in picture.view.items}),
        }
    write_json(folder / INDEX_NAME, {**index, "version": PICTURE_VERSION, "previews": entries})


# ---- out/previews --------------------------------------------------------------------


def preview_views(out_dir: Path, parts: Iterable[str], params: KitParamsBase) -> list[View]:
    """A view per part whose STL exists, the assembled stack, and the packed box."""
    stl_dir = out_dir / "stl"
    views = [
        part_view(stl_dir, name, params) for name in parts if (stl_dir / f"{name}.stl").is_file()
    ]
    kit = kit_of(params)
    scenes = kit.scenes(params, stl_dir) if kit.scenes else []
    return views + [scene for scene in [*scenes, box_view(out_dir, params)] if scene is not None]


def write_previews(
    out_dir: Path,
    parts: list[str],
    params: KitParamsBase,
    jobs: int,
    *,
    progress: Progress | None = None,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> list[Path]:
    """out/previews/<part>.png for each part's STL, plus the kit, stack and packed box views
    (those kept in store, a render cache, are copied from it).

    Raises ToolError when no picture can be drawn (no OpenGL through EGL here).
    """
    folder = out_dir / FOLDER
    views = preview_views(out_dir, parts, params)
    settings = PictureSettings(params.previews.width_px, params.previews.height_px)
    pictures = render_views(views, folder, settings, jobs, progress, sharing, store)
    _remove_orphans(folder, {view.name for view in views}, out_dir / "stl")
    return [picture.path for picture in pictures]


def _remove_orphans(folder: Path, current: set[str], stl_dir: Path) -> None:
    """Drop pictures of parts whose STL is gone and of scenes no longer drawn."""
    index = load_index(folder)
    entries = index.get("previews", {})
    for name in list(entries):
        if name in current or (stl_dir / f"{name}.stl").is_file():
            continue
        with contextlib.suppress(FileNotFoundError):
            (folder / f"{name}.png").unlink()
        del entries[name]
    write_json(folder / INDEX_NAME, index)

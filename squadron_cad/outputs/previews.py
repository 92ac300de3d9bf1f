"""Preview pictures: every part, the kit's scenes (one player's set), and the packed box.

OpenSCAD draws them: its OpenGL preview of the imported STLs has a real depth buffer and
its own lighting, so engraving and pegs read clearly (a matplotlib renderer sorts polygons
instead and shows seams and see-through faces). On Linux it needs a display, so a private
Xvfb server is started for the batch (one server, many OpenSCAD processes; `xvfb-run -a`
per picture races for display numbers when run in parallel). Each picture is rendered at
1.5 times its size (SUPERSAMPLE), cropped to the part and downsampled: smooth edges, and
every part fills the frame whatever its size. A picture is redrawn only when its STLs or the
settings change (index.json in the previews folder); a build also keeps each picture in its
render cache by that same content key, so a kit built into another folder with the same
cache (`--cache-dir`) takes the pictures of its unchanged parts from there.
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
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageChops

from squadron_cad.checks import meshgeo
from squadron_cad.checks.memo import RecordStore
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.errors import ToolError
from squadron_cad.geometry import frames
from squadron_cad.kit import kit_of
from squadron_cad.params import COLOUR_NAMES, KitParamsBase
from squadron_cad.render import display, openscad
from squadron_cad.render.atomic import read_json_object, write_bytes, write_json
from squadron_cad.render.cache import file_sha256
from squadron_cad.render.display import display_environment
from squadron_cad.versions import code_version

# The picture pipeline's own source: a change to it redraws every preview.
PICTURE_VERSION = code_version(sys.modules[__name__], display)
INDEX_NAME = "index.json"
BOX_VIEW = "packed_box"
# Render 1.5x, downsample: anti-aliased edges. 2x took 192 MB per OpenSCAD against 159 MB,
# and two of them beside the build pushed its peak over 500 MB (516 MB, measured).
SUPERSAMPLE = 1.5
ACCENT_SHADE = 0.5  # a raised silhouette is drawn this much darker: flat shading hides it
ACCENT_CUT_MM = 0.02
MARGIN = 0.05  # blank border around the cropped part, as a fraction of the frame
CAMERA = "0,0,0,55,0,25,0"  # OpenSCAD's default angles: from the front, above, turned 25 deg
COLOUR_SCHEME = "Tomorrow"  # light background; the part colours come from color()
BACKGROUND_TOLERANCE = 6  # grey levels: anything further from the corner colour is the part
PICTURE_TIMEOUT_S = 120.0
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
        return f"{PICTURE_VERSION}|{size}|{SUPERSAMPLE}|{MARGIN}|{CAMERA}|{COLOUR_SCHEME}"


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
    return _hex(params.previews.colour)


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


def part_view(stl_dir: Path, name: str, colour: str, params: KitParamsBase) -> View:
    stl = stl_dir / f"{name}.stl"
    declared = {part.name: part.camera for part in kit_of(params).parts}.get(name)
    items = (Placed(stl, colour, None, accent_height(stl, params)),)
    return View(name, items, camera=declared or CAMERA)


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
        colour = _content_colour(str(entry.get("name", stl.stem)), stl.stem, params)
        items.append(Placed(stl, colour, transform, accent_height(stl, params)))
    return items


_PLAYER = re.compile(r"^player(\d+)_")
_DIE = re.compile(r"^die_([a-z]+)_\d+$")


def _content_colour(name: str, part_name: str, params: KitParamsBase) -> str:
    """player<n>_... in player n's colour, die_<colour>_<k> in that colour, the rest neutral."""
    player = _PLAYER.match(name)
    if player:
        colours = player_colours(params)
        return colours[(int(player.group(1)) - 1) % len(colours)][1]
    die = _DIE.match(name)
    if die and die.group(1) in COLOUR_NAMES:
        return COLOUR_NAMES[die.group(1)]
    parts = {part.name: part for part in kit_of(params).parts}
    neutral = part_name in parts and parts[part_name].colour == "neutral"
    return NEUTRAL if neutral else part_colour(params)


def _matrix(value: Any) -> Matrix | None:
    if value is None:
        return None
    rows = np.asarray(value, dtype=float)
    if rows.shape != (4, 4) or not np.all(np.isfinite(rows)):
        raise ValueError(f"a transform must be 4x4 numbers, got shape {rows.shape}")
    return tuple(tuple(float(v) for v in row) for row in rows)


def scene_source(view: View) -> str:
    """The OpenSCAD file that imports and colours the view's STLs."""
    lines = [f"// preview {view.name}: generated by squadron_cad"]
    for item in view.items:
        placing = ""
        if item.transform is not None:
            rows = ", ".join(
                "[" + ", ".join(f"{v:.6g}" for v in row) + "]" for row in item.transform
            )
            placing = f"multmatrix([{rows}]) "
        shape = f"import({json.dumps(str(item.stl.resolve()))}, convexity=10);"
        lines.append(f'color("{item.colour}") {placing}{shape}')
    return "\n".join(lines) + "\n"


def split_accents(view: View, folder: Path) -> View:
    """Accented parts as two STLs, base and raised top, so each takes its own colour.

    (Cutting in OpenSCAD's preview instead flickers and loses faces.)"""
    halves: dict[tuple[Path, float], tuple[Path, Path]] = {}
    items: list[Placed] = []
    for item in view.items:
        z = item.accent_from_z_mm
        if z is None:
            items.append(item)
            continue
        if (item.stl, z) not in halves:
            halves[(item.stl, z)] = _halves(item.stl, z, folder / f"accent{len(halves)}")
        lower, upper = halves[(item.stl, z)]
        items.append(Placed(lower, item.colour, item.transform))
        items.append(Placed(upper, shade(item.colour, ACCENT_SHADE), item.transform))
    return dataclasses.replace(view, items=tuple(items))


def _halves(stl: Path, z: float, stem: Path) -> tuple[Path, Path]:
    solid = meshgeo.to_manifold(load_mesh(stl))
    # Cut just above the base's top face, and leave a hair between the halves: faces on the
    # cut or shared by both halves would flicker (z-fighting) in the picture.
    lower = solid.trim_by_plane((0.0, 0.0, -1.0), -(z + ACCENT_CUT_MM))
    upper = solid.trim_by_plane((0.0, 0.0, 1.0), z + 2 * ACCENT_CUT_MM)
    paths = (stem.with_name(stem.name + "_base.stl"), stem.with_name(stem.name + "_top.stl"))
    for path, half in zip(paths, (lower, upper), strict=True):
        meshgeo.to_trimesh(half).export(path, file_type="stl")
    return paths


def shade(colour: str, factor: float) -> str:
    """#rrggbb scaled towards black."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(v * factor):02x}" for v in rgb)


def view_key(view: View, settings: PictureSettings, tool: openscad.OpenScad) -> str:
    """What a picture depends on: the STLs' contents, colours, placements and settings."""
    digest = hashlib.sha256(f"{settings.key}|{tool.identity}|{view.camera}".encode())
    hashes: dict[Path, str] = {}
    for item in view.items:
        if item.stl not in hashes:
            hashes[item.stl] = file_sha256(item.stl)
        placed = f"{item.colour}|{item.transform}|{item.accent_from_z_mm}"
        digest.update(f"|{hashes[item.stl]}|{placed}".encode())
    return digest.hexdigest()


# ---- the display ---------------------------------------------------------------------


# ---- one picture ---------------------------------------------------------------------


def snapshot(
    tool: openscad.OpenScad,
    view: View,
    target: Path,
    settings: PictureSettings,
    env: dict[str, str],
) -> float:
    """Draw one view into target (PNG, atomically); the seconds it took."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="squadron-preview-") as work:
        raw = Path(work) / "raw.png"
        width, height = (round(side * SUPERSAMPLE) for side in settings.size_px)
        options = [
            f"--imgsize={width},{height}",
            "--viewall",
            "--autocenter",
            f"--camera={view.camera}",
            f"--colorscheme={COLOUR_SCHEME}",
        ]
        scene = scene_source(split_accents(view, Path(work)))
        openscad.draw_png(tool, view.name, scene, raw, options, env, PICTURE_TIMEOUT_S)
        with Image.open(raw) as image:
            finished = frame(image, (settings.width_px, settings.height_px))
    buffer = io.BytesIO()
    # 256 colours look the same here (few hues, smooth shading) at under half the bytes.
    palette = finished.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette.save(buffer, format="PNG", optimize=True)
    write_bytes(target, buffer.getvalue())
    return time.perf_counter() - started


def frame(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Crop to the part with a margin at the target aspect, then downsample to size."""
    rgb = image.convert("RGB")
    background = rgb.getpixel((0, 0))
    content = content_box(rgb, background)
    if content is None:
        raise ToolError("preview: the picture is blank")
    left, top, right, bottom = _framed(content, size)
    canvas = Image.new("RGB", (right - left, bottom - top), background)
    canvas.paste(rgb, (-left, -top))
    return canvas.resize(size, Image.Resampling.LANCZOS)


def content_box(image: Image.Image, background: Any) -> tuple[int, int, int, int] | None:
    """The bounding box of every pixel that is not background."""
    plain = Image.new("RGB", image.size, background)
    distance = ImageChops.difference(image, plain).convert("L")
    return distance.point(lambda v: 255 if v > BACKGROUND_TOLERANCE else 0).getbbox()


def _framed(content: tuple[int, int, int, int], size: tuple[int, int]) -> tuple[int, ...]:
    left, top, right, bottom = content
    aspect = size[0] / size[1]
    width = (right - left) / (1 - 2 * MARGIN)
    height = (bottom - top) / (1 - 2 * MARGIN)
    width, height = max(width, height * aspect), max(height, width / aspect)
    centre_x, centre_y = (left + right) / 2, (top + bottom) / 2
    x0, y0 = round(centre_x - width / 2), round(centre_y - height / 2)
    return x0, y0, x0 + round(width), y0 + round(height)


# ---- a batch, cached -----------------------------------------------------------------


def load_index(folder: Path) -> dict[str, Any]:
    return read_json_object(folder / INDEX_NAME) or {}


def render_views(
    views: Sequence[View],
    folder: Path,
    settings: PictureSettings,
    jobs: int,
    tool: openscad.OpenScad | None = None,
    progress: Progress | None = None,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> list[Picture]:
    """Draw the views into folder/<name>.png, skipping those already drawn as they are now
    (in folder, or in store: a render cache that keeps pictures by their content key)."""
    tool = tool or openscad.locate()
    report = progress or _quiet
    folder.mkdir(parents=True, exist_ok=True)
    index = load_index(folder)
    known = index.get("previews", {}) if isinstance(index.get("previews"), dict) else {}
    pictures: dict[str, Picture] = {}
    todo: list[tuple[View, str]] = []
    for view in views:
        key = view_key(view, settings, tool)
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
        pictures.update(_draw_all(todo, folder, settings, jobs, tool, report, sharing, store))
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
    tool: openscad.OpenScad,
    report: Progress,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> dict[str, Picture]:
    share = sharing or Sharing()

    def draw(job: tuple[View, str]) -> Picture:
        view, key = job
        target = folder / f"{view.name}.png"
        with share.slot():
            report(view.name, "drawing")
            seconds = snapshot(tool, view, target, settings, env)
        picture = Picture(view, target, key, seconds, cached=False)
        _keep(store, picture)
        report(view.name, "drawn")
        return picture

    with display_environment() as env, ThreadPoolExecutor(max(1, jobs)) as pool:
        return {picture.view.name: picture for picture in pool.map(draw, todo)}


@dataclass
class Sharing:
    """How pictures drawn beside other work share the machine: each OpenSCAD holds one of
    the build's `slots` while it runs, and none starts once `stopped` is set (the build was
    interrupted; openscad.stop_all ends those under way)."""

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
    colour = part_colour(params)
    views = [
        part_view(stl_dir, name, colour, params)
        for name in parts
        if (stl_dir / f"{name}.stl").is_file()
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
    tool: openscad.OpenScad | None = None,
    progress: Progress | None = None,
    sharing: Sharing | None = None,
    store: RecordStore | None = None,
) -> list[Path]:
    """out/previews/<part>.png for each part's STL, plus the kit, stack and packed box views
    (those kept in store, a render cache, are copied from it).

    Raises ToolError when OpenSCAD cannot draw (no Xvfb on a machine without a display).
    """
    folder = out_dir / FOLDER
    views = preview_views(out_dir, parts, params)
    settings = PictureSettings(params.previews.width_px, params.previews.height_px)
    pictures = render_views(views, folder, settings, jobs, tool, progress, sharing, store)
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

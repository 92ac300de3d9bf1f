"""The box layout's files in a kit: layout.json, the packed assembly and its picture.

The picture is drawn from the layout and the tin alone, not from the meshes, so a build
starts it in a thread before the renders (`early_picture`): matplotlib's import and drawing
then take the core the renders leave idle (a new tin renders two parts, one of them small).
The layout's writer (trimesh) is imported where it is first used, beside the renders too.
"""

from __future__ import annotations

import base64
import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path

from squadron_cad.checks import memo
from squadron_cad.errors import SquadronError
from squadron_cad.fit.layout import Layout
from squadron_cad.kit import Design
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.clock import BackgroundWork
from squadron_cad.render.atomic import write_bytes
from squadron_cad.render.cache import RenderCache
from squadron_cad.versions import code_version

LAYOUT_PNG = "layout.png"
LAYOUT_ASSEMBLY = "layout_assembly.stl"

Picture = BackgroundWork[bytes]


@functools.cache
def layout_picture_version() -> str:
    """The cached picture follows the drawing code."""
    from squadron_cad.fit import layout_io  # trimesh: imported where first needed

    return code_version(layout_io)


def write_layout_files(
    layout: Layout,
    params: KitParamsBase,
    out_dir: Path,
    picture: bool = True,
    cache: RenderCache | None = None,
    drawing: Picture | None = None,
) -> list[Path]:
    """layout.json (with the die's mesh), the packed assembly and the top-down picture
    (`drawing`'s when it was started early)."""
    from squadron_cad.fit import layout_io

    written = [
        layout_io.write_layout(layout, params, out_dir),
        layout_io.write_assembly(layout, params, out_dir, out_dir / LAYOUT_ASSEMBLY),
    ]
    if picture:  # a picture like the previews, skipped with them
        path = out_dir / LAYOUT_PNG
        write_bytes(path, drawing.result() if drawing else picture_png(layout, params, cache))
        written.append(path)
    return written


@contextlib.contextmanager
def early_picture(design: Design, cache: RenderCache, wanted: bool) -> Iterator[Picture | None]:
    """The layout picture, drawn in a thread while the block runs (None when not wanted,
    when the kit has no layout, or when the solver refuses it: the build says so where it
    reads the layout). The block's end waits for the drawing: it writes to the cache."""
    layout = _layout_or_none(design) if wanted else None
    if layout is None:
        yield None
        return
    params = design.params
    drawing = BackgroundWork("layout picture", lambda: picture_png(layout, params, cache), _no_stop)
    try:
        drawing.start()  # a stop held through the start is raised here: the finally waits
        yield drawing
    finally:
        drawing.cancel()


def _layout_or_none(design: Design) -> Layout | None:
    try:
        return design.layout
    except SquadronError:
        return None


def _no_stop() -> None:
    """Drawing runs no subprocess: there is nothing to stop, only to wait for."""


def layout_picture(
    layout: Layout, params: KitParamsBase, path: Path, cache: RenderCache | None
) -> Path:
    """The top-down picture, written to path."""
    write_bytes(path, picture_png(layout, params, cache))
    return path


def picture_png(layout: Layout, params: KitParamsBase, cache: RenderCache | None) -> bytes:
    """The top-down picture's PNG, from the cache when the layout and the tin are unchanged
    (most parameters change neither, and drawing it takes matplotlib a second)."""

    from squadron_cad.fit import layout_io

    def draw() -> str:
        return base64.b64encode(layout_io.layout_png(layout, params)).decode()

    keep = memo.remembering_in(cache, layout_picture_version()) if cache is not None else None
    with keep or contextlib.nullcontext():
        png = memo.remember("layoutpng", layout_io.layout_digest(layout, params), draw)
    return base64.b64decode(png)

"""The box layout's files in a kit: layout.json, the packed assembly and its picture."""

from __future__ import annotations

import base64
import contextlib
from pathlib import Path

from squadron_cad.checks import memo
from squadron_cad.fit import layout_io
from squadron_cad.fit.layout import Layout
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_bytes
from squadron_cad.render.cache import RenderCache
from squadron_cad.versions import code_version

LAYOUT_PNG = "layout.png"
LAYOUT_ASSEMBLY = "layout_assembly.stl"
LAYOUT_PICTURE_VERSION = code_version(layout_io)


def write_layout_files(
    layout: Layout,
    params: KitParamsBase,
    out_dir: Path,
    picture: bool = True,
    cache: RenderCache | None = None,
) -> list[Path]:
    """layout.json (with the die's mesh), the packed assembly and the top-down picture."""
    written = [
        layout_io.write_layout(layout, params, out_dir),
        layout_io.write_assembly(layout, params, out_dir, out_dir / LAYOUT_ASSEMBLY),
    ]
    if picture:  # a picture like the previews, skipped with them
        written.append(layout_picture(layout, params, out_dir / LAYOUT_PNG, cache))
    return written


def layout_picture(
    layout: Layout, params: KitParamsBase, path: Path, cache: RenderCache | None
) -> Path:
    """The top-down picture, from the cache when the layout and the tin are unchanged (most
    parameters change neither, and drawing it takes matplotlib a second)."""

    drawn: list[Path] = []

    def draw() -> str:
        drawn.append(layout_io.write_layout_png(layout, params, path))
        return base64.b64encode(path.read_bytes()).decode()

    keep = memo.kept_in(cache, LAYOUT_PICTURE_VERSION) if cache is not None else None
    with keep or contextlib.nullcontext():
        png = memo.remember("layoutpng", layout_io.layout_digest(layout, params), draw)
    if not drawn:  # remembered: written from the cache
        write_bytes(path, base64.b64decode(png))
    return path

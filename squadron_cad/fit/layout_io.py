"""The layout's outputs: layout.json, a top-down picture, and the packed box as one mesh.

Tin frame (every transform in layout.json): origin at the centre of the tin's inner
floor, x along the tin's inner length, y along its width, z up from the floor. The box
stands centred on the tin floor, so the box frame (origin at the centre of the box's
underside) is the tin frame and the box's transform is the identity.

Each transform maps a part's STL (as built, in print orientation) to where it lies in the
packed tin. STL paths are relative to the output folder. A piece that is bought, not
printed (a die: its part is none of the kit's), gets a plain block of its size at
layout/<part>.stl, so an independent program can load every content. Every file is
written atomically (a temporary file in the same folder, then one rename).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import trimesh
from trimesh.exchange.stl import export_stl

from squadron_cad.fit.layout import Layout, Placement, Pocket, pocket_label
from squadron_cad.fit.units import octagon_points
from squadron_cad.geometry import frames
from squadron_cad.geometry.outlines import rounded_rect_points
from squadron_cad.kit import kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_bytes, write_json

LAYOUT_JSON = "layout.json"


def bought_parts(layout: Layout, p: KitParamsBase) -> dict[str, Placement]:
    """One placement of each stowed part the kit does not print (dice)."""
    printed = set(kit_of(p).part_names)
    return {q.part: q for q in layout.placements if q.part not in printed}


def part_stl(part: str, bought: Iterable[str] = ()) -> str:
    return f"layout/{part}.stl" if part in bought else f"stl/{part}.stl"


def layout_json(layout: Layout, p: KitParamsBase) -> dict[str, Any]:
    tin, box = p.tin, layout.box
    bought = bought_parts(layout, p)
    lid_entry = (
        {"stl": part_stl(layout.lid_part), "transform": frames.as_list(layout.lid_pose)}
        if layout.lid_part
        else None
    )
    tin_entry = tin and {
        "inner_length_mm": tin.inner_length_mm,
        "inner_width_mm": tin.inner_width_mm,
        "inner_depth_mm": tin.inner_depth_mm,
        "corner_radius_mm": tin.corner_radius_mm,
        "clearance_mm": round((tin.inner_length_mm - box.length) / 2, 6),
    }
    return {
        "tin": tin_entry,
        "box": {"stl": part_stl(layout.box_part), "transform": frames.as_list(frames.identity())},
        "lid": lid_entry,
        "strategy": layout.strategy,
        "margins_mm": dict(layout.margins),
        "limited_by": layout.limited_by,
        "contents": [
            {
                "name": placed.name,
                "stl": part_stl(placed.part, bought),
                "transform": frames.as_list(placed.transform),
                **({"on_top": True} if placed.on_top else {}),
            }
            for placed in layout.placements
        ],
    }


def bought_mesh(placed: Placement) -> trimesh.Trimesh:
    """A bought piece as a block filling its bounds in its own (part) frame."""
    inverse = np.linalg.inv(placed.transform)
    low, high = frames.transform_bounds(inverse, placed.bounds)
    centre = [(a + b) / 2 for a, b in zip(low, high, strict=True)]
    extents = [b - a for a, b in zip(low, high, strict=True)]
    return trimesh.creation.box(extents=extents, transform=frames.translate(*centre))


def write_layout(layout: Layout, p: KitParamsBase, out_dir: Path) -> Path:
    """layout.json and the bought pieces' meshes into out_dir; returns the JSON's path."""
    for part, placed in bought_parts(layout, p).items():
        write_bytes(out_dir / part_stl(part, [part]), _stl_bytes(bought_mesh(placed)))
    target = out_dir / LAYOUT_JSON
    write_json(target, layout_json(layout, p))
    return target


def _stl_bytes(mesh: trimesh.Trimesh) -> bytes:
    return export_stl(mesh)  # what mesh.export(file_type="stl") runs, typed as bytes


# ---- the packed box as one mesh ----


def write_assembly(
    layout: Layout, p: KitParamsBase, out_dir: Path, path: Path, include_lid: bool = False
) -> Path:
    """Load the rendered STLs, place them as the layout says, export one STL or 3MF.

    The lid is left off by default, so the packing shows."""
    loaded: dict[str, trimesh.Trimesh] = {}
    bought = bought_parts(layout, p)
    scene = trimesh.Scene()
    scene.add_geometry(_load(out_dir, layout.box_part, loaded), node_name="box")
    if include_lid and layout.lid_part:
        lid = _load(out_dir, layout.lid_part, loaded)
        scene.add_geometry(lid, node_name="lid", transform=layout.lid_pose)
    for placed in layout.placements:
        mesh = _load(out_dir, placed.part, loaded, bought)
        scene.add_geometry(mesh, node_name=placed.name, transform=placed.transform)
    if path.suffix.lower() == ".3mf":
        data = scene.export(file_type="3mf")
    else:
        data = _stl_bytes(scene.to_mesh())
    write_bytes(path, data)
    return path


def _load(
    out_dir: Path, part: str, loaded: dict[str, trimesh.Trimesh], bought: Iterable[str] = ()
) -> trimesh.Trimesh:
    if part not in loaded:
        mesh = trimesh.load_mesh(out_dir / part_stl(part, bought), file_type="stl")
        loaded[part] = mesh
    return loaded[part]


# ---- the picture ----


def layout_digest(layout: Layout, p: KitParamsBase) -> str:
    """A digest of the layout, the tin and which pieces are bought, stable across runs:
    everything the top-down picture is drawn from (equal digests, equal pictures), and
    what checks of where the pieces lie may be remembered by."""
    drawn: list[object] = [dataclasses.asdict(layout), p.tin and p.tin.model_dump(mode="json")]
    drawn.append(sorted(bought_parts(layout, p)))
    text = json.dumps(drawn, default=_plain, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if hasattr(value, "wkt"):  # a shapely geometry
        return value.wkt
    raise TypeError(f"the layout holds a {type(value).__name__} the picture digest cannot read")


def write_layout_png(layout: Layout, p: KitParamsBase, path: Path) -> Path:
    """Top-down: the tin, the box, its pockets and every piece, labelled, with margins."""
    write_bytes(path, layout_png(layout, p))
    return path


def layout_png(layout: Layout, p: KitParamsBase) -> bytes:
    """The top-down picture's PNG bytes. Drawn on a figure of its own, not pyplot's: a build
    draws it in a thread, and pyplot's figures are global state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 8), dpi=100)
    FigureCanvasAgg(figure)
    _draw(figure.subplots(), layout, p)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _draw(axes: Any, layout: Layout, p: KitParamsBase) -> None:
    tin, box = p.tin, layout.box
    if tin is not None:
        inside = (tin.inner_length_mm, tin.inner_width_mm, tin.corner_radius_mm)
        _outline(axes, *inside, "#777777", "tin (inside)", "--")
    _outline(axes, box.length, box.width, box.radius, "#1f3b73", "box", "-")
    _outline(axes, box.inner_length, box.inner_width, box.inner_radius, "#1f3b73", None, ":")
    for pocket in layout.pockets:
        on_top = pocket.on_top
        polygon = np.vstack([pocket.points, pocket.points[:1]])
        if on_top:
            axes.plot(
                polygon[:, 0],
                polygon[:, 1],
                color="#b35900",
                linestyle="--",
                linewidth=1.2,
                label=f"{pocket.name.replace('_', ' ')} (on top, under the lid)",
            )
        else:
            axes.fill(
                polygon[:, 0], polygon[:, 1], color="#dce6f5", edgecolor="#1f3b73", linewidth=0.8
            )
    for index, notch in enumerate(layout.notches):
        label = "finger notch" if index == 0 else None
        axes.plot(*notch.centre, marker="o", color="#c0392b", markersize=4, label=label)
    pockets = {pocket.name: pocket for pocket in layout.pockets}
    bought = bought_parts(layout, p)
    for placed in layout.placements:
        _piece(axes, placed, pockets.get(placed.unit), placed.part in bought)
    names = [pocket.name for pocket in layout.pockets]
    for pocket in layout.pockets:
        if pocket.on_top:
            continue  # in the legend: a label would sit on the pockets below it
        x0, y0, x1, y1 = pocket.bounds_2d
        label = pocket_label(pocket.name, names)
        y = y0 + 3 if pocket.kind == "outline" else (y0 + y1) / 2
        axes.text((x0 + x1) / 2, y, label, ha="center", va="center", fontsize=7)
    margins = ", ".join(f"{axis} {value:.1f}" for axis, value in layout.margins.items())
    axes.set_title(
        f"{tin.name if tin else 'box'}: {layout.strategy}\n"
        f"margins mm: {margins} (limited by {layout.limited_by})",
        fontsize=10,
    )
    axes.set_aspect("equal")
    axes.set_xlabel("x (mm, tin length)")
    axes.set_ylabel("y (mm, tin width)")
    axes.legend(loc="upper right", fontsize=7)
    axes.grid(True, linewidth=0.3)


def _outline(
    axes: Any,
    length: float,
    width: float,
    radius: float,
    colour: str,
    label: str | None,
    style: str,
) -> None:
    points = rounded_rect_points(length, width, radius)
    closed = np.vstack([points, points[:1]])
    axes.plot(closed[:, 0], closed[:, 1], color=colour, linestyle=style, linewidth=1.2, label=label)


def _piece(axes: Any, placed: Placement, pocket: Pocket | None, bought: bool) -> None:
    """A piece's footprint: an octagon in an octagon pocket, else its bounding rectangle."""
    if placed.on_top:
        return  # its recess is drawn already
    (x0, y0, _), (x1, y1, _) = placed.bounds
    colour = "#c0392b" if bought else "#2e7d32"
    if pocket is not None and pocket.kind == "octagon":
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        points = octagon_points(x1 - x0) + centre
    else:
        points = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    closed = np.vstack([points, points[:1]])
    axes.plot(closed[:, 0], closed[:, 1], color=colour, linewidth=0.6)

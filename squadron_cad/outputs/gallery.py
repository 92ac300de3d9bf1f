"""The documentation: README gallery pictures and the parameter table, from the defaults.

`write_gallery` draws docs/gallery/*.png with the preview renderer and writes
docs/gallery.md (a snippet to paste or include) and docs/parameters.md (every field of the
parameter models: default, unit, range, description). docs/gallery/index.json records the
sha256 of each part's emitted OpenSCAD source at the defaults, so `docs_stale` can tell,
without rendering, whether the committed pictures still show what the code makes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from squadron_cad.emit import emit
from squadron_cad.errors import InputError
from squadron_cad.fit.layout_io import write_layout_png
from squadron_cad.kit import kit_of
from squadron_cad.outputs.previews import (
    BOX_VIEW,
    INDEX_NAME,
    PictureSettings,
    View,
    box_view,
    load_index,
    part_colour,
    part_view,
    render_views,
)
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_json, write_text
from squadron_cad.render.openscad import OpenScad
from squadron_cad.resolve import resolve

GALLERY_DIR = "gallery"
GALLERY_MD = "gallery.md"
PARAMETERS_MD = "parameters.md"
BOX_CAPTION = "The box packed: every piece in its pocket (the lid and any piece on top left off)"


# ---- sources: what the pictures depend on --------------------------------------------


def source_hashes(params: KitParamsBase) -> dict[str, str]:
    """sha256 of every part's emitted OpenSCAD source: cheap, no rendering."""
    kit = kit_of(params)
    design = kit.design(params)
    return {
        spec.name: hashlib.sha256(emit(spec, design, kit.credit).text.encode()).hexdigest()
        for spec in kit.parts
    }


def settings_hash(params: KitParamsBase) -> str:
    """The picture settings and colours the gallery was drawn with."""
    settings = PictureSettings(params.previews.width_px, params.previews.height_px)
    colours = [c.model_dump() for c in params.player_colours or ()]
    text = json.dumps([settings.key, params.previews.colour, colours, params.players])
    return hashlib.sha256(text.encode()).hexdigest()


# ---- pictures ------------------------------------------------------------------------


def gallery_parts(params: KitParamsBase) -> list[str]:
    """Every part a default kit prints (alternatives are shown by `make previews`)."""
    return [spec.name for spec in kit_of(params).parts if spec.alternative_to is None]


def gallery_views(out_dir: Path, params: KitParamsBase) -> list[View]:
    stl_dir = out_dir / "stl"
    names = gallery_parts(params)
    missing = [name for name in names if not (stl_dir / f"{name}.stl").is_file()]
    if missing:
        raise InputError(f"gallery: build the default kit first; missing {', '.join(missing)}")
    kit = kit_of(params)
    scenes = kit.scenes(params, stl_dir) if kit.scenes else []
    scenes.append(box_view(out_dir, params))
    colour = part_colour(params)
    parts = [part_view(stl_dir, name, colour, params) for name in names]
    return [scene for scene in scenes if scene is not None] + parts


def write_gallery(
    docs_dir: Path,
    out_dir: Path,
    params: KitParamsBase,
    jobs: int = 2,
    *,
    tool: OpenScad | None = None,
) -> list[Path]:
    """Draw docs/gallery/*.png from a default build in out_dir; write the docs pages.

    Returns the pictures, docs/gallery.md and docs/parameters.md.
    """
    defaults = resolve(kit=kit_of(params))
    if params != defaults:
        raise InputError("gallery: the README pictures show the default parameters; drop --set")
    folder = docs_dir / GALLERY_DIR
    views = gallery_views(out_dir, params)
    settings = PictureSettings(params.previews.width_px, params.previews.height_px)
    pictures = render_views(views, folder, settings, jobs, tool)
    plan = _draw_layout_plan(params, folder)
    _prune(folder, {view.name for view in views} | {plan.stem})
    index = load_index(folder)
    index["sources"] = source_hashes(params)
    index["settings"] = settings_hash(params)
    index["images"] = [picture.path.name for picture in pictures]
    write_json(folder / INDEX_NAME, index)
    snippet = docs_dir / GALLERY_MD
    write_text(snippet, gallery_markdown(views, params))
    table = docs_dir / PARAMETERS_MD
    write_text(table, parameters_markdown(defaults))
    return [picture.path for picture in pictures] + [plan, snippet, table]


LAYOUT_PLAN = "layout.png"


def _draw_layout_plan(params: KitParamsBase, folder: Path) -> Path:
    """The top-down layout plan, shown in the README beside the packed box."""
    layout = kit_of(params).design(params).layout
    if layout is None:
        raise InputError("gallery: the kit has no box to draw")
    return write_layout_png(layout, params, folder / LAYOUT_PLAN)


def _prune(folder: Path, names: set[str]) -> None:
    """Pictures of parts or scenes no longer in the gallery."""
    for path in folder.glob("*.png"):
        if path.stem not in names:
            path.unlink()


def _caption(view: View, params: KitParamsBase) -> str:
    if view.caption:
        return view.caption
    if view.name == BOX_VIEW:
        return BOX_CAPTION
    return kit_of(params).part(view.name).title


def gallery_markdown(views: list[View], params: KitParamsBase) -> str:
    """Two pictures per row, each with its caption."""
    lines = [
        "<!-- Generated by `make docs` (squadron_cad.outputs.gallery); do not edit. -->",
        "",
        "| | |",
        "|---|---|",
    ]
    for start in range(0, len(views), 2):
        pair = [*views[start : start + 2], None][:2]
        lines.append(f"| {_cell(pair[0], params)} | {_cell(pair[1], params)} |")
    return "\n".join(lines) + "\n"


def _cell(view: View | None, params: KitParamsBase) -> str:
    if view is None:
        return ""
    caption = _caption(view, params)
    return f"![{caption}]({GALLERY_DIR}/{view.name}.png)<br>**{view.name}**: {caption}"


# ---- staleness -----------------------------------------------------------------------


def gallery_stale(docs_dir: Path, params: KitParamsBase | None = None) -> list[str]:
    """Why the committed pictures no longer match the defaults (empty when they do)."""
    params = params or resolve()
    folder = docs_dir / GALLERY_DIR
    index = load_index(folder)
    if not index.get("sources"):
        return [f"{folder / INDEX_NAME} is missing: run `make docs`"]
    reasons = []
    recorded = index["sources"]
    for name, digest in source_hashes(params).items():
        if recorded.get(name) != digest:
            reasons.append(f"{name}: its OpenSCAD source changed since the pictures were drawn")
    if index.get("settings") != settings_hash(params):
        reasons.append("picture settings or colours changed")
    for image in index.get("images", []):
        if not (folder / image).is_file():
            reasons.append(f"{image} is missing")
    return reasons


def docs_stale(docs_dir: Path) -> list[str]:
    """gallery_stale plus a parameter table that no longer matches the models."""
    params = resolve()
    reasons = gallery_stale(docs_dir, params)
    table = docs_dir / PARAMETERS_MD
    if not table.is_file() or table.read_text(encoding="utf-8") != parameters_markdown(params):
        reasons.append(f"{table} does not match the parameter models")
    return reasons


# ---- the parameter table -------------------------------------------------------------


def parameters_markdown(defaults: KitParamsBase) -> str:
    """Every parameter: key, default, unit, range and description, section by section."""
    lines = [
        "# Parameters",
        "",
        f"<!-- Generated by `make docs` from the {kit_of(defaults).title} kit's parameter "
        "model; do not edit. -->",
        "",
        "Defaults are `params/engine-defaults.yaml` (the engine's sections) under "
        "`params/default.yaml` (the kit's). Set any key in your own YAML (`--params FILE`) or "
        "with `--set key.path=value`.",
    ]
    top_level = [(key, info) for key, info in type(defaults).model_fields.items()]
    plain = [(key, info) for key, info in top_level if _section_model(info) is None]
    lines += _table("Kit", "", plain, defaults)
    for key, info in top_level:
        model = _section_model(info)
        if model is not None:
            fields = list(model.model_fields.items())
            doc = model.__dict__.get("__doc__")  # the section's own docstring, if any
            lines += _table(key, f"{key}.", fields, getattr(defaults, key), doc)
    return "\n".join([*lines, *_derived_table(defaults)]) + "\n"


def _derived_table(defaults: KitParamsBase) -> list[str]:
    """Sizes the rules compute from the parameters: shown, never set."""
    rows = [
        "",
        "## Derived sizes (computed by the game's rules, not set)",
        "",
        "| name | at the defaults | unit |",
        "|---|---|---|",
    ]
    for name, member in vars(type(defaults)).items():
        value = getattr(defaults, name) if isinstance(member, property) else None
        if isinstance(value, int | float) or hasattr(value, "__float__"):
            rows.append(f"| `{name}` | {float(value):.4g} | {_unit(name, FieldInfo())} |")
    return rows


def _section_model(info: FieldInfo) -> type[BaseModel] | None:
    annotation = info.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _table(
    title: str,
    prefix: str,
    fields: list[tuple[str, FieldInfo]],
    values: Any,
    doc: str | None = None,
) -> list[str]:
    rows = ["", f"## {title}", ""]
    if doc:
        rows += [" ".join(doc.split()), ""]
    rows += ["| key | default | unit | range | description |", "|---|---|---|---|---|"]
    return rows + _rows(prefix, fields, values)


def _rows(prefix: str, fields: list[tuple[str, FieldInfo]], values: Any) -> list[str]:
    """One row per leaf; a nested model (checks.stack_fit) becomes its own dotted rows."""
    rows = []
    for key, info in fields:
        value = getattr(values, key)
        nested = _section_model(info)
        if nested is not None:
            rows += _rows(f"{prefix}{key}.", list(nested.model_fields.items()), value)
            continue
        rows.append(
            f"| `{prefix}{key}` | {_show(value)} | {_unit(key, info)} | {_range(info)} | "
            f"{_describe(key, info)} |"
        )
    return rows


def _show(value: Any) -> str:
    if value is None or value == ():
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, tuple | list):
        return ", ".join(_show(item) for item in value)
    if isinstance(value, BaseModel):  # a player colour: "red", or "ace (#aa0000)"
        words = list(dict.fromkeys(str(v) for v in value.model_dump().values()))
        return words[0] + "".join(f" ({word})" for word in words[1:])
    text = str(value).replace("|", "/").replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def _unit(key: str, info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if extra.get("unit"):
        return str(extra["unit"])
    return next((unit for unit in ("mm", "deg", "px") if key.endswith(f"_{unit}")), "")


def _range(info: FieldInfo) -> str:
    choices = get_args(info.annotation)
    if choices and all(isinstance(choice, str) for choice in choices):
        return " or ".join(choices)  # a Literal
    noun = "characters" if info.annotation is str else "entries"
    limits = []
    for constraint in info.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            value = getattr(constraint, attr, None)
            if value is not None:
                limits.append(f"{sign} {value:g}")
        for attr, word in (("min_length", "at least"), ("max_length", "at most")):
            value = getattr(constraint, attr, None)
            if value is not None:
                limits.append(f"{word} {value} {noun}")
    return ", ".join(limits)


def _describe(key: str, info: FieldInfo) -> str:
    text = info.description or ""
    if key == "player_colours":
        text += "; each `{name: red, colour: red}` (a colour name or #rrggbb)"
    return text.replace("|", "/")

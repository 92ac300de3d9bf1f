"""The customizer's form, read off a kit's parameter model: never written by hand per kit.

The model's JSON schema gives each field its description, unit, range and choices; the
resolved parameters give its value. Fields are named by their dotted key (the key a
parameter file and `--set` take), grouped by section, the ones makers change most first.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from squadron_cad.kit import Kit
from squadron_cad.resolve import TIN_SIZES

# Shown first, for every kit: the container's sizes, the players and their colours, and
# every clearance between printed pieces (a printer's tolerance is the usual fix).
COMMON_KEYS = ("players", "player_colours")
CLEARANCE_SUFFIX = "clearance_mm"
FIRST_SECTIONS = ("tin",)  # then the kit's own sections, in the model's order
LAST_SECTIONS = ("quality", "text", "printer", "plates", "previews", "slicer", "paper", "checks")


@dataclass
class Field:
    """One input of the form."""

    key: str  # dotted: tin.inner_width_mm
    label: str  # the model's description of it
    kind: str  # number | integer | boolean | choice | text | colour | choices | rows | yaml
    section: str
    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: list[Any] = field(default_factory=list)
    optional: bool = False  # may be left empty (None)
    columns: list[dict[str, Any]] = field(default_factory=list)  # rows: each item's fields
    max_items: int | None = None
    featured: bool = False  # shown in the top group, before the folded sections

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [], "", False)}


def featured_keys(kit: Kit, keys: list[str]) -> list[str]:
    """The keys shown first: the tin's sizes, players, the kit's own picks, colours, then
    every clearance between printed pieces (not the checks' limits)."""
    wanted = [f"tin.{size}" for size in TIN_SIZES] + ["players", *kit.featured, "player_colours"]
    wanted += [k for k in keys if k.endswith(CLEARANCE_SUFFIX) and not k.startswith("checks.")]
    return [k for k in dict.fromkeys(wanted) if k in keys]


def form_fields(kit: Kit) -> list[Field]:
    """Every leaf of the kit's parameter model as a form field, in the form's order."""
    schema = kit.params_model.model_json_schema()
    definitions = schema.get("$defs", {})
    fields: list[Field] = []
    _walk(schema, definitions, "", "", fields)
    keys = [f.key for f in fields]
    first = featured_keys(kit, keys)
    for item in fields:
        item.featured = item.key in first
    ranked = {key: index for index, key in enumerate(first)}
    order = _section_order([f.section for f in fields])
    return sorted(
        fields,
        key=lambda f: (
            0 if f.featured else 1,
            ranked.get(f.key, 0),
            order.index(f.section),
        ),
    )


def sections(fields: list[Field], kit: Kit) -> list[dict[str, str]]:
    """The folded sections in order, with the model's words for each (its docstring)."""
    schema = kit.params_model.model_json_schema()
    definitions = schema.get("$defs", {})
    titles = []
    for name in dict.fromkeys(f.section for f in fields if not f.featured):
        node = _deref(schema["properties"].get(name, {}), definitions)
        words = node.get("description", "") if node.get("type") == "object" else ""
        titles.append({"name": name, "title": name.replace("_", " ").capitalize(), "help": words})
    return titles


def _section_order(names: list[str]) -> list[str]:
    seen = list(dict.fromkeys(names))
    middle = [n for n in seen if n not in FIRST_SECTIONS and n not in LAST_SECTIONS]
    return (
        [n for n in FIRST_SECTIONS if n in seen] + middle + [n for n in LAST_SECTIONS if n in seen]
    )


def _deref(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = definitions[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _nullable(node: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """`X | None` as (X, True)."""
    options = node.get("anyOf")
    if not options:
        return node, False
    real = [o for o in options if o.get("type") != "null"]
    if len(real) == 1:
        merged = {k: v for k, v in node.items() if k != "anyOf"}
        return {**real[0], **merged}, len(real) < len(options)
    return node, False


def _walk(
    node: dict[str, Any], definitions: dict[str, Any], key: str, section: str, out: list[Field]
) -> None:
    node, optional = _nullable(node)
    described = node.get("description", "")
    node = {**_deref(node, definitions), **({"description": described} if described else {})}
    if node.get("type") == "object" and "properties" in node:
        for name, child in node["properties"].items():
            child_key = f"{key}.{name}" if key else name
            _walk(child, definitions, child_key, section or name, out)
        return
    out.append(_leaf(node, definitions, key, section or key, optional))


def _leaf(
    node: dict[str, Any], definitions: dict[str, Any], key: str, section: str, optional: bool
) -> Field:
    label = node.get("description") or key.rsplit(".", 1)[-1].replace("_", " ")
    item = Field(key=key, label=label, kind="yaml", section=section, optional=optional)
    item.unit = str(node.get("unit", ""))
    kind = node.get("type")
    if "enum" in node:
        item.kind, item.choices = "choice", list(node["enum"])
    elif kind in ("number", "integer"):
        item.kind = kind
        _range(item, node)
    elif kind == "boolean":
        item.kind = "boolean"
    elif kind == "string":
        item.kind = "colour" if key.rsplit(".", 1)[-1] == "colour" else "text"
    elif kind == "array":
        _array(item, node, definitions)
    return item


def _range(item: Field, node: dict[str, Any]) -> None:
    for bound, exclusive, attr in (
        ("minimum", "exclusiveMinimum", "minimum"),
        ("maximum", "exclusiveMaximum", "maximum"),
    ):
        if exclusive in node:
            setattr(item, attr, node[exclusive])
            setattr(item, f"exclusive_{attr}", True)
        elif bound in node:
            setattr(item, attr, node[bound])


def _array(item: Field, node: dict[str, Any], definitions: dict[str, Any]) -> None:
    items = _deref(node.get("items", {}), definitions)
    item.max_items = node.get("maxItems")
    if "enum" in items:
        item.kind, item.choices = "choices", list(items["enum"])
    elif items.get("type") == "object" and "properties" in items:
        item.kind = "rows"
        for name, child in items["properties"].items():
            sub = _leaf(_nullable(child)[0], definitions, name, item.section, _nullable(child)[1])
            item.columns.append(sub.as_dict())

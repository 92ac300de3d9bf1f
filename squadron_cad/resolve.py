"""The one resolver: the engine's defaults, the kit's, a tin preset, --params files, --set.

Each layer is merged key by key, remembering where every value came from, so a refusal can
say "token.width_mm = -3 (from mytin.yaml): must be greater than 0".
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, default_kit, load_kit
from squadron_cad.paramfile import (
    STDIN,
    installed_yaml,
    load_yaml_file,
    load_yaml_layer,
    parse_yaml_layer,
    parse_yaml_mapping,
)
from squadron_cad.params import KitParamsBase

__all__ = ["STDIN", "load_yaml_file", "parse_override", "parse_yaml_mapping", "resolve"]

ENGINE_DEFAULTS = Path(__file__).resolve().parent / "defaults.yaml"  # what every kit shares
# a dotted path of words; a word the model does not know (Token, leave-out) is refused by
# the model as an unknown key, named, with the nearest known one
_KEY_PATH = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


@dataclass
class Layered:
    """Merged raw values for one kit, the origin of each leaf key, and the numbers as the
    maker wrote them (a text field takes `2024` as "2024")."""

    kit: Kit
    values: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)

    def merge(
        self, layer: dict[str, Any], origin: str, written: dict[str, str] | None = None
    ) -> None:
        _merge_into(self.values, layer, origin, "", self.origins, self.kit.params_model)
        self.written.update(written or {})


def _merge_into(
    target: dict[str, Any],
    layer: dict[str, Any],
    origin: str,
    prefix: str,
    origins: dict[str, str],
    model: type[BaseModel] | None,
) -> None:
    """A section (a group of named parameters, such as `token`) merges key by key; any other
    mapping is data (`dice.colours`: colour -> count) and the one given replaces the one
    before, as a list does: `{white: 8}` is eight white dice, not eight more."""
    for key, value in layer.items():
        path = f"{prefix}{key}"
        section = _section_model(model, key)
        if isinstance(value, dict) and isinstance(target.get(key), dict) and value and section:
            _merge_into(target[key], value, origin, f"{path}.", origins, section)
            continue
        target[key] = value
        for stale in [known for known in origins if known.startswith(f"{path}.")]:
            del origins[stale]
        origins[path] = origin


def _section_model(model: type[BaseModel] | None, key: Any) -> type[BaseModel] | None:
    """The section model a key of `model` holds (a Section, or one inside `X | None`)."""
    info = model.model_fields.get(str(key)) if model is not None else None
    if info is None:
        return None
    for option in get_args(info.annotation) or (info.annotation,):
        if isinstance(option, type) and issubclass(option, BaseModel):
            return option
    return None


def available_tins(kit: Kit | None = None) -> list[str]:
    folder = (kit or default_kit()).presets
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder else []


LINE_BREAKS = "\n\r\x85\u2028\u2029"  # what YAML reads as a new line


def parse_override(text: str) -> dict[str, Any]:
    """`token.width_mm=30` as a nested mapping; the value is read as YAML (30, true, [H, D])."""
    return _override_layer(text)[0]


def _override_layer(text: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The override as a nested mapping, and its numbers as written (by dotted path)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not _KEY_PATH.match(key):
        raise InputError(f"--set {text!r}: expected key.path=value, e.g. --set token.width_mm=30")
    if any(char in raw for char in LINE_BREAKS):
        # "v: 30\nplayers: 4" read as one document would set a key nobody sees
        raise InputError(
            f"--set {key}: the value holds a line break; give it on one line "
            "(a mapping as {a: 1, b: 2}, a list as [a, b])"
        )
    value, written = None, {}
    if raw.strip():
        layer, numbers = parse_yaml_layer(f"v: {raw}", f"--set {key}")
        value = layer.get("v")
        written = {f"{key}{path[1:]}": text for path, text in numbers.items()}
    if value is None:
        raise InputError(f"--set {key}: give a value, e.g. --set {key}=30")
    nested: dict[str, Any] = {}
    cursor = nested
    parts = key.split(".")
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = value
    return nested, written


def tin_preset_file(name: str, kit: Kit) -> Path:
    folder = kit.presets
    if (
        folder is None
        or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name)
        or not (folder / f"{name}.yaml").is_file()
    ):
        known = ", ".join(available_tins(kit)) or "none"
        raise InputError(f"--tin {name!r}: no such tin preset; choose one of: {known}")
    return folder / f"{name}.yaml"


def _kit(kit: Kit | str | None) -> Kit:
    if isinstance(kit, Kit):
        return kit
    return default_kit() if kit is None else load_kit(kit)


def layered_values(
    param_files: list[Path] | tuple[Path, ...] = (),
    overrides: list[str] | tuple[str, ...] = (),
    tin: str | None = None,
    kit: Kit | str | None = None,
    mappings: tuple[tuple[dict[str, Any], str], ...] = (),
) -> Layered:
    """The merged layers; `mappings` are parameter files already read, (values, file name)
    each, merged after the files (the customizer's form, said as the file it downloads)."""
    chosen = _kit(kit)
    if not chosen.defaults.is_file():
        raise InputError(
            f"the {chosen.name} kit's defaults are missing ({chosen.defaults}); reinstall it"
        )
    layered = Layered(chosen)
    layered.merge(installed_yaml(ENGINE_DEFAULTS, "defaults"), "defaults")
    layered.merge(installed_yaml(chosen.defaults, "defaults"), "defaults")
    if tin:
        path = tin_preset_file(tin, chosen)
        layered.merge(installed_yaml(path, "--tin"), f"tin preset {tin}")
    for path in param_files:
        origin = "standard input" if Path(path) == STDIN else Path(path).name
        layer, written = load_yaml_layer(Path(path), "--params")
        layered.merge(layer, origin, written)
    for values, origin in mappings:
        layered.merge(values, origin)
    for text in overrides:
        nested, written = _override_layer(text)
        layered.merge(nested, "--set", written)
    _name_a_makers_tin(layered)
    _follow_defaults(layered)
    return layered


def _follow_defaults(layered: Layered) -> None:
    """Let the kit derive the defaults a maker left alone from what they set (sizes that
    follow the token width); a value the maker gave is never changed."""
    derived = layered.kit.params_model.follow_defaults(
        layered.values, lambda path: not _built_in(layered.origins.get(path, "defaults"))
    )
    for path, value in derived.items():
        *sections, last = path.split(".")
        cursor = layered.values
        for section in sections:
            cursor = cursor[section]
        cursor[last] = value


TIN_SIZES = ("inner_length_mm", "inner_width_mm", "inner_depth_mm", "corner_radius_mm")
TIN_NAME_MAX = 60  # TinParams.name's limit: a name made from a long file name stays inside


def _name_a_makers_tin(layered: Layered) -> None:
    """Sizes a maker gives without a name are their own tin's: with its length, width and
    depth, measured (not the preset's name and 'sizes approximate' left over from the
    defaults); fewer, the preset changed (its other sizes still its estimates)."""
    tin = layered.values.get("tin")
    if not isinstance(tin, dict):
        return
    ours = [layered.origins.get(f"tin.{key}", "defaults") for key in TIN_SIZES]
    given = [origin for origin in ours if not _built_in(origin)]
    if not given:
        return
    # Length, width and depth given: the maker's own tin (the corner radius may stay the
    # default's); fewer: the preset changed, its other sizes still its estimates.
    measured = all(not _built_in(origin) for origin in ours[:3])
    name = f"your tin ({given[0]})" if measured else f"{tin.get('name')}, changed by {given[0]}"
    name = name if len(name) <= TIN_NAME_MAX else name[: TIN_NAME_MAX - 3] + "..."
    for key, value in (
        ("name", name),
        ("approximate", False if measured else tin.get("approximate")),
        ("source", f"sizes from {given[0]}"),
    ):
        if _built_in(layered.origins.get(f"tin.{key}", "defaults")):
            tin[key] = value
            layered.origins[f"tin.{key}"] = given[0]


def _built_in(origin: str) -> bool:
    return origin == "defaults" or origin.startswith("tin preset")


def resolve(
    param_files: list[Path] | tuple[Path, ...] = (),
    overrides: list[str] | tuple[str, ...] = (),
    tin: str | None = None,
    kit: Kit | str | None = None,
    mappings: tuple[tuple[dict[str, Any], str], ...] = (),
) -> Any:
    """The kit's validated parameters (its own model: typed Any so kits read their fields),
    or an InputError with one line naming the key and rule."""
    layered = layered_values(param_files, overrides, tin, kit, mappings)
    return validate(layered)


def validate(layered: Layered) -> KitParamsBase:
    model = layered.kit.params_model
    try:
        return model.model_validate(_text_as_written(layered.values, model, layered.written))
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, layered)) from None


def _text_as_written(value: Any, annotation: Any, written: dict[str, str], path: str = "") -> Any:
    """The values with a number or true/false given for a text field (a tin's name, a
    title) turned into the text the maker typed: `tin.name: 2024` is the name "2024"."""
    options = get_args(annotation) if get_origin(annotation) is Union else (annotation,)
    if str in options and isinstance(value, int | float):
        typed = written.get(path)
        return typed if typed is not None and _reads_as(typed, value) else str(value)
    for option in options:
        if isinstance(option, type) and issubclass(option, BaseModel) and isinstance(value, dict):
            fields = option.model_fields
            return {
                key: _text_as_written(
                    item, fields[key].annotation, written, f"{path}.{key}" if path else str(key)
                )
                if key in fields
                else item
                for key, item in value.items()
            }
        if get_origin(option) is tuple and isinstance(value, list):
            kind = get_args(option)[0]
            return [
                _text_as_written(item, kind, written, f"{path}.{index}")
                for index, item in enumerate(value)
            ]
    return value


def _reads_as(typed: str, value: int | float) -> bool:
    """Whether the text as written is this value (and not an earlier layer's number)."""
    try:
        read = parse_yaml_mapping(f"v: {typed}", "written").get("v")
    except InputError:
        return False
    return type(read) is type(value) and read == value


def describe_validation_error(exc: ValidationError, layered: Layered) -> str:
    errors = exc.errors(include_url=False)
    first = errors[0]
    line = _describe(first, layered)
    if len(errors) > 1:
        line += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return line


def _describe(error: ErrorDetails, layered: Layered) -> str:
    path = ".".join(str(p) for p in error["loc"])
    kind = error["type"]
    ctx = error.get("ctx", {})
    message = str(error.get("msg", ""))
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    origin = _origin_of(path, layered)
    if kind == "extra_forbidden":
        return f"unknown key {path!r}{origin}{_suggestion(error['loc'], layered.kit)}"
    if kind == "missing":
        return f"missing key {path!r}: add it to your parameter file (see {_defaults(layered.kit)})"
    if kind == "invalid_key":
        return _not_a_name(error["loc"], origin, layered.kit)
    shown = f"{path} = {_show(error.get('input'))}{origin}"
    if kind == "tuple_type":
        return f"{shown}: {_list_rule(error['loc'], error.get('input'), layered.kit)}"
    return f"{shown}: {_rule_text(kind, ctx, message)}"


def _not_a_name(loc: tuple, origin: str, kit: Kit) -> str:
    """`100: 3` in a parameter file: the key is a number, not a parameter's name."""
    key, section = loc[-1], ".".join(str(p) for p in loc[:-1])
    where = f" in {section}" if section else ""
    known = _known_keys(loc[:-1], kit.params_model)
    example = f", e.g. {known[0]}" if known else ""
    return (
        f"key {key!r}{where}{origin}: keys are parameter names (text){example}; "
        f"see {_defaults(kit)}"
    )


def _list_rule(loc: tuple, given: Any, kit: Kit) -> str:
    """'must be a list' with an example that fits this key: its allowed items, else its
    default (the first item of a long one)."""
    allowed = _allowed_items(loc, kit.params_model)
    if allowed:
        first = given if given in allowed else allowed[0]
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        return f"must be a list of {names}, e.g. [{first}]"
    default = _default_value(loc, kit)
    if isinstance(default, (list, tuple)) and default:
        example = _flow(list(default))
        if len(example) > 40:
            example = _flow(list(default)[:1])
        return f"must be a list, e.g. {example}"
    return "must be a list, e.g. [a, b]"


def _flow(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1000).strip()


def _allowed_items(loc: tuple, model: Any) -> list[Any]:
    """The Literal values a list field's items may take (box.leave_out), else []."""
    annotation = _annotation_at(loc, model)
    for option in (
        [annotation, *get_args(annotation)] if get_origin(annotation) is Union else [annotation]
    ):
        if get_origin(option) is tuple:
            item = get_args(option)[0]
            if get_origin(item) is Literal:
                return list(get_args(item))
    return []


def _annotation_at(loc: tuple, model: Any) -> Any:
    annotation: Any = None
    for part in loc:
        fields = getattr(model, "model_fields", None)
        info = fields.get(str(part)) if fields else None
        if info is None:
            return None
        annotation = info.annotation
        model = annotation
    return annotation


def _default_value(loc: tuple, kit: Kit) -> Any:
    """The key's value in the engine's or the kit's defaults, or None."""
    found = None
    for path in (ENGINE_DEFAULTS, kit.defaults):
        try:
            value: Any = load_yaml_file(path, "defaults")
        except InputError:
            continue
        for part in loc:
            value = value.get(str(part)) if isinstance(value, dict) else None
        if value is not None:
            found = value
    return found


def _rule_text(kind: str, ctx: dict[str, Any], message: str) -> str:
    rules = {
        "greater_than": lambda: f"must be greater than {_num(ctx.get('gt'))}",
        "greater_than_equal": lambda: f"must be at least {_num(ctx.get('ge'))}",
        "less_than": lambda: f"must be less than {_num(ctx.get('lt'))}",
        "less_than_equal": lambda: f"must be at most {_num(ctx.get('le'))}",
        "float_type": lambda: "must be a number, e.g. 26 or 4.5",
        "float_parsing": lambda: "must be a number, e.g. 26 or 4.5",
        "finite_number": lambda: "must be a finite number",
        "int_type": lambda: "must be a whole number, e.g. 2",
        "int_from_float": lambda: "must be a whole number, e.g. 2",
        "bool_type": lambda: "must be true or false",
        "string_type": lambda: "must be text",
        "string_too_long": lambda: f"must be at most {ctx.get('max_length')} characters",
        "dict_type": lambda: "must be a mapping of keys (key: value)",
        "model_type": lambda: "must be a mapping of keys (key: value)",
        "model_attributes_type": lambda: "must be a mapping of keys (key: value)",
        "too_short": lambda: f"must have at least {ctx.get('min_length')} entries",
        "too_long": lambda: f"must have at most {ctx.get('max_length')} entries",
        "literal_error": lambda: f"must be one of {ctx.get('expected')}",
    }
    maker = rules.get(kind)
    return maker() if maker else message[:1].lower() + message[1:]


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _origin_of(path: str, layered: Layered) -> str:
    origin = layered.origins.get(path)
    if origin is None:
        parent = path.rsplit(".", 1)[0]
        origin = layered.origins.get(parent)
    return f" (from {origin})" if origin and origin != "defaults" else ""


def _defaults(kit: Kit) -> str:
    return f"the {kit.name} kit's defaults: squadron-cad params --kit {kit.name}"


def _suggestion(loc: tuple, kit: Kit) -> str:
    known = _known_keys(loc[:-1], kit.params_model)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    prefix = ".".join(str(p) for p in loc[:-1])
    if close:
        full = f"{prefix}.{close[0]}" if prefix else close[0]
        return f": did you mean {full!r}?"
    return f": see {_defaults(kit)}"


def _known_keys(section_path: tuple, model: Any) -> list[str]:
    for part in section_path:
        info = model.model_fields.get(str(part)) if hasattr(model, "model_fields") else None
        if info is None or not hasattr(info.annotation, "model_fields"):
            return []
        model = info.annotation
    return list(model.model_fields) if hasattr(model, "model_fields") else []


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(data: Any) -> str:
    return {list: "a list", str: "text", int: "a number", float: "a number"}.get(
        type(data), type(data).__name__
    )

"""What the page asks, answered by the library the CLI calls: no build logic of its own.

The page's state is a kit, a tin preset and the values the maker changed, each as text
by its dotted key (as the address carries them). Those values become the page's
params.yaml, resolved as `squadron-cad --params params.yaml` would resolve that file, so
a refusal reads word for word as the CLI's, and the downloaded file builds the same kit.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, default_kit, installed_kits, kit_of, load_kit
from squadron_cad.paramfile import saved_command
from squadron_cad.resolve import available_tins, parse_yaml_mapping, resolve
from squadron_cad.web import BadRequest
from squadron_cad.web.form import Field, form_fields, sections
from squadron_cad.web.layout_svg import layout_svg

PARAMS_NAME = "params.yaml"  # the file name the page's values are said as, and downloaded as
MAX_CHANGES = 400
MAX_VALUE_CHARS = 2000
_KEY = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")
_DOTTED = re.compile(r"\b[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+\b")


@dataclass(frozen=True)
class PageState:
    kit: Kit
    tin: str | None
    changes: dict[str, str]  # dotted key -> the value as text

    @classmethod
    def from_json(cls, body: Any) -> PageState:
        if not isinstance(body, dict):
            raise BadRequest("expected a JSON object")
        name, tin, changes = body.get("kit"), body.get("tin") or None, body.get("changes", {})
        if not isinstance(name, str) or (tin is not None and not isinstance(tin, str)):
            raise BadRequest("kit and tin are text")
        if not isinstance(changes, dict) or len(changes) > MAX_CHANGES:
            raise BadRequest("changes: a mapping of dotted keys to text")
        for key, value in changes.items():
            if not _KEY.match(key) or not isinstance(value, str) or len(value) > MAX_VALUE_CHARS:
                raise BadRequest(f"changes: {key!r} is not a dotted key with a text value")
        try:
            kit = load_kit(name)
        except InputError as error:
            raise BadRequest(str(error)) from None
        if tin is not None and tin not in available_tins(kit):
            raise BadRequest(f"no tin preset {tin!r} in the {kit.name} kit")
        return cls(kit, tin, dict(changes))


@cache
def kit_fields(name: str) -> dict[str, Field]:
    kit = load_kit(name)
    return {f.key: f for f in form_fields(kit)}


def _typed(item: Field | None, key: str, text: str) -> Any:
    """A value typed by its field, as the page shows it; what does not parse stays text,
    for the resolver to refuse in its own words ("must be a number, e.g. 26 or 4.5")."""
    kind = item.kind if item else "yaml"
    if kind in ("number", "integer"):  # read as YAML reads it: 26 an int, 26.5 a float
        for number in (int, float):
            try:
                return number(text)
            except ValueError:
                continue
        return text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, text)
    if kind in ("choices", "rows"):
        try:
            return json.loads(text)
        except ValueError:
            return text
    if kind == "choice" and item is not None and item.optional and text == "":
        return None
    if kind == "yaml":
        return parse_yaml_mapping(f"v: {text}", key).get("v")
    return text


def nested_changes(state: PageState) -> dict[str, Any]:
    """The changed values as the nested mapping a parameter file holds."""
    fields = kit_fields(state.kit.name)
    nested: dict[str, Any] = {}
    for key, text in state.changes.items():
        cursor = nested
        *parents, last = key.split(".")
        for part in parents:
            cursor = cursor.setdefault(part, {})
            if not isinstance(cursor, dict):
                raise BadRequest(f"changes: {key} lies inside another changed value")
        cursor[last] = _typed(fields.get(key), key, text)
    return nested


def command_line(state: PageState) -> str:
    return saved_command(state.kit.name, state.tin, PARAMS_NAME)


def params_yaml(state: PageState) -> str:
    """The page's values as a parameter file, with the command that builds them."""
    head = (
        f"# {command_line(state)}\n"
        "# The values changed on the customizer page (squadron-cad serve); the rest are the\n"
        "# kit's defaults and the tin preset's.\n"
    )
    values = nested_changes(state)
    body = yaml.safe_dump(values, sort_keys=False, allow_unicode=True) if values else ""
    return head + body


def resolved(state: PageState) -> Any:
    return resolve(tin=state.tin, kit=state.kit, mappings=((nested_changes(state), PARAMS_NAME),))


def named_keys(message: str, keys: list[str]) -> list[str]:
    """The form's fields a one-line refusal names (a list's item names its list)."""
    found = []
    for word in _DOTTED.findall(message):
        plain = ".".join(p for p in word.split(".") if not p.isdigit())
        for key in keys:
            if key in (word, plain) or word.startswith(f"{key}.") or plain.startswith(f"{key}."):
                found.append(key)
                break
    return list(dict.fromkeys(found))


def refusal(state: PageState, error: InputError, stage: str) -> dict[str, Any]:
    keys = list(kit_fields(state.kit.name))
    named = named_keys(str(error), keys) or [k for k in state.changes if k in keys][-1:]
    return {"ok": False, "stage": stage, "error": str(error), "keys": named}


def flat_values(params: Any, fields: dict[str, Field]) -> dict[str, str]:
    """Every field's resolved value as the page shows it (text, as the address carries)."""
    data = params.model_dump(mode="json")
    shown = {}
    for key, item in fields.items():
        value: Any = data
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        shown[key] = field_text(item, value)
    return shown


def field_text(item: Field, value: Any) -> str:
    """A value as its field shows it (and the address carries it); none is empty."""
    if value is None or value == "":
        return ""
    if item.kind in ("choices", "rows"):
        return json.dumps(value)
    if item.kind == "yaml":
        return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1000).strip()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def first_kit(named: str | None) -> str | None:
    """The kit the page opens on: serve's --kit, else the default kit (as `build`'s)."""
    if named:
        return named
    try:
        return default_kit().name
    except InputError:  # no default installed: the page takes the first listed
        return None


def kits_list() -> list[dict[str, Any]]:
    """The installed kits and their tin presets (the page checks its address against them)."""
    return [
        {
            "name": k.name,
            "title": k.title,
            "notes": k.notes,
            "credit": k.credit,
            "tins": available_tins(k),
        }
        for k in installed_kits().values()
    ]


def form(name: str | None) -> dict[str, Any]:
    """The form of a kit: its fields and sections, its tins and what it can make."""
    kit = load_kit(name) if name else default_kit()
    return {**_model_form(kit.name), "tins": available_tins(kit)}


@cache
def _model_form(name: str) -> dict[str, Any]:
    """What the kit's parameter model says (its JSON schema, read once per kit)."""
    kit = load_kit(name)
    fields = kit_fields(kit.name)
    return {
        "kit": kit.name,
        "title": kit.title,
        "credit": kit.credit,
        "fields": [f.as_dict() for f in fields.values()],
        "sections": sections(list(fields.values()), kit),
        "default_tin": None,
        "makes": {"paper": kit.paper is not None, "tolerance": has_coupons(kit)},
    }


def has_coupons(kit: Kit) -> bool:
    given = kit.loaded.coupons
    return not isinstance(given, tuple) or bool(given)


def fit(state: PageState) -> dict[str, Any]:
    """The layout for the page's values, drawn, with the CLI's `fit` lines; or the refusal."""
    started = time.perf_counter()
    try:
        params = resolved(state)
    except InputError as error:
        return refusal(state, error, "parameters")
    answer: dict[str, Any] = {
        "values": flat_values(params, kit_fields(state.kit.name)),
        "params_yaml": params_yaml(state),
        "command": command_line(state),
    }
    game = kit_of(params)
    try:
        design = game.design(params)
        layout = design.layout
        lines = (
            (game.fit_lines(design) if game.fit_lines else [layout.describe()]) if layout else []
        )
    except InputError as error:
        return {**refusal(state, error, "fit"), **answer}
    answer.update(ok=True, lines=lines)
    if layout is not None:
        answer["svg"] = layout_svg(layout, params, game)
        answer["margins"] = dict(layout.margins)
        answer["limited_by"] = layout.limited_by
    answer["seconds"] = round(time.perf_counter() - started, 4)
    return answer

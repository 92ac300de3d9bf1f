"""A parameter file opened on the page: its values as the form's texts, by dotted key, those
that differ from the kit's and tin's own, and what the form has no field for, named. The
first line the page writes in a params.yaml (`# squadron-cad build --kit NAME --tin NAME
...`) names the kit and the tin preset the values go with; a file without it opens on the
page's own kit and tin."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, load_kit
from squadron_cad.paramfile import saved_for
from squadron_cad.resolve import available_tins, parse_yaml_mapping, resolve
from squadron_cad.web import BadRequest
from squadron_cad.web.api import (
    MAX_VALUE_CHARS,
    PageState,
    field_text,
    flat_values,
    kit_fields,
)
from squadron_cad.web.form import Field

MAX_NAME_CHARS = 200


@dataclass
class Opened:
    kit: Kit
    tin: str
    values: dict[str, str] = field(default_factory=dict)  # every value read, as text
    left_out: list[str] = field(default_factory=list)


def open_params(body: Any) -> dict[str, Any]:
    """The page's answer to a file opened: its kit, tin and values, or the file's refusal
    in the CLI's words (`my.yaml: malformed YAML at line 3, column 1: ...`)."""
    page, name, text = _request(body)
    opened = Opened(page.kit, page.tin or "")
    _kit_and_tin(opened, text)
    try:
        data = parse_yaml_mapping(text, name)
    except InputError as error:
        return {"ok": False, "error": str(error)}
    fields = kit_fields(opened.kit.name)
    _collect(data, "", fields, opened)
    # a value the kit and tin give already is no change (`squadron-cad params` writes them
    # all): the form marks, and the address carries, only the others
    try:
        given = flat_values(resolve(tin=opened.tin or None, kit=opened.kit.name), fields)
    except InputError:  # a kit whose own defaults are refused: every value is a change
        given = {}
    return {
        "ok": True,
        "kit": opened.kit.name,
        "tin": opened.tin,
        "values": opened.values,
        "changes": {k: v for k, v in opened.values.items() if given.get(k) != v},
        "left_out": opened.left_out,
    }


def _request(body: Any) -> tuple[PageState, str, str]:
    """The page's kit and tin (checked as every request's are), the file's name and text."""
    if not isinstance(body, dict):
        raise BadRequest("expected a JSON object")
    page = PageState.from_json({"kit": body.get("kit"), "tin": body.get("tin")})
    name, text = body.get("name"), body.get("text")
    if not isinstance(name, str) or not isinstance(text, str):
        raise BadRequest("name and text are text")
    if len(name) > MAX_NAME_CHARS:
        raise BadRequest(f"name: at most {MAX_NAME_CHARS} characters")
    return page, name, text


def _kit_and_tin(opened: Opened, text: str) -> None:
    """The kit and tin the file's first line names, when it is the page's command line."""
    named = saved_for(text)
    if named is None:
        return
    kit, tin = named
    try:
        opened.kit = load_kit(kit)
    except InputError:
        opened.left_out.append(f"--kit {kit} (no such kit here)")
        return
    opened.tin = tin or ""
    presets_here = available_tins(opened.kit)
    if opened.tin and opened.tin not in presets_here:
        presets = ", ".join(presets_here) or "none"
        opened.left_out.append(
            f"--tin {opened.tin} (no such tin preset for {opened.kit.title}; its presets: "
            f"{presets})"
        )
        opened.tin = ""


def _collect(data: dict[Any, Any], prefix: str, fields: dict[str, Field], opened: Opened) -> None:
    """Each value under a field's key as that field's text; a key with no field, named."""
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if dotted in fields:
            text = field_text(fields[dotted], value)
            if len(text) > MAX_VALUE_CHARS:
                opened.left_out.append(f"{dotted} (over {MAX_VALUE_CHARS} characters)")
            else:
                opened.values[dotted] = text
        elif isinstance(value, dict) and any(k.startswith(f"{dotted}.") for k in fields):
            _collect(value, f"{dotted}.", fields, opened)
        else:
            opened.left_out.append(f"{dotted} (no parameter of {opened.kit.title})")

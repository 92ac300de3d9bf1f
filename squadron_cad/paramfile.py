"""Reading parameter YAML (files, standard input, --set values) into plain mappings.

Values are read by YAML 1.2's core schema, not PyYAML's YAML 1.1 one: `1:30` is text (1.1
read it as 90, in base 60), `012` is twelve, `yes`/`on` are text, `1e9` is a number. What
a parameter file never needs is refused in one line naming where: aliases and anchors (a
billion-laughs file expands them into gigabytes), duplicate keys (the last would win
unseen), a whole number too long to be any size. Numbers are also kept as written, so a
text field given `2024` reads "2024" (`written_numbers`).
"""

from __future__ import annotations

import copy
import functools
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, ClassVar

import yaml

from squadron_cad.errors import InputError

MAX_YAML_BYTES = 1024 * 1024  # a parameter file is a page of text; more is a mistake
MAX_DIGITS = 100  # a whole number longer than this is no size (Python refuses 4,301)
STDIN = Path("-")  # --params - reads standard input
_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
NUMBER_TAGS = (_INT_TAG, _FLOAT_TAG, _BOOL_TAG)  # scalars a text field takes as written

# YAML 1.2.2, 10.3.2 (the core schema's tag resolution)
_CORE_RESOLVERS = (
    (_NULL_TAG, r"^(?:~|null|Null|NULL|)$", [*"~nN", ""]),
    (_BOOL_TAG, r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    (_INT_TAG, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        _FLOAT_TAG,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
    (_MERGE_TAG, r"^<<$", ["<"]),  # `<<: {a: 1}`, as PyYAML reads it (aliases are refused)
)


class DuplicateKey(yaml.YAMLError):
    def __init__(self, key: object, mark: yaml.Mark, first: yaml.Mark) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key, self.mark, self.first = key, mark, first


class NumberTooLong(yaml.YAMLError):
    def __init__(self, digits: int, mark: yaml.Mark) -> None:
        super().__init__(f"a whole number of {digits} digits")
        self.digits, self.mark = digits, mark


class _Loader(yaml.SafeLoader):
    """Safe YAML by the core schema that refuses aliases, anchors and duplicate keys."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}  # our own: none of YAML 1.1's

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                problem=f"aliases (*{event.anchor}) are not allowed in parameter files",
                problem_mark=event.start_mark,
            )
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.MarkedYAMLError(
                problem=f"anchors (&{event.anchor}) are not allowed in parameter files",
                problem_mark=event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _value in node.value:
            if key_node.tag == _MERGE_TAG:  # `<<:` merges; explicit keys may override those
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.setdefault(key, key_node.start_mark)
            except TypeError:  # an unhashable key: SafeConstructor refuses it with its line
                continue
            if first is not key_node.start_mark:
                raise DuplicateKey(key, key_node.start_mark, first)
        return super().construct_mapping(node, deep=deep)

    def construct_core_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        digits = text.lstrip("+-")
        if len(digits) > MAX_DIGITS:
            raise NumberTooLong(len(digits), node.start_mark)
        if digits.startswith("0o"):
            return int(digits[2:], 8)
        if digits.startswith("0x"):
            return int(digits[2:], 16)
        return int(text, 10)  # 012 is twelve, as in YAML 1.2 (1.1 read it as octal)


for _tag, _pattern, _first in _CORE_RESOLVERS:
    _Loader.add_implicit_resolver(_tag, re.compile(_pattern), _first)
_Loader.add_constructor(_INT_TAG, _Loader.construct_core_int)


# The first line of a parameter file the customizer page saves: the command that builds
# it, naming the kit and the tin preset its values go with.
_SAVED_FOR = re.compile(r"#\s*squadron-cad build --kit (\S+)(?: --tin (\S+))? --params ")


def saved_command(kit: str, tin: str | None, file_name: str) -> str:
    """The command a saved parameter file's first line gives (after `# `)."""
    with_tin = f" --tin {tin}" if tin else ""
    return f"squadron-cad build --kit {kit}{with_tin} --params {file_name}"


def saved_for(text: str) -> tuple[str, str | None] | None:
    """The kit and tin preset (or None) a file's first line says its values go with, when
    that line is the command the page writes; else None."""
    found = _SAVED_FOR.match(text.lstrip().split("\n", 1)[0])
    return (found[1], found[2]) if found else None


def saved_for_file(path: Path) -> tuple[str, str | None] | None:
    """saved_for of a regular file's first line; None for standard input or a file that
    cannot be read (reading it as parameters says why)."""
    if Path(path) == STDIN:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never block on a FIFO
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            head = stream.read(1024).decode("utf-8", errors="replace")
    except OSError:
        return None
    return saved_for(head)


def load_yaml_file(path: Path, label: str) -> dict[str, Any]:
    """A parameter file (or standard input for `-`) as a mapping, or a one-line InputError."""
    return load_yaml_layer(path, label)[0]


def installed_yaml(path: Path, label: str) -> dict[str, Any]:
    """A defaults or preset file of an installed kit, parsed once while it is unchanged
    (pure-Python YAML takes 35 ms a file: the customizer resolves on every edit); a copy,
    as merging changes what it is given."""
    try:
        info = os.stat(path)
    except OSError:
        return load_yaml_file(path, label)  # says why, in its words
    return copy.deepcopy(_parsed_once(str(path), label, info.st_mtime_ns, info.st_size))


@functools.lru_cache(maxsize=64)
def _parsed_once(path: str, label: str, _mtime_ns: int, _size: int) -> dict[str, Any]:
    return load_yaml_file(Path(path), label)


def load_yaml_layer(path: Path, label: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A parameter file as a mapping, and its numbers as written (`written_numbers`).

    Only a regular file under MAX_YAML_BYTES is read: a FIFO would hang the build, a device
    such as /dev/zero would never end, a huge file is a mistake."""
    if Path(path) == STDIN:
        if sys.stdin is None:  # started with standard input closed
            raise InputError(f"{label} -: standard input is closed")
        text = _read_limited(sys.stdin.buffer, label, "standard input")
        return parse_yaml_layer(text, f"{label} standard input")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{label}: file not found: {path}") from None
    except OSError as exc:
        raise InputError(f"{label}: cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{label}: {path} is not a regular file (a parameter file is YAML text)")
    if info.st_size > MAX_YAML_BYTES:
        raise InputError(
            f"{label}: {path} is {info.st_size} bytes; a parameter file is at most 1 MB"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never block, even if it became a FIFO
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for a FIFO since the stat
                raise InputError(f"{label}: {path} is not a regular file")
            text = _read_limited(stream, label, str(path))
    except OSError as exc:
        raise InputError(f"{label}: cannot read {path}: {exc.strerror}") from None
    return parse_yaml_layer(text, f"{label} {path}")


def _read_limited(stream: Any, label: str, name: str) -> str:
    data = stream.read(MAX_YAML_BYTES + 1)
    if len(data) > MAX_YAML_BYTES:
        raise InputError(f"{label}: {name} is over 1 MB; a parameter file is at most 1 MB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{label}: {name} is not UTF-8 text") from None


def parse_yaml_mapping(text: str, where: str) -> dict[str, Any]:
    return parse_yaml_layer(text, where)[0]


def parse_yaml_layer(text: str, where: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The text as a mapping and its numbers as written, or a one-line InputError."""
    try:
        data, written = _load(text)
    except DuplicateKey as exc:
        raise InputError(
            f"{where}: duplicate key {exc.key!r} at line {exc.mark.line + 1} "
            f"(first at line {exc.first.line + 1})"
        ) from None
    except NumberTooLong as exc:
        at = f" at line {exc.mark.line + 1}" if "\n" in text.strip() else ""
        raise InputError(
            f"{where}: a whole number of {exc.digits} digits{at} is no parameter value "
            f"(at most {MAX_DIGITS} digits)"
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{where}: malformed YAML{at}: {_one_line(exc.problem)}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{where}: malformed YAML: {_one_line(exc)}") from None
    except RecursionError:
        raise InputError(f"{where}: YAML nested too deeply") from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a mapping of keys (key: value), got {_kind(data)}")
    return data, written


def _load(text: str) -> tuple[Any, dict[str, str]]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        data = loader.construct_document(node)
        return data, written_numbers(node, data)
    finally:
        loader.dispose()


def written_numbers(node: yaml.Node, data: Any, prefix: str = "") -> dict[str, str]:
    """Each plain number or true/false under node, as written, by dotted path ("tin.name":
    "2024"; list items by index), so a text field can take it as the maker typed it."""
    found: dict[str, str] = {}
    if isinstance(node, yaml.MappingNode) and isinstance(data, dict):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = _scalar_key(key_node, data)
            if key is not None:
                found |= written_numbers(value_node, data[key], f"{prefix}{key}.")
    elif isinstance(node, yaml.SequenceNode) and isinstance(data, list):
        for index, (item_node, item) in enumerate(zip(node.value, data, strict=False)):
            found |= written_numbers(item_node, item, f"{prefix}{index}.")
    elif isinstance(node, yaml.ScalarNode) and node.tag in NUMBER_TAGS and node.style is None:
        found[prefix.rstrip(".")] = node.value
    return found


def _scalar_key(key_node: yaml.ScalarNode, data: dict[Any, Any]) -> Any:
    for key in (key_node.value, _number_or_none(key_node.value)):
        if key is not None and key in data:
            return key
    return None


def _number_or_none(text: str) -> int | float | None:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return None


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _kind(data: Any) -> str:
    return {list: "a list", str: "text", int: "a number", float: "a number"}.get(
        type(data), type(data).__name__
    )

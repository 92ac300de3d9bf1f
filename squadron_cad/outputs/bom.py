"""The bill of materials: what to print, how long it takes, how much filament, what to buy.

Read from the manifest only, so the counts are the manifest's counts. Slicer figures
(print time, filament) appear when the build sliced the parts; otherwise each row says
how to get them.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from squadron_cad.constants import ENGINE_CREDIT
from squadron_cad.render.atomic import write_text

NOT_SLICED = "not sliced (install prusa-slicer)"
FILES = ("bom.md", "bom.csv")  # in the kit's folder, rewritten by every build
CSV_FIELDS = (
    "kind",
    "item",
    "title",
    "file",
    "count",
    "print_seconds_each",
    "print_seconds_total",
    "filament_g_each",
    "filament_g_total",
    "filament_mm_each",
    "filament_mm_total",
    "detail",
)


@dataclass(frozen=True)
class Figures:
    """What the slicer says one copy of a part takes."""

    print_seconds: float
    filament_g: float | None
    filament_mm: float | None


@dataclass(frozen=True)
class Line:
    name: str
    title: str
    file: str
    count: int
    figures: Figures | None
    alternative_to: str | None
    replaces: tuple[str, ...] = ()
    per_player: tuple[str, ...] = ()  # each player's own file (their mark), when it has one

    def total(self, value: float | None) -> float | None:
        return None if value is None else value * self.count

    @property
    def files(self) -> tuple[str, ...]:
        """What to print from: each player's file where the part carries a player's mark
        (the plain file is player 1's), else the one file."""
        return self.per_player or (self.file,)

    def files_cell(self) -> str:
        return ", ".join(f"`{name}`" for name in self.files)


@dataclass(frozen=True)
class Purchase:
    item: str
    count: int | None
    detail: str


# ---- reading the manifest ------------------------------------------------------------


def slicer_figures(manifest: dict[str, Any]) -> dict[str, Figures]:
    """Per part figures from manifest["slicer"] (by part name, or a list) or each part entry."""
    found: dict[str, Figures] = {}
    slicer = manifest.get("slicer")
    table = slicer.get("parts", slicer) if isinstance(slicer, dict) else slicer
    if isinstance(table, list):
        table = {_entry_name(entry): entry for entry in table if isinstance(entry, dict)}
    if isinstance(table, dict):
        for name, entry in table.items():
            figures = _figures(entry)
            if figures is not None:
                found[str(name)] = figures
    for part in manifest.get("parts", []):
        figures = _figures(part.get("slicer"))
        if figures is not None:
            found.setdefault(part["name"], figures)
    return found


def _entry_name(entry: dict[str, Any]) -> str:
    return str(entry.get("name") or entry.get("part") or "")


def _figures(entry: Any) -> Figures | None:
    if not isinstance(entry, dict):
        return None
    seconds = _number(entry.get("print_seconds"))
    if seconds is None:
        return None
    return Figures(seconds, _number(entry.get("filament_g")), _number(entry.get("filament_mm")))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def slicer_note(manifest: dict[str, Any]) -> str:
    """One line on where the figures come from (or why there are none)."""
    slicer = manifest.get("slicer")
    details = slicer if isinstance(slicer, dict) else {}
    if not slicer_figures(manifest):
        reason = details.get("skipped")
        if not reason and details.get("slicer"):  # it ran, and refused every part
            return f"Print time and filament: none, {details['slicer']} sliced no part."
        if reason:
            return f"Print time and filament: not sliced: {reason}."
        return f"Print time and filament: {NOT_SLICED}."
    words = [str(details["slicer"])] if details.get("slicer") else []
    words += _settings(manifest.get("params", {}).get("slicer"))
    note = "Print time and filament from the slicer" + (f": {', '.join(words)}." if words else ".")
    return note + _player_set(details.get("per_player"))


def _player_set(player: Any) -> str:
    """One player's set (what each player prints), the figure a colour-sample pack limits."""
    if not isinstance(player, dict) or player.get("missing") or "filament_mm" not in player:
        return ""
    if not player.get("parts"):
        return ""  # a kit with no per-player parts: nothing to say
    return (
        f" One player's set takes {player['filament_mm']:.0f} mm ({player['filament_g']:.1f} g)"
        f" of filament, {duration(player['print_seconds'])} of printing."
    )


def _settings(slicer: Any) -> list[str]:
    """The slicer parameters the figures depend on, as a maker would say them."""
    if not isinstance(slicer, dict):
        return []
    said = {
        "layer_height_mm": "{:g} mm layers",
        "infill_percent": "{}% infill",
        "perimeters": "{} perimeters",
        "filament_density_g_cm3": "filament {:g} g/cm3",
    }
    return [form.format(slicer[key]) for key, form in said.items() if key in slicer]


def bom_lines(manifest: dict[str, Any]) -> list[Line]:
    figures = slicer_figures(manifest)
    return [
        Line(
            name=part["name"],
            title=str(part.get("title", "")),
            file=str(part.get("file", f"stl/{part['name']}.stl")),
            count=int(part["count"]),
            figures=figures.get(part["name"]),
            alternative_to=part.get("alternative_to"),
            replaces=tuple(part.get("replaces") or [part.get("alternative_to")]),
            per_player=tuple(part.get("variants") or ()),
        )
        for part in manifest.get("parts", [])
    ]


def purchases(manifest: dict[str, Any]) -> list[Purchase]:
    """What the kit says to buy rather than print, as its manifest records it."""
    return [
        Purchase(str(item["item"]), item.get("count"), str(item["detail"]))
        for item in manifest.get("purchases", [])
    ]


# ---- formatting ----------------------------------------------------------------------


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes = round(seconds / 60)
    if seconds < 60:
        return f"{round(seconds)} s"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def grams(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} g"


def metres(value_mm: float | None) -> str:
    return "-" if value_mm is None else f"{value_mm / 1000:.2f} m"


def _credit(manifest: dict[str, Any]) -> list[str]:
    """The game's credit and the project's licence, as every file of the kit carries."""
    credit = (manifest.get("kit") or {}).get("credit")
    return [f"{credit}; {ENGINE_CREDIT}.", ""] if credit else []


def markdown(manifest: dict[str, Any]) -> str:
    lines = bom_lines(manifest)
    printed = [line for line in lines if line.count > 0]
    skipped = [line for line in lines if line.count == 0]
    sliced = any(line.figures for line in printed)
    text = [
        "# Bill of materials",
        "",
        f"For {manifest.get('players', '?')} players, from "
        f"`{manifest.get('generator', 'squadron_cad')}`. {slicer_note(manifest)}",
        "",
        *_credit(manifest),
        "## Print",
        "",
        *_print_table(printed, sliced),
        "",
        *_per_player_note(printed),
        _summary(printed),
    ]
    alternatives = [line for line in skipped if line.alternative_to]
    unused = [line for line in skipped if not line.alternative_to]
    if alternatives:
        text += ["", "Not printed by default (alternatives):", ""]
        text += _alternatives_table(alternatives, printed)
    if unused:
        text += ["", "Not needed with these parameters (none to print):", ""]
        text += [f"- `{line.file}`" for line in unused]
    text += colour_tables(manifest)
    text += ["", "## Buy", "", "| item | count | detail |", "|---|---:|---|"]
    text += [
        f"| {table_cell(p.item)} | {p.count or ''} | {table_cell(p.detail)} |"
        for p in purchases(manifest)
    ]
    return "\n".join(text) + "\n"


_MARKUP = re.compile(r"([\\`*_\[\]|])")


def table_cell(text: str) -> str:
    """Text a maker gave (a dice colour named `a|b` or `<b>x</b>`) as one table cell, read as
    typed: never a column break, markup or HTML."""
    text = " ".join(text.split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKUP.sub(r"\\\1", text)


def colour_tables(manifest: dict[str, Any]) -> list[str]:
    """ "What to print in which colour", per plate: each part's body and marks colours and
    the plate's one filament change (plates are grouped by it, so it holds for every part
    on the plate)."""
    plates = manifest.get("plates") or []
    if not plates:
        return []
    text = [
        "",
        "## Colours per plate",
        "",
        "The parts whose marks begin at the same height share a plate, so one filament "
        "change colours every part on it: below the change each part prints in its body's "
        "colour, from the listed layer up in the marks' colour. The 3MF carries the change "
        "(PrusaSlicer 2.4 or later reads it: the printer stops for the filament, M600, at "
        "that layer); in another slicer, add a colour change or a pause before that layer. "
        "With two extruders, print the marks' volume (extruder 2) instead and drop the change.",
    ]
    for plate in plates:
        text += ["", f"### `{plate['file']}`: {plate['pieces']} pieces, {_change_words(plate)}"]
        text += ["", "| part | count | body | marks | marks from | change at |"]
        text.append("|---|---:|---|---|---:|---:|")
        for row in plate["parts"]:
            marks = (
                f"{row['marks_material']} `{row['marks_hex']}`" if row["marks_material"] else "-"
            )
            text.append(
                f"| {row['part']} | {row['count']} | {row['material']} `{row['colour_hex']}` "
                f"| {marks} | {_mm(row['marks_from_mm'])} | {_mm(row['change_at_mm'])} |"
            )
        recessed = [row["part"] for row in plate["parts"] if not row.get("one_change", True)]
        if recessed:
            text += [
                "",
                f"{', '.join(recessed)}: the marks stand in a recess of the top, in the same "
                "layers as the top around them; only a second extruder colours them apart "
                "(one extruder prints them in the body's colour).",
            ]
    return text


def _change_words(plate: dict[str, Any]) -> str:
    change = plate.get("filament_change_mm")
    if change is None:
        return "one colour, no filament change"
    layer = f"layer {plate['change_layer']}, " if plate.get("change_layer") else ""
    loaded = f": load {plate['marks_material']} `{plate['marks_hex']}`"
    return f"filament change before {layer}the layer ending at **{change:g} mm**{loaded}"


def _mm(value: float | None) -> str:
    return "-" if value is None else f"{value:g} mm"


def _per_player_note(printed: list[Line]) -> list[str]:
    marked = [line for line in printed if line.per_player]
    if not marked:
        return []
    return [
        "A part with a file per player (`.p1`, `.p2`, ...) carries that player's mark: print "
        "each player's share of the count from their own file (the plates do).",
        "",
    ]


def _print_table(printed: list[Line], sliced: bool) -> list[str]:
    if not sliced:  # no figures at all: the note above says why, the columns would be empty
        rows = [f"| {line.name} | {line.files_cell()} | {line.count} |" for line in printed]
        return ["| part | file | count |", "|---|---|---:|", *rows]
    header = "| part | file | count | time each | time total | filament each | filament total |"
    return [header, "|---|---|---:|---:|---:|---:|---:|", *map(_markdown_row, printed)]


def _markdown_row(line: Line) -> str:
    f = line.figures
    if f is None:
        cells = [NOT_SLICED, "-", "-", "-"]
    else:
        cells = [
            duration(f.print_seconds),
            duration(line.total(f.print_seconds)),
            grams(f.filament_g),
            grams(line.total(f.filament_g)),
        ]
    return f"| {line.name} | {line.files_cell()} | {line.count} | " + " | ".join(cells) + " |"


def _summary(printed: list[Line]) -> str:
    pieces = sum(line.count for line in printed)
    missing = [line.name for line in printed if line.figures is None]
    if len(missing) == len(printed):
        return f"In all: **{pieces} pieces**; print time and filament: {NOT_SLICED}."
    seconds = _total(printed, "print_seconds")
    filament_g = _total(printed, "filament_g")
    filament = f"{grams(filament_g)} ({metres(_total(printed, 'filament_mm'))})"
    text = f"In all: **{pieces} pieces**, **{duration(seconds)}** of printing, **{filament}**"
    if missing:  # a partial sum must not pass for the whole
        return f"{text} of filament, plus the parts not sliced: {', '.join(missing)}."
    return f"{text} of filament."


def _total(lines: list[Line], name: str) -> float | None:
    values = [line.total(_field(line, name)) for line in lines if line.figures is not None]
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _field(line: Line, name: str) -> float | None:
    return None if line.figures is None else getattr(line.figures, name)


def csv_text(manifest: dict[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for line in bom_lines(manifest):
        writer.writerow(_csv_row(line))
    for purchase in purchases(manifest):
        writer.writerow(
            {
                "kind": "buy",
                "item": purchase.item,
                "count": purchase.count or "",
                "detail": purchase.detail,
            }
        )
    return buffer.getvalue()


def _csv_row(line: Line) -> dict[str, Any]:
    f = line.figures
    row: dict[str, Any] = {
        "kind": "print" if line.count else "optional",
        "item": line.name,
        "title": line.title,
        "file": " ".join(line.files),
        "count": line.count,
        "detail": "" if f else NOT_SLICED,
    }
    if f is not None:
        for key, value in (
            ("print_seconds", f.print_seconds),
            ("filament_g", f.filament_g),
            ("filament_mm", f.filament_mm),
        ):
            row[f"{key}_each"] = _plain(value)
            row[f"{key}_total"] = _plain(line.total(value))
    return row


def _plain(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}".rstrip("0").rstrip(".")


def write_bom(out_dir: Path, manifest: dict[str, Any]) -> tuple[Path, Path]:
    """out/bom.md and out/bom.csv from the manifest's parts, counts and slicer figures."""
    md_path, csv_path = (out_dir / name for name in FILES)
    write_text(md_path, markdown(manifest))
    write_text(csv_path, csv_text(manifest))
    return md_path, csv_path


def _alternatives_table(alternatives: list[Line], printed: list[Line]) -> list[str]:
    """One row per choice: the parts printed together instead of others, with both sides'
    time and filament (each alternative as many times as the parts it replaces)."""
    choices: dict[tuple[str, ...], list[Line]] = {}
    for line in alternatives:
        choices.setdefault(tuple(n for n in line.replaces if n), []).append(line)
    by_name = {line.name: line for line in printed}
    rows = ["| print | instead of | time | filament |", "|---|---|---:|---:|"]
    for replaced, chosen in choices.items():
        instead = [by_name[name] for name in replaced if name in by_name]
        count = max((line.count for line in instead), default=1)
        picked = [replace(line, count=count) for line in chosen]
        files = ", ".join(f"`{line.file}`" for line in chosen)
        rows.append(f"| {files} | {_files(replaced)} | {_versus(picked, instead)} |")
    return rows


def _versus(picked: list[Line], instead: list[Line]) -> str:
    """Time and filament of a choice against what it replaces ('-' where not sliced)."""
    cells = []
    for name, form in (("print_seconds", duration), ("filament_g", grams)):
        mine, theirs = _complete_total(picked, name), _complete_total(instead, name)
        cells.append(form(mine) if theirs is None else f"{form(mine)} (instead of {form(theirs)})")
    return " | ".join(cells)


def _complete_total(lines: list[Line], name: str) -> float | None:
    """A sum only when every line has its figure: a partial sum must not pass for one."""
    if not lines or any(line.figures is None for line in lines):
        return None
    return _total(lines, name)


def _files(names: tuple[str | None, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names if name)

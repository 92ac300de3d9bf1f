"""The typed contract of out/manifest.json: pydantic models of the manifest and its parts,
the JSON Schema generated from them (docs/schema/manifest.schema.json), and the one-line
description of the first thing a manifest gets wrong.

Field names and order are the JSON's own. Numbers keep their JSON type (an int stays an
int), so a manifest dumped from these models is byte for byte the dict it was built from.
Reading validates strictly (`validate_manifest`): a count of "2" or 2.5 is refused.

Regenerate the schema with `make docs` or `python -m squadron_cad.outputs.models`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainValidator,
    Tag,
    ValidationError,
    WithJsonSchema,
)

SCHEMA_FOLDER = Path("docs") / "schema"
SCHEMA_NAME = "manifest.schema.json"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _number(value: Any) -> int | float:
    """A JSON number, kept as it is (0 stays 0, not 0.0); a bool or a text is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    return value


Number = Annotated[int | float, PlainValidator(_number), WithJsonSchema({"type": "number"})]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256, hex")]
Severity = Literal["ok", "info", "cosmetic", "warning", "error"]
Group = Literal["player", "shared", "box"]


class Contract(BaseModel):
    """A shape of ours: frozen, and an unknown key is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- parts and checks ------------------------------------------------------------------


class Finding(Contract):
    """One check's finding: which part, which check, what was measured and expected."""

    part: str
    check: str
    measured: Any = Field(description="A number or a text")
    expected: Any = Field(description="A number or a text")
    severity: Severity
    message: str = ""


class BoundingBox(Contract):
    """The part's axis-aligned bounds as printed, in mm."""

    min: list[Number] = Field(min_length=3, max_length=3)
    max: list[Number] = Field(min_length=3, max_length=3)


class PartEntry(Contract):
    """One part of the kit: its files, how many to print, its measurements and checks."""

    name: str
    title: str
    file: str = Field(description="The STL, relative to the kit's folder")
    scad: str = Field(description="The OpenSCAD source, relative to the kit's folder")
    group: Group
    count: int = Field(ge=0, description="How many to print (0: an alternative)")
    alternative_to: str | None = None
    replaces: list[str] = Field(default_factory=list)
    orientation: str
    bounding_box_mm: BoundingBox
    size_mm: list[Number] = Field(min_length=3, max_length=3)
    volume_mm3: Number
    sha256: Sha256
    triangles: int
    render_seconds: Number
    cached: bool
    backend: str | None = Field(
        default=None, description="What rendered it: manifold or cgal (null: not recorded)"
    )
    ok: bool
    checks: list[Finding]
    variants: list[str] = Field(
        default_factory=list,
        description="Each player's own copy (their mark), in player order: STLs for the plates",
    )


class Invariant(Contract):
    """A rule of the game measured on the meshes (measured is null when not measurable)."""

    name: str
    expected: Number
    measured: Number | None
    tolerance: Number
    ok: bool


class Purchase(Contract):
    """Something to buy rather than print."""

    item: str
    count: int | None
    detail: str


# ---- the slicer ------------------------------------------------------------------------


class SliceSettings(Contract):
    """The settings the parts were (or would have been) sliced with."""

    layer_height_mm: Number
    first_layer_height_mm: Number
    infill_percent: int
    perimeters: int
    filament_diameter_mm: Number
    filament_density_g_cm3: Number
    bed_length_mm: Number
    bed_width_mm: Number
    timeout_s: Number
    solid_infill_below_area_mm2: Number


class SlicedPart(Contract):
    """What the slicer says one copy of a part takes."""

    print_seconds: Number
    filament_mm: Number
    filament_g: Number
    print_time: str = Field(description="print_seconds in words, e.g. 1h 2m 7s")
    count: int


class Totals(Contract):
    """Figures summed over parts, each times its count (missing: parts not sliced)."""

    filament_mm: Number
    filament_g: Number
    print_seconds: Number
    parts: dict[str, int]
    missing: list[str]


class PlayerTotals(Totals):
    """One player's set, against the filament budget of a colour-sample pack."""

    budget_mm: Number
    within_budget: bool


class SlicerRun(Contract):
    """The parts were sliced: the slicer's name and version, and its figures."""

    slicer: str = Field(description="The slicer and its version, e.g. PrusaSlicer-2.5.0")
    settings: SliceSettings
    parts: dict[str, SlicedPart]
    per_player: PlayerTotals
    kit: Totals
    errors: dict[str, str] = Field(description="Parts the slicer refused, and why")
    cached: list[str]
    seconds: Number


class SlicerSkipped(Contract):
    """Nothing was sliced, and why."""

    skipped: str
    settings: SliceSettings | None = None


def _slicer_kind(value: Any) -> str:
    """Which member: a summary with "skipped" says why nothing was sliced (JSON data when
    validating, a model when dumping)."""
    skipped = isinstance(value, SlicerSkipped) or (isinstance(value, dict) and "skipped" in value)
    return "SlicerSkipped" if skipped else "SlicerRun"


SlicerSummary = Annotated[
    Annotated[SlicerRun, Tag("SlicerRun")] | Annotated[SlicerSkipped, Tag("SlicerSkipped")],
    Discriminator(_slicer_kind),
]


# ---- the kit ---------------------------------------------------------------------------


class LayoutSummary(Contract):
    """How the pieces lie in the box, and the files that show it."""

    strategy: str
    arrangement: list[str]
    margins_mm: dict[str, Number] = Field(description="x, y, z: spare mm; corner: clearance")
    limited_by: str
    box_mm: list[Number] = Field(min_length=3, max_length=3)
    files: list[str] = Field(default_factory=list)


class PlatePart(Contract):
    """One part on a plate: its colours, and where its marks' colour begins."""

    part: str
    count: int
    material: str
    colour_hex: str
    marks_material: str | None
    marks_hex: str | None
    marks_from_mm: Number | None = Field(description="Where its raised marks begin (z)")
    change_at_mm: Number | None = Field(
        description="Top of the first layer in the marks' colour (the filament change goes "
        "before it); null: no marks, or marks a single change cannot colour"
    )
    one_change: bool = Field(
        default=True,
        description="One filament change colours its body and marks apart (false: marks "
        "in a recess of its top, a second extruder's work)",
    )


class PlateColours(Contract):
    """What to print in which colour on one plate."""

    plate: str
    file: str
    pieces: int
    material: str
    colour: str
    filament_change_mm: Number | None = Field(
        description="The plate's one filament change (every part on it shares it): before "
        "the layer ending here; null: one colour"
    )
    change_layer: int | None = Field(default=None, description="That layer's number (1-based)")
    marks_material: str | None = Field(default=None, description="The filament loaded then")
    marks_hex: str | None = Field(default=None, description="Its display colour")
    parts: list[PlatePart]


class StageTiming(Contract):
    """Wall and CPU seconds of one stage of the build."""

    wall_s: Number
    cpu_s: Number | None = Field(
        description="CPU seconds of the process and its finished subprocesses; null beside"
    )
    beside: bool = Field(
        default=False,
        description="Ran in a thread beside the other stages (the slicer, the pictures): not "
        "part of their sum, and its subprocesses' CPU time falls in the stages it overlapped",
    )


class KitInfo(Contract):
    """The kit that was built."""

    name: str
    title: str
    credit: str = Field(description="The game's credit and licence line")


class OpenScadInfo(Contract):
    """The OpenSCAD that rendered the parts: its version and backend ("manifold + cgal"
    when some part was rendered again by CGAL; each part's own backend says which)."""

    version: str
    backend: str


class Manifest(Contract):
    """out/manifest.json: what was built, how many to print, its measurements and checks.

    The keys after purchases are written by a whole build; a manifest written before kits
    were named has no kit (it is the default kit's)."""

    model_config = ConfigDict(title="squadron-cad manifest")

    generator: str = Field(description="squadron_cad and its version")
    kit: KitInfo | None = None
    openscad: OpenScadInfo
    players: int = Field(ge=1)
    build_seconds: Number
    parts: list[PartEntry]
    kit_checks: list[Finding] = Field(description="Findings not tied to one part")
    notices: list[str] = Field(description="Steps skipped, and why")
    purchases: list[Purchase] = Field(default_factory=list)
    invariants: list[Invariant] = Field(default_factory=list)
    slicer: SlicerSummary | None = None
    render_seconds: Number | None = None
    layout: LayoutSummary | None = None
    plates: list[PlateColours] | None = None
    build_key: str | None = Field(
        default=None, description="What the kit's files depend on (null: a partial build)"
    )
    stages: dict[str, StageTiming] = Field(default_factory=dict)
    params: dict[str, Any] = Field(description="The kit's parameters (its own model checks them)")
    files: dict[str, Sha256] = Field(
        default_factory=dict, description="Every file of the kit but the manifest: its SHA-256"
    )

    def as_json(self) -> dict[str, Any]:
        """The manifest as JSON data: the keys it was given, in the schema's order."""
        return self.model_dump(mode="json", exclude_unset=True)


# ---- reading ---------------------------------------------------------------------------


class ManifestError(ValueError):
    """A manifest that breaks the contract; the message is one line naming the key."""


def validate_manifest(data: Any) -> Manifest:
    """The manifest read from JSON, checked strictly, or a ManifestError like
    "parts.0.count: must be a whole number"."""
    try:
        return Manifest.model_validate(data, strict=True)
    except ValidationError as error:
        raise ManifestError(first_problem(error, data)) from None


def first_problem(error: ValidationError, data: Any) -> str:
    """The first error as one line: the key's path in the data, then the rule."""
    first = error.errors(include_url=False)[0]
    return f"{data_path(first['loc'], data)}: {_rule(first)}"


def data_path(loc: tuple[int | str, ...], data: Any) -> str:
    """The key path of an error in the data itself, without the tags pydantic adds for a
    union's member or a validator ("slicer.SlicerRun.parts" -> "slicer.parts")."""
    kept: list[str] = []
    here = data
    for index, key in enumerate(loc):
        if not isinstance(here, dict | list):
            break  # below a value: only tags remain
        # two branches, not one `or`: each narrows `here` and `key` for the type checker
        if isinstance(here, dict) and key in here:  # noqa: SIM114
            here = here[key]
        elif isinstance(here, list) and isinstance(key, int) and 0 <= key < len(here):
            here = here[key]
        elif not (isinstance(here, dict) and index == len(loc) - 1):
            continue  # a tag, not a key of the data (a missing key comes last: named)
        kept.append(str(key))
    return ".".join(kept) or "the top level"


_RULES = {
    "missing": "missing",
    "extra_forbidden": "unknown key",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "int_parsing": "must be a whole number",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "string_type": "must be text",
    "list_type": "must be a list",
    "dict_type": "must be an object (key: value)",
    "model_type": "must be an object (key: value)",
    "model_attributes_type": "must be an object (key: value)",
    "string_pattern_mismatch": "must be a SHA-256 (64 hex digits)",
}


def _rule(error: Any) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in _RULES:
        return _RULES[kind]
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "too_short":
        return f"must hold at least {ctx.get('min_length')} items"
    if kind == "too_long":
        return f"must hold at most {ctx.get('max_length')} items"
    message = str(error.get("msg", kind)).removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


# ---- the schema ------------------------------------------------------------------------


def manifest_schema() -> dict[str, Any]:
    """The JSON Schema of manifest.json, generated from the models."""
    return {"$schema": JSON_SCHEMA_DIALECT, **Manifest.model_json_schema()}


def schema_text() -> str:
    """The schema as committed: pretty, keys sorted, a trailing newline."""
    return json.dumps(manifest_schema(), indent=2, sort_keys=True) + "\n"


def write_schema(folder: Path = SCHEMA_FOLDER) -> Path:
    """Write docs/schema/manifest.schema.json (or into folder); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SCHEMA_NAME
    path.write_text(schema_text())
    return path


if __name__ == "__main__":
    print(write_schema(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_FOLDER))

"""out/manifest.json: what was built, how many to print, its measurements and checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from squadron_cad import __version__
from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, default_kit, kit_of, load_kit
from squadron_cad.outfolder import hash_files
from squadron_cad.outputs.models import (
    BoundingBox,
    KitInfo,
    Manifest,
    OpenScadInfo,
    PartEntry,
    first_problem,
    validate_manifest,
)
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_json
from squadron_cad.render.cache import file_sha256

if TYPE_CHECKING:
    from squadron_cad.pipeline.report import BuildReport, PartResult

MANIFEST_NAME = "manifest.json"


def part_entry(result: PartResult, out_dir: Path, variants: list[str] | None = None) -> PartEntry:
    spec = result.spec
    variants = variants or []
    low, high = result.bounds
    return PartEntry(
        name=spec.name,
        title=spec.title,
        file=result.stl.relative_to(out_dir).as_posix(),
        scad=result.scad.relative_to(out_dir).as_posix(),
        group=spec.group,
        count=result.count,
        alternative_to=spec.alternative_to,
        replaces=list(spec.replaces),
        orientation=spec.orientation,
        bounding_box_mm=BoundingBox(min=low, max=high),
        size_mm=[round(h - lo, 3) for lo, h in zip(low, high, strict=True)],
        volume_mm3=result.volume_mm3,
        sha256=file_sha256(result.stl),
        triangles=result.triangles,
        render_seconds=result.render_seconds,
        cached=result.cached,
        backend=result.backend or None,
        ok=result.ok,
        checks=[f.as_dict() for f in result.findings],
        **({"variants": variants} if variants else {}),  # unset: absent from the JSON
    )


def manifest_model(report: BuildReport) -> Manifest:
    """The manifest of a build (no files yet: `write` adds them). The report's extras
    (invariants, slicer, layout, stages, ...) are fields of the model: a key it does not
    know is refused."""
    params = report.params
    kit = kit_of(params)
    return Manifest(
        generator=f"squadron_cad {__version__}",
        kit=KitInfo(name=kit.name, title=kit.title, credit=kit.credit),
        openscad=OpenScadInfo(version=report.tool.version, backend=report.tool.backend),
        players=params.players,
        build_seconds=round(report.seconds, 3),
        parts=[
            part_entry(result, report.out_dir, _variant_files(report, result.spec.name))
            for result in report.parts
        ],
        kit_checks=[f.as_dict() for f in report.kit_findings],
        notices=report.notices,
        purchases=[purchase.as_dict() for purchase in kit.purchases(params)],
        **report.extras,
        params=params.model_dump(mode="json"),
    )


def _variant_files(report: BuildReport, name: str) -> list[str]:
    return [
        variant.stl.relative_to(report.out_dir).as_posix()
        for variant in report.variants
        if variant.spec.variant_of == name
    ]


def manifest_data(report: BuildReport) -> dict[str, Any]:
    """The manifest of a build as JSON data (what the BOM reads)."""
    return manifest_model(report).as_json()


def write(report: BuildReport, folder: Path) -> Path:
    """The manifest, written last: it names every file of the kit with its SHA-256."""
    data = manifest_data(report)
    data["files"] = hash_files(folder, skip={MANIFEST_NAME})
    path = folder / MANIFEST_NAME
    write_json(path, data)
    return path


def require_kit(folder: Path) -> dict[str, Any]:
    """The manifest of the kit in folder (read strictly), or a one-line InputError."""
    data = read_kit(folder, strict=True)
    if data is None:
        raise InputError(f"no kit in {folder} (no manifest.json): run `squadron-cad build` first")
    return data


def read_kit(folder: Path, *, strict: bool = False) -> dict[str, Any] | None:
    """The manifest of the kit in folder, or None when there is none. A manifest that is
    unreadable, breaks the contract (models.Manifest) or is not a kit's is None too, unless
    strict (then an InputError naming the first bad key)."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        validate_manifest(data)
        kit_params(data)
    except ValidationError as error:  # the kit's own parameters
        problem = f"params.{first_problem(error, data['params'])}"
    except (OSError, ValueError, InputError) as error:  # ManifestError is a ValueError
        problem = str(error)
    else:
        return data
    if strict:
        raise InputError(f"{path}: not a squadron-cad manifest ({problem})")
    return None


def kit_of_manifest(data: dict[str, Any]) -> Kit:
    """The kit a manifest names (one written before kits were named: the default kit)."""
    named = data.get("kit")
    return load_kit(str(named["name"])) if isinstance(named, dict) else default_kit()


def kit_params(data: dict[str, Any]) -> KitParamsBase:
    """The parameters a kit was built with, as its manifest records them."""
    return kit_of_manifest(data).params_model.model_validate(data["params"])


def params_difference(data: dict[str, Any], params: KitParamsBase) -> str:
    """'' when params equal the kit's, else the first key that differs and both values,
    then the other keys that differ (a default that follows the one the maker changed,
    such as the paper hex following token.width_mm, may come first)."""
    old = _flatten(data["params"])
    new = _flatten(params.model_dump(mode="json"))
    differ = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
    if not differ:
        return ""
    first = differ[0]
    others = f" (also {', '.join(differ[1:])})" if differ[1:] else ""
    return f"{first}: {old.get(first)!r} there, {new.get(first)!r} now{others}"


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(
            _flatten(value, f"{prefix}{key}." if isinstance(value, dict) else f"{prefix}{key}")
        )
    return flat

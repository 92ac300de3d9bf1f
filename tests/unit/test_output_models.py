"""The typed manifest: built from a report as before, read back validated, refused in one
line naming the key, and the committed JSON Schema is the models' own."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import drop_at, set_at

from squadron_cad import __version__
from squadron_cad.checks import kit_slicing, slicer
from squadron_cad.checks.findings import Finding
from squadron_cad.errors import InputError
from squadron_cad.kit import kit_of
from squadron_cad.outputs import bom, manifest
from squadron_cad.outputs.models import (
    SCHEMA_NAME,
    Manifest,
    ManifestError,
    SlicerRun,
    SlicerSkipped,
    schema_text,
    validate_manifest,
    write_schema,
)
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.kit_checks import invariant_finding
from squadron_cad.pipeline.report import BuildReport, PartResult, RenderedBy

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "schema" / SCHEMA_NAME


@pytest.fixture(scope="module")
def params(toy_params: KitParamsBase) -> KitParamsBase:
    """The toy kit's: tile, tray and the tile row printed instead of the tiles."""
    return toy_params


@pytest.fixture(scope="module")
def layout(params: KitParamsBase) -> dict[str, Any]:
    summary = kit_of(params).design(params).layout.summary()
    return {**summary, "files": ["layout.json", "layout_assembly.stl"]}


def sliced_summary(params: KitParamsBase) -> dict[str, Any]:
    """What the slicer stage records, from the real summary function and made-up figures."""
    outcome = kit_slicing.KitSlice(
        slicer.SliceSettings.from_params(params), version="PrusaSlicer-9.9"
    )
    for spec in kit_of(params).parts:
        outcome.results[spec.name] = slicer.SliceResult(600.0, 1000.0, 3.0)
    outcome.errors["tray"] = "part tray does not fit the bed"
    outcome.cached.append("tile")
    return kit_slicing.slicer_summary(params, outcome)


def fake_report(
    folder: Path, params: KitParamsBase, layout: dict[str, Any], slicer_summary: dict[str, Any]
) -> BuildReport:
    """A whole build's report, as the build stages leave it, with tiny files for the parts."""
    parts = []
    for index, spec in enumerate(kit_of(params).parts):
        stl, scad = folder / "stl" / spec.file_name, folder / "scad" / f"{spec.name}.scad"
        for path in (stl, scad):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{spec.name}\n")
        findings = [
            Finding(spec.name, "watertight", "0 open edges", "0 open edges", "ok"),
            Finding(spec.name, "bodies", 1, 1, "ok"),
            Finding(spec.name, "volume", 1987.75, "> 0 mm3", "cosmetic", "small"),
        ]
        parts.append(
            PartResult(
                name=spec.name,
                count=spec.count(params),
                stl=stl,
                scad=scad,
                render_seconds=0.5 + index,
                cached=index % 2 == 0,
                triangles=1444,
                bounds=[[-12.0104, -12.0104, 0.0], [12.0104, 12.0104, 5]],
                volume_mm3=1987.753,
                findings=findings,
                backend="manifold" if index == 1 else "cgal",  # auto fell back for one part
                known_spec=spec,
            )
        )
    tool = RenderedBy("2025.01.19 + 2021.01", "manifold + cgal")
    report = BuildReport(folder, tool, parts, 21.2901, params)
    invariants = [
        {"name": "plane travels (mm)", "expected": 86.6667, "measured": 86.6, "tolerance": 0.05,
         "ok": False},
        {"name": "cost chevrons", "expected": 1.0, "measured": 1.0, "tolerance": 0, "ok": True},
        {"name": "not measurable", "expected": 2.0, "measured": None, "tolerance": 0.1,
         "ok": False},
    ]  # fmt: skip
    report.kit_findings = [Finding("a+b", "joint_gap", 0.15, "0.150 mm", "ok")]
    report.kit_findings += [invariant_finding(item) for item in invariants if not item["ok"]]
    report.notices = ["slicer figures skipped: none"]
    report.extras = {
        "invariants": invariants,
        "slicer": slicer_summary,
        "render_seconds": 10.691,
        "layout": layout,
        "build_key": "0" * 64,
        "stages": {"render": {"wall_s": 10.6, "cpu_s": 12}, "bom": {"wall_s": 0, "cpu_s": 0}},
    }
    return report


def legacy_data(report: BuildReport) -> dict[str, Any]:
    """The manifest as manifest_data built it before the models, a plain dict."""
    params, kit = report.params, kit_of(report.params)

    def entry(result: PartResult) -> dict[str, Any]:
        low, high = result.bounds
        return {
            "name": result.spec.name,
            "title": result.spec.title,
            "file": result.stl.relative_to(report.out_dir).as_posix(),
            "scad": result.scad.relative_to(report.out_dir).as_posix(),
            "group": result.spec.group,
            "count": result.count,
            "alternative_to": result.spec.alternative_to,
            "replaces": list(result.spec.replaces),
            "orientation": result.spec.orientation,
            "bounding_box_mm": {"min": low, "max": high},
            "size_mm": [round(h - lo, 3) for lo, h in zip(low, high, strict=True)],
            "volume_mm3": result.volume_mm3,
            "sha256": manifest.file_sha256(result.stl),
            "triangles": result.triangles,
            "render_seconds": result.render_seconds,
            "cached": result.cached,
            "backend": result.backend,  # added with the render backends
            "ok": result.ok,
            "checks": [f.as_dict() for f in result.findings],
        }

    return {
        "generator": f"squadron_cad {__version__}",
        "kit": {"name": kit.name, "title": kit.title, "credit": kit.credit},
        "openscad": {"version": report.tool.version, "backend": report.tool.backend},
        "players": params.players,
        "build_seconds": round(report.seconds, 3),
        "parts": [entry(result) for result in report.parts],
        "kit_checks": [f.as_dict() for f in report.kit_findings],
        "notices": report.notices,
        "purchases": [purchase.as_dict() for purchase in kit.purchases(params)],
        **report.extras,
        "params": params.model_dump(mode="json"),
    }


@pytest.fixture
def report(tmp_path: Path, params: KitParamsBase, layout: dict[str, Any]) -> BuildReport:
    return fake_report(tmp_path / "kit", params, layout, sliced_summary(params))


@pytest.fixture
def written(report: BuildReport) -> dict[str, Any]:
    """The manifest file write() leaves in the kit's folder, as JSON."""
    path = manifest.write(report, report.out_dir)
    return json.loads(path.read_text())


def test_manifest_data_is_the_json_it_always_was(report: BuildReport) -> None:
    data = manifest.manifest_data(report)
    expected = legacy_data(report)
    assert json.dumps(data, indent=2) == json.dumps(expected, indent=2)  # order and ints too
    assert isinstance(manifest.manifest_model(report).slicer, SlicerRun)


def test_a_written_manifest_reads_back_validated(report: BuildReport, written: dict) -> None:
    assert set(written["files"]) >= {"stl/tile.stl", "scad/tray.scad", "stl/tile_plain.stl"}
    data = manifest.read_kit(report.out_dir, strict=True)
    assert data == written
    model = validate_manifest(data)
    assert model.kit is not None
    assert model.kit.name == kit_of(report.params).name
    assert model.parts[0].bounding_box_mm.max[2] == 5
    assert model.as_json() == data


@pytest.mark.parametrize(
    "summary",
    [
        {"skipped": "built with --no-slice"},
        {"skipped": "slicer.enabled is false"},  # with its settings, as slicer_summary says
    ],
)
def test_a_skipped_slice_names_its_reason(
    tmp_path: Path, params: KitParamsBase, layout: dict[str, Any], summary: dict[str, Any]
) -> None:
    if "enabled" in summary["skipped"]:
        outcome = kit_slicing.KitSlice(slicer.SliceSettings.from_params(params), skipped="off")
        summary = {**kit_slicing.slicer_summary(params, outcome), **summary}
    report = fake_report(tmp_path, params, layout, summary)
    model = manifest.manifest_model(report)
    assert isinstance(model.slicer, SlicerSkipped)
    data = manifest.manifest_data(report)
    assert data["slicer"] == summary
    assert summary["skipped"] in bom.markdown(data)


def test_the_bill_of_materials_names_the_slicer_and_its_version(report: BuildReport) -> None:
    text = bom.markdown(manifest.manifest_data(report))
    assert "Print time and filament from the slicer: PrusaSlicer-9.9" in text


def test_a_slicer_that_refused_every_part_is_still_named(report: BuildReport) -> None:
    data = manifest.manifest_data(report)
    data["slicer"]["parts"] = {}
    assert "PrusaSlicer-9.9 sliced no part" in bom.markdown(data)


def test_an_unknown_report_extra_is_refused(report: BuildReport) -> None:
    report.extras["colour"] = "red"
    with pytest.raises(ValueError, match="colour"):
        manifest.manifest_data(report)


def test_a_manifest_before_kits_were_named_still_reads(written: dict) -> None:
    old = {k: v for k, v in written.items() if k not in ("kit", "purchases", "stages")}
    old["slicer"] = {"skipped": "built with --no-slice"}
    model = validate_manifest(old)
    assert model.kit is None
    assert model.purchases == []
    assert model.as_json() == old


def _set(*path: str | int, value: Any) -> Any:
    return lambda data: set_at(data, path, value)


def _drop(*path: str | int) -> Any:
    return lambda data: drop_at(data, path)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_set("parts", 0, "count", value="2"), "parts.0.count: must be a whole number"),
        (_set("parts", 0, "count", value=2.5), "parts.0.count: must be a whole number"),
        (_drop("parts", 1, "sha256"), "parts.1.sha256: missing"),
        (_set("parts", 0, "colour", value="red"), "parts.0.colour: unknown key"),
        (_set("parts", 0, "checks", 0, "severity", value="fatal"), "parts.0.checks.0.severity"),
        (_set("parts", 0, "sha256", value="abc"), "parts.0.sha256: must be a SHA-256"),
        (_set("players", value=True), "players: must be a whole number"),
        (_drop("openscad"), "openscad: missing"),
        (_set("invariants", 0, "measured", value="86"), "invariants.0.measured: must be a number"),
        (_drop("slicer", "per_player"), "slicer.per_player: missing"),
        (_set("slicer", "parts", "tray", "filament_g", value="a lot"),
         "slicer.parts.tray.filament_g: must be a number"),
        (_set("slicer", value={"skipped": 3}), "slicer.skipped: must be text"),
        (_set("layout", "box_mm", value=[1, 2]), "layout.box_mm: must hold at least 3 items"),
        (_set("stages", "render", value={"wall_s": 1}), "stages.render.cpu_s: missing"),
        (_set("files", "stl/tray.stl", value=7), "files.stl/tray.stl: must be text"),
        (_set("params", "players", value="two"), "params.players: "),
    ],
)  # fmt: skip
def test_a_bad_manifest_is_refused_in_one_line_naming_the_key(
    report: BuildReport, written: dict, change: Any, problem: str
) -> None:
    data = copy.deepcopy(written)
    change(data)
    path = report.out_dir / manifest.MANIFEST_NAME
    path.write_text(json.dumps(data))
    assert manifest.read_kit(report.out_dir) is None
    with pytest.raises(InputError) as caught:
        manifest.read_kit(report.out_dir, strict=True)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a squadron-cad manifest ({problem}")
    assert "\n" not in message


def test_not_an_object_is_refused_at_the_top_level() -> None:
    with pytest.raises(ManifestError, match=r"^the top level: must be an object"):
        validate_manifest([1, 2])


def test_the_committed_schema_is_the_models_own(tmp_path: Path) -> None:
    assert SCHEMA.read_text() == schema_text(), (
        "docs/schema/manifest.schema.json differs from the models: regenerate it with "
        "`python -m squadron_cad.outputs.models` (or `make docs`) and commit it"
    )
    assert write_schema(tmp_path).read_text() == SCHEMA.read_text()


def test_the_schema_names_every_field_of_the_manifest() -> None:
    schema = json.loads(schema_text())
    assert set(schema["properties"]) == set(Manifest.model_fields)
    assert schema["additionalProperties"] is False
    assert {"SlicerRun", "SlicerSkipped", "PartEntry", "Invariant"} <= set(schema["$defs"])

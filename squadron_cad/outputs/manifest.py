"""out/manifest.json: what was built, how many to print, its measurements and checks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from squadron_cad import __version__
from squadron_cad.render.atomic import write_json

if TYPE_CHECKING:
    from squadron_cad.build import BuildReport, PartResult

MANIFEST_NAME = "manifest.json"


def part_entry(result: PartResult, out_dir: Path) -> dict[str, Any]:
    spec = result.spec
    low, high = result.bounds
    return {
        "name": spec.name,
        "title": spec.title,
        "file": result.stl.relative_to(out_dir).as_posix(),
        "scad": result.scad.relative_to(out_dir).as_posix(),
        "group": spec.group,
        "count": result.count,
        "alternative_to": spec.alternative_to,
        "replaces": list(spec.replaces),
        "orientation": spec.orientation,
        "bounding_box_mm": {"min": low, "max": high},
        "size_mm": [round(h - lo, 3) for lo, h in zip(low, high, strict=True)],
        "volume_mm3": result.volume_mm3,
        "triangles": result.triangles,
        "render_seconds": result.render_seconds,
        "cached": result.cached,
        "ok": result.ok,
        "checks": [f.as_dict() for f in result.findings],
    }


def manifest_data(report: BuildReport) -> dict[str, Any]:
    params = report.params
    return {
        "generator": f"squadron_cad {__version__}",
        "openscad": {"version": report.tool.version, "backend": report.tool.backend},
        "players": params.players,
        "build_seconds": round(report.seconds, 3),
        "parts": [part_entry(result, report.out_dir) for result in report.parts],
        "kit_checks": [f.as_dict() for f in report.kit_findings],
        "notices": report.notices,
        **report.extras,
        "params": params.model_dump(mode="json"),
    }


def write(report: BuildReport) -> Path:
    path = report.out_dir / MANIFEST_NAME
    write_json(path, manifest_data(report))
    return path

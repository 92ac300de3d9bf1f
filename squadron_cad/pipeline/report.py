"""What a build reports: its parts, findings, notices and extras (the manifest's fields).

Light (no meshing library), so the CLI shows an unchanged kit's report, read back from its
manifest, as it shows a build's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from squadron_cad.checks.findings import Finding
from squadron_cad.kit import Part, kit_of
from squadron_cad.params import KitParamsBase

if TYPE_CHECKING:
    from squadron_cad.render.backends import Backend


@dataclass
class PartResult:
    spec: Part
    count: int
    stl: Path
    scad: Path
    render_seconds: float
    cached: bool
    triangles: int
    bounds: list[list[float]]
    volume_mm3: float
    findings: list[Finding] = field(default_factory=list)
    backend: str = ""  # what really rendered it: "manifold" or "cgal" ("" if not known)

    @property
    def ok(self) -> bool:
        return not any(f.failed for f in self.findings)


@dataclass(frozen=True)
class RenderedBy:
    """What rendered a kit's parts (the manifest's openscad): OpenSCAD's version and its
    backend; each names both, as "manifold + cgal", when auto fell back to CGAL for a part."""

    version: str
    backend: str


def rendered_by(backend: Backend, parts: Iterable[PartResult]) -> RenderedBy:
    names = list(dict.fromkeys(result.backend for result in parts if result.backend))
    names = names or [backend.name]
    versions = dict.fromkeys(backend.version_of(name) for name in names)
    return RenderedBy(" + ".join(versions), " + ".join(names))


@dataclass
class BuildReport:
    out_dir: Path
    tool: RenderedBy
    parts: list[PartResult]
    seconds: float
    params: KitParamsBase
    extras: dict[str, Any] = field(default_factory=dict)
    kit_findings: list[Finding] = field(default_factory=list)  # not tied to one part
    notices: list[str] = field(default_factory=list)  # steps skipped, and why
    committed: bool = False  # the new kit is in out_dir (False: the previous one still is)
    reused: list[str] = field(default_factory=list)  # parts kept from the kit (--only)
    variants: list[PartResult] = field(default_factory=list)  # each player's own copies

    def relocate(self, old: Path, new: Path) -> None:
        """Point every path at the output folder once the staging folder is swapped in."""
        self.out_dir = new
        for result in self.parts + self.variants:
            result.stl = new / result.stl.relative_to(old)
            result.scad = new / result.scad.relative_to(old)

    @property
    def failures(self) -> list[Finding]:
        per_part = [f for r in self.parts + self.variants for f in r.findings if f.failed]
        return per_part + [f for f in self.kit_findings if f.failed]

    @property
    def warnings(self) -> list[Finding]:
        per_part = [f for r in self.parts for f in r.findings if f.severity == "warning"]
        return per_part + [f for f in self.kit_findings if f.severity == "warning"]

    @property
    def rendered(self) -> list[str]:
        return [r.spec.name for r in self.parts if not r.cached]

    @property
    def cosmetic(self) -> list[Finding]:
        """Findings a maker cannot act on (listed with --verbose and in the manifest)."""
        per_part = [f for r in self.parts for f in r.findings if f.severity == "cosmetic"]
        return per_part + [f for f in self.kit_findings if f.severity == "cosmetic"]


def report_from_manifest(
    data: dict[str, Any], out: Path, params: KitParamsBase, seconds: float
) -> BuildReport:
    """An unchanged kit's report, read back from its manifest: nothing was rebuilt."""
    by_name = {spec.name: spec for spec in kit_of(params).parts}
    parts = [
        PartResult(
            spec=by_name[entry["name"]],
            count=entry["count"],
            stl=out / entry["file"],
            scad=out / entry["scad"],
            render_seconds=entry["render_seconds"],
            cached=True,
            triangles=entry["triangles"],
            bounds=[entry["bounding_box_mm"]["min"], entry["bounding_box_mm"]["max"]],
            volume_mm3=entry["volume_mm3"],
            findings=[Finding.from_dict(f) for f in entry["checks"]],
            backend=entry.get("backend") or "",
        )
        for entry in data["parts"]
    ]
    tool = RenderedBy(data["openscad"]["version"], data["openscad"]["backend"])
    report = BuildReport(out, tool, parts, seconds, params, committed=True)
    report.kit_findings = [Finding.from_dict(f) for f in data.get("kit_checks", [])]
    report.notices = [f"the kit in {out} is up to date: nothing to rebuild"]
    kept = ("invariants", "slicer", "layout", "plates", "stages")
    report.extras = {k: data[k] for k in kept if k in data}
    return report

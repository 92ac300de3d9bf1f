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
from squadron_cad.kit import Kit, Part
from squadron_cad.params import KitParamsBase

if TYPE_CHECKING:
    from squadron_cad.pipeline.context import BuildContext
    from squadron_cad.render.backends import Backend


@dataclass
class PartResult:
    """One part of a build. A build has its `Part` at hand (`known_spec`); a report read
    back from a manifest looks it up in its kit only when asked: loading a kit's parts
    imports the CAD libraries, which showing an unchanged kit does not need."""

    name: str
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
    known_spec: Part | None = field(default=None, repr=False)
    kit: Kit | None = field(default=None, repr=False)  # where `spec` is looked up if not known

    @property
    def spec(self) -> Part:
        if self.known_spec is None:
            if self.kit is None:
                raise ValueError(f"part {self.name}: neither its Part nor its kit is known")
            self.known_spec = self.kit.part(self.name)
        return self.known_spec

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
        return [r.name for r in self.parts if not r.cached]

    @property
    def cosmetic(self) -> list[Finding]:
        """Findings a maker cannot act on (listed with --verbose and in the manifest)."""
        per_part = [f for r in self.parts for f in r.findings if f.severity == "cosmetic"]
        return per_part + [f for f in self.kit_findings if f.severity == "cosmetic"]


def report_from_manifest(
    data: dict[str, Any], out: Path, context: BuildContext, seconds: float
) -> BuildReport:
    """An unchanged kit's report, read back from its manifest: nothing was rebuilt. Its
    parts are listed by name; each one's `Part` is loaded from the kit only if asked for."""
    kit, params = context.kit, context.params
    parts = [
        PartResult(
            name=entry["name"],
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
            kit=kit,
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

"""The one pipeline: registry -> emit SCAD -> render (cached, parallel) -> checks -> outputs.

Every file lands atomically, so an interrupted or failed build leaves the previous good
files in place. The manifest is written last and names only files that exist.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trimesh

from squadron_cad.checks import kit, slicer
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.mesh import BedSize, load_mesh, mesh_findings
from squadron_cad.emit import ScadSource, emit
from squadron_cad.errors import InputError, SquadronError, ToolError
from squadron_cad.fit import layout_io
from squadron_cad.fit.solver import Layout, solve
from squadron_cad.outputs import bom, gallery, manifest, plates, previews
from squadron_cad.params import KitParams
from squadron_cad.parts.registry import PARTS, PartSpec, part_names
from squadron_cad.render import openscad
from squadron_cad.render.atomic import remove_stale_temporaries, write_bytes, write_text
from squadron_cad.render.cache import RenderCache, file_sha256, source_key
from squadron_cad.render.openscad import OpenScad
from squadron_cad.resolve import resolve as resolve_defaults

CHECKS_VERSION = "3"  # bump when a check changes, so cached check results are recomputed
# Parts that take longest go first, so two workers finish together.
_SLOW_FIRST = ("box", "altitude_token", "plane_token", "stat_dial_card", "template_all")

Progress = Callable[[str, str], None]  # (part, status) with status in PartStatus


@dataclass(frozen=True)
class BuildOptions:
    out_dir: Path = Path("out")
    only: tuple[str, ...] = ()
    jobs: int | None = None
    use_cache: bool = True
    timeout_s: float = 600.0
    openscad: str | None = None
    slice: bool = True  # PrusaSlicer figures, when it is installed
    plates: bool = True
    previews: bool = True


@dataclass
class PartResult:
    spec: PartSpec
    count: int
    stl: Path
    scad: Path
    render_seconds: float
    cached: bool
    triangles: int
    bounds: list[list[float]]
    volume_mm3: float
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.failed for f in self.findings)


@dataclass
class BuildReport:
    out_dir: Path
    tool: OpenScad
    parts: list[PartResult]
    seconds: float
    params: KitParams
    extras: dict[str, Any] = field(default_factory=dict)
    kit_findings: list[Finding] = field(default_factory=list)  # not tied to one part
    notices: list[str] = field(default_factory=list)  # steps skipped, and why

    @property
    def failures(self) -> list[Finding]:
        per_part = [f for result in self.parts for f in result.findings if f.failed]
        return per_part + [f for f in self.kit_findings if f.failed]

    @property
    def warnings(self) -> list[Finding]:
        per_part = [f for r in self.parts for f in r.findings if f.severity == "warning"]
        return per_part + [f for f in self.kit_findings if f.severity == "warning"]

    @property
    def rendered(self) -> list[str]:
        return [r.spec.name for r in self.parts if not r.cached]


def select_parts(only: Iterable[str]) -> list[PartSpec]:
    wanted = list(dict.fromkeys(only))
    for name in wanted:
        if name not in part_names():
            close = difflib.get_close_matches(name, part_names(), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InputError(
                f"--only {name}: no such part{hint}; see `squadron-cad list` for the parts"
            )
    return [spec for spec in PARTS if not wanted or spec.name in wanted]


def emit_sources(params: KitParams, specs: list[PartSpec]) -> dict[str, ScadSource]:
    return {spec.name: emit(spec.name, spec.title, spec.builder, params) for spec in specs}


def bed_of(params: KitParams) -> BedSize:
    printer = params.printer
    return BedSize(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)


def check_context(params: KitParams, spec: PartSpec) -> str:
    bed = bed_of(params)
    return f"{CHECKS_VERSION}|{spec.bodies}|{bed.length_mm}|{bed.width_mm}|{bed.height_mm}"


def instead_of(spec: PartSpec) -> str | None:
    """The files an optional part stands in for (range_ruler: the three sections)."""
    return ", ".join(f"{name}.stl" for name in spec.replaces) or None


def measure(spec: PartSpec, mesh: trimesh.Trimesh, params: KitParams) -> dict[str, Any]:
    findings = mesh_findings(spec.name, mesh, spec.bodies, bed_of(params), instead_of(spec))
    return {
        "triangles": len(mesh.faces),
        "bounds": [[round(float(v), 4) for v in corner] for corner in mesh.bounds],
        "volume_mm3": round(float(mesh.volume), 3),
        "findings": [f.as_dict() for f in findings],
    }


class Builder:
    """One build: owns the tool, the cache and the output folders."""

    def __init__(self, params: KitParams, options: BuildOptions, progress: Progress | None):
        self.params = params
        self.options = options
        self.progress = progress or _no_progress
        self.out_dir = options.out_dir
        self.stl_dir = self.out_dir / "stl"
        self.scad_dir = self.out_dir / "scad"
        self.cache = RenderCache(self.out_dir / ".cache")
        self.tool = openscad.locate(options.openscad)

    def run(self, specs: list[PartSpec]) -> BuildReport:
        started = time.perf_counter()
        sources = emit_sources(self.params, specs)
        for folder in (self.stl_dir, self.scad_dir):
            folder.mkdir(parents=True, exist_ok=True)
            remove_stale_temporaries(folder)
        for name, source in sources.items():
            write_text(self.scad_dir / f"{name}.scad", source.text)
        ordered = sorted(specs, key=lambda s: (s.name not in _SLOW_FIRST, _rank(s.name)))
        results = self._run_parallel(ordered, sources)
        by_name = {r.spec.name: r for r in results}
        parts = [by_name[spec.name] for spec in specs]
        return BuildReport(
            self.out_dir, self.tool, parts, time.perf_counter() - started, self.params
        )

    def _run_parallel(
        self, specs: list[PartSpec], sources: dict[str, ScadSource]
    ) -> list[PartResult]:
        jobs = max(1, self.options.jobs or os.cpu_count() or 1)
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="render")
        futures: list[Future[PartResult]] = [
            pool.submit(self._one_part, spec, sources[spec.name]) for spec in specs
        ]
        try:
            _done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in futures:
                if future.done() and future.exception() is not None:
                    raise future.exception()  # type: ignore[misc]
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            openscad.stop_all()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _one_part(self, spec: PartSpec, source: ScadSource) -> PartResult:
        key = source_key(source.text, self.tool)
        target = self.stl_dir / spec.file_name
        context = check_context(self.params, spec)
        entry = self.cache.lookup(key) if self.options.use_cache else None
        if entry is not None:
            record = entry.record
            if not _same_file(target, record["stl_sha256"]):
                write_bytes(target, entry.stl.read_bytes())
            if record.get("check_context") != context:
                record = {**record, **measure(spec, load_mesh(target), self.params)}
                record["check_context"] = context
                self.cache.update_record(key, record)
            self.progress(spec.name, "cached")
            return self._result(spec, target, record, cached=True)
        self.progress(spec.name, "rendering")
        rendered = openscad.render(
            self.tool, spec.name, source.text, target, self.options.timeout_s
        )
        self.progress(spec.name, "checking")
        record = {
            "render_seconds": round(rendered.seconds, 3),
            "backend": rendered.backend,
            "check_context": context,
            **measure(spec, load_mesh(target), self.params),
        }
        self.cache.store(key, target, record)
        self.progress(spec.name, "done")
        return self._result(spec, target, record, cached=False)

    def _result(
        self, spec: PartSpec, target: Path, record: dict[str, Any], *, cached: bool
    ) -> PartResult:
        return PartResult(
            spec=spec,
            count=spec.count(self.params),
            stl=target,
            scad=self.scad_dir / f"{spec.name}.scad",
            render_seconds=float(record["render_seconds"]),
            cached=cached,
            triangles=int(record["triangles"]),
            bounds=record["bounds"],
            volume_mm3=float(record["volume_mm3"]),
            findings=[Finding.from_dict(f) for f in record["findings"]],
        )


def _no_progress(_part: str, _status: str) -> None:
    """Progress is optional: library callers need not show any."""


def _rank(name: str) -> int:
    return _SLOW_FIRST.index(name) if name in _SLOW_FIRST else 0


def _same_file(path: Path, sha256: str) -> bool:
    return path.is_file() and file_sha256(path) == sha256


def build(
    params: KitParams, options: BuildOptions, progress: Progress | None = None
) -> BuildReport:
    """Build the selected parts into options.out_dir: STLs, checks, manifest and outputs."""
    started = time.perf_counter()
    specs = select_parts(options.only)
    builder = Builder(params, options, progress)
    report = builder.run(specs)
    tell = progress or _no_progress
    meshes = {result.spec.name: load_mesh(result.stl) for result in report.parts}
    shas = {result.spec.name: file_sha256(result.stl) for result in report.parts}
    tell("kit checks", "running")
    attach(report, *kit_checks(params, meshes, shas, builder.cache))
    if options.slice:
        tell("slicer", "running")
        slice_stage(report, builder.cache.folder, options.jobs)
    report.extras["render_seconds"] = round(report.seconds, 3)
    layout = packed_layout(params, options, [r.spec.name for r in report.parts])
    if layout is not None:  # written before the manifest, which names them
        tell("layout", "running")
        written = write_layout_files(layout, params, options.out_dir, picture=options.previews)
        files = [str(path.relative_to(options.out_dir)) for path in written]
        report.extras["layout"] = {**layout_summary(layout), "files": files}
    report.seconds = time.perf_counter() - started  # the manifest's build_seconds: to here
    manifest_path = manifest.write(report)
    _outputs(report, options, tell, manifest_path)
    tell("outputs", "finished")
    report.seconds = time.perf_counter() - started
    return report


def packed_layout(params: KitParams, options: BuildOptions, built: list[str]) -> Layout | None:
    """The tin layout when the whole kit was built (its files need every content's STL)."""
    if options.only or "box" not in built:
        return None
    return solve(params)


def layout_summary(layout: Layout) -> dict[str, Any]:
    return {
        "strategy": layout.strategy,
        "arrangement": list(layout.arrangement),
        "margins_mm": {axis: round(value, 2) for axis, value in layout.margins.items()},
        "limited_by": layout.limited_by,
        "box_mm": [layout.box.length, layout.box.width, layout.box.height],
    }


LAYOUT_PNG = "layout.png"
LAYOUT_ASSEMBLY = "layout_assembly.stl"


def write_layout_files(
    layout: Layout, params: KitParams, out_dir: Path, picture: bool = True
) -> list[Path]:
    """layout.json (with the die's mesh), the packed assembly and the top-down picture."""
    written = [
        layout_io.write_layout(layout, params, out_dir),
        layout_io.write_assembly(layout, out_dir, out_dir / LAYOUT_ASSEMBLY),
    ]
    if picture:  # a picture like the previews, skipped with them
        written.append(layout_io.write_layout_png(layout, params, out_dir / LAYOUT_PNG))
    return written


def kit_checks(
    params: KitParams,
    meshes: dict[str, trimesh.Trimesh],
    shas: dict[str, str],
    cache: RenderCache,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Printability, clearances and the rules' invariants, reused while nothing changed."""
    digest = hashlib.sha256(f"{CHECKS_VERSION}|{params.model_dump_json()}".encode())
    for name in sorted(shas):
        digest.update(f"|{name}:{shas[name]}".encode())
    key = f"kit-{digest.hexdigest()}"
    cached = cache.lookup_record(key)
    if cached is not None:
        return [Finding.from_dict(f) for f in cached["findings"]], cached["invariants"]
    findings = kit.kit_findings(params, meshes)
    measured = kit.invariants(params, meshes)
    cache.store_record(key, {"findings": [f.as_dict() for f in findings], "invariants": measured})
    return findings, measured


def attach(report: BuildReport, findings: list[Finding], measured: list[dict[str, Any]]) -> None:
    by_part = {result.spec.name: result for result in report.parts}
    for finding in findings:
        target = by_part.get(finding.part)
        (target.findings if target else report.kit_findings).append(finding)
    report.kit_findings += [invariant_finding(item) for item in measured if not item["ok"]]
    report.extras["invariants"] = measured


def invariant_finding(item: dict[str, Any]) -> Finding:
    return Finding(
        "invariants",
        item["name"],
        item["measured"],
        item["expected"],
        "error",
        f"the rules' invariant {item['name']!r} does not hold: measured {item['measured']}, "
        f"expected {item['expected']} +/- {item['tolerance']}",
    )


def slice_stage(report: BuildReport, cache_dir: Path, jobs: int | None) -> None:
    names = [result.spec.name for result in report.parts]
    stl_dir = report.out_dir / "stl"
    outcome = slicer.slice_kit(report.params, stl_dir, cache_dir=cache_dir, jobs=jobs, parts=names)
    report.extras["slicer"] = slicer.slicer_summary(report.params, outcome)
    report.kit_findings += slicer.slicer_findings(report.params, outcome)
    if outcome.skipped:
        report.notices.append(f"slicer figures skipped: {outcome.skipped}")


def _outputs(
    report: BuildReport, options: BuildOptions, tell: Progress, manifest_path: Path
) -> None:
    data = json.loads(manifest_path.read_text())
    bom.write_bom(report.out_dir, data)
    whole_kit = not options.only
    if options.plates and whole_kit:
        tell("plates", "running")
        counts = {r.spec.name: r.count for r in report.parts}
        try:
            plates.write_plates(report.out_dir, report.params, counts)
        except SquadronError as error:
            report.notices.append(f"plates skipped: {error}")
    if options.previews:
        tell("previews", "running")
        names = [r.spec.name for r in report.parts]
        try:
            previews.write_previews(
                report.out_dir, names, report.params, options.jobs or os.cpu_count() or 1
            )
        except ToolError as error:
            report.notices.append(f"previews skipped: {error}")


@dataclass
class CheckReport:
    parts: list[str]
    findings: list[Finding]
    invariants: list[dict[str, Any]]

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]


def check_outputs(params: KitParams, out_dir: Path) -> CheckReport:
    """Re-check the STLs already in out_dir/stl: each mesh, printability, the clearances
    between parts and the rules' invariants. A missing or unreadable file is a finding."""
    stl_dir = out_dir / "stl"
    if not stl_dir.is_dir():
        raise InputError(f"{stl_dir} does not exist: run `squadron-cad build` first")
    present = [spec for spec in PARTS if (stl_dir / spec.file_name).is_file()]
    if not present:
        raise InputError(f"no part STLs in {stl_dir}: run `squadron-cad build` first")
    findings: list[Finding] = []
    meshes: dict[str, trimesh.Trimesh] = {}
    for spec in present:
        try:
            mesh = load_mesh(stl_dir / spec.file_name)
        except Exception as error:  # any unreadable file is the finding, not a crash
            findings.append(
                Finding(spec.name, "readable", "unreadable", "a binary STL", "error", str(error))
            )
            continue
        meshes[spec.name] = mesh
        findings += mesh_findings(
            spec.name, mesh, spec.bodies, bed_of(params), instead_of(spec)
        )
    findings += kit.kit_findings(params, meshes)
    measured = kit.invariants(params, meshes)
    findings += [invariant_finding(item) for item in measured if not item["ok"]]
    return CheckReport([spec.name for spec in present], findings, measured)


DOCS_KIT_DIR = Path("out") / "docs-kit"  # the default kit the README gallery is drawn from


def refresh_docs(docs_dir: Path, jobs: int | None = None) -> list[Path]:
    """Build the default kit (cached) and redraw the README gallery and parameter table."""
    params = resolve_defaults()
    options = BuildOptions(
        out_dir=DOCS_KIT_DIR, jobs=jobs, slice=False, plates=False, previews=False
    )
    build(params, options)
    return gallery.write_gallery(docs_dir, DOCS_KIT_DIR, params, jobs or os.cpu_count() or 1)


def refresh_previews(params: KitParams, out_dir: Path, jobs: int | None = None) -> list[Path]:
    """Redraw out/previews for the STLs already built in out_dir."""
    stl_dir = out_dir / "stl"
    names = [spec.name for spec in PARTS if (stl_dir / spec.file_name).is_file()]
    if not names:
        raise InputError(f"no part STLs in {stl_dir}: run `squadron-cad build` first")
    return previews.write_previews(out_dir, names, params, jobs or os.cpu_count() or 1)

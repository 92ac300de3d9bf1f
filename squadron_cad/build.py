"""The one pipeline: registry -> emit SCAD -> render (cached, parallel) -> checks -> outputs.

A build is a transaction: the whole kit is written into a staging folder beside the output
folder, verified, and swapped in with one atomic rename (squadron_cad.outfolder). An
interrupted or failed build leaves the previous kit byte-identical and no debris.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import functools
import hashlib
import importlib
import os
import resource
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import trimesh

import squadron_cad.bed
import squadron_cad.checks
from squadron_cad import interrupts, uptodate
from squadron_cad.checks import fits, memo, slicer
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.mesh import BedSize, load_mesh, mesh_findings
from squadron_cad.checks.printability import part_printability, printability_inputs
from squadron_cad.emit import ScadSource, emit
from squadron_cad.errors import InputError, SquadronError, ToolError
from squadron_cad.fit import layout_io
from squadron_cad.fit.layout import Layout
from squadron_cad.kit import Design, Kit, Part, kit_of
from squadron_cad.outfolder import (
    Staging,
    hash_files,
    no_trace_if_unfinished,
    prepare_cache,
    refused_replacing,
    safe_output_folder,
    shared_cache_folder,
    staged,
)
from squadron_cad.outputs import bom, gallery, manifest, plates, previews, threemf
from squadron_cad.params import KitParamsBase
from squadron_cad.render import openscad
from squadron_cad.render.atomic import write_bytes, write_json, write_text
from squadron_cad.render.backends import Backend, BackendChoice, RenderJob, select_backend
from squadron_cad.render.cache import RenderCache, file_sha256, source_key
from squadron_cad.render.openscad import RenderResult
from squadron_cad.resolve import resolve as resolve_defaults
from squadron_cad.uptodate import code_version

T = TypeVar("T")

# Cached check results are keyed by the checks' own source: a changed check recomputes.
CHECKS_VERSION = code_version(squadron_cad.checks, squadron_cad.bed)

Progress = Callable[[str, str], None]  # (part, status) with status in PartStatus


def kit_version(kit: Kit) -> str:
    """A digest of the kit package's source (the package of its parameter model): its
    checks' cached results follow its code, an outside kit's as well as ours."""
    module = importlib.import_module(kit.params_model.__module__)
    return code_version(importlib.import_module(module.__package__ or module.__name__))


@dataclass(frozen=True)
class BuildOptions:
    out_dir: Path = Path("out")
    only: tuple[str, ...] = ()
    jobs: int | None = None
    use_cache: bool = True
    timeout_s: float = 600.0
    openscad: str | None = None
    backend: BackendChoice = "auto"  # auto: Manifold when it works here, else CGAL
    slice: bool = True  # PrusaSlicer figures, when it is installed
    plates: bool = True
    previews: bool = True
    keep_failed: bool = False  # swap in a kit whose checks fail (to look at it)
    cache_dir: Path | None = None  # a render cache shared by output folders (else out/.cache)


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


def select_parts(kit: Kit, only: Iterable[str]) -> list[Part]:
    wanted = list(dict.fromkeys(only))
    for name in wanted:
        if name not in kit.part_names:
            close = difflib.get_close_matches(name, kit.part_names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InputError(
                f"--only {name}: no such part{hint}; see `squadron-cad list` for the parts"
            )
    return [spec for spec in kit.parts if not wanted or spec.name in wanted]


def with_player_variants(specs: list[Part], params: KitParamsBase) -> list[Part]:
    """The parts and, after them, each player's copy of those that differ by player and
    are printed (a part a kit counts 0 of, for these parameters, needs no copies)."""
    return specs + [
        variant
        for spec in specs
        if spec.count(params) > 0
        for variant in spec.player_variants(params.players)
    ]


def planned_parts(
    params: KitParamsBase, specs: list[Part], kept: dict[str, dict[str, Any]]
) -> list[Part]:
    """Every part a build goes through (each ends as rendered or unchanged): the selected
    ones, or all when --only keeps the rest of a kit, then each player's own copies."""
    wanted = specs if not kept else list(kit_of(params).parts)
    return with_player_variants(wanted, params)


def progress_total(params: KitParamsBase, options: BuildOptions) -> int:
    """How many parts the progress display counts to (the kit's parts and players' copies)."""
    specs = select_parts(kit_of(params), options.only)
    existing = manifest.read_kit(safe_output_folder(options.out_dir, "kit"))
    return len(planned_parts(params, specs, kept_parts(params, options, existing)))


def split_variants(report: BuildReport) -> None:
    """Players' copies leave the part list (one row per part in the manifest and BOM)."""
    report.variants = [r for r in report.parts if r.spec.variant_of is not None]
    report.parts = [r for r in report.parts if r.spec.variant_of is None]


def emit_sources(design: Design, specs: list[Part]) -> dict[str, ScadSource]:
    credit = kit_of(design.params).credit
    return {spec.name: emit(spec, design, credit) for spec in specs}


def _refuse_a_box_off_the_bed(design: Design, building: set[str]) -> None:
    """A box (and its lid, as large) that no turn fits on the bed is known from the tin
    before anything renders: refused in one line, not failed after the renders. Only when
    the box is built (a build of other parts may not need the layout at all)."""
    try:
        layout = getattr(design, "layout", None)
    except InputError:  # no layout in this tin: said where the box's parts need it
        return
    if layout is None or layout.box_part not in building:
        return
    shape, printer = layout.box, design.params.printer
    corners = np.array([[0, 0], [shape.length, 0], [shape.length, shape.width], [0, shape.width]])
    bed = squadron_cad.bed.Bed(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)
    if not squadron_cad.bed.place(corners, 0.0, bed).fits:  # its height: the mesh check
        raise InputError(
            f"the box's {shape.length:.1f} x {shape.width:.1f} mm footprint (fitted to the "
            f"tin) does not fit the {printer.bed_length_mm:g} x {printer.bed_width_mm:g} mm "
            "bed at any turn (printer.bed_length_mm, printer.bed_width_mm); give your "
            "printer's bed, or a smaller tin"
        )


def bed_of(params: KitParamsBase) -> BedSize:
    printer = params.printer
    return BedSize(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)


def check_context(params: KitParamsBase, spec: Part) -> str:
    bed = bed_of(params)
    return f"{CHECKS_VERSION}|{spec.bodies}|{bed.length_mm}|{bed.width_mm}|{bed.height_mm}"


def instead_of(spec: Part) -> str | None:
    """The files an optional part stands in for (a one-piece ruler: its sections)."""
    return ", ".join(f"{name}.stl" for name in spec.replaces) or None


def measure(spec: Part, mesh: trimesh.Trimesh, params: KitParamsBase) -> dict[str, Any]:
    findings = mesh_findings(spec.name, mesh, spec.bodies, bed_of(params), instead_of(spec))
    return {
        "triangles": len(mesh.faces),
        "bounds": [[round(float(v), 4) for v in corner] for corner in mesh.bounds],
        "volume_mm3": round(float(mesh.volume), 3),
        "findings": [f.as_dict() for f in findings],
    }


class Builder:
    """One build: owns the tool, the cache and the output folders."""

    def __init__(
        self,
        design: Design,
        options: BuildOptions,
        progress: Progress | None,
        kit_dir: Path,
        cache_dir: Path,
        backend: Backend,
    ):
        self.design = design
        self.params = design.params
        self.kit = kit_of(design.params)
        self.options = options
        self.progress = progress or _no_progress
        self.out_dir = kit_dir
        self.stl_dir = kit_dir / "stl"
        self.scad_dir = kit_dir / "scad"
        self.cache = RenderCache(cache_dir)
        self.backend = backend

    def run(self, specs: list[Part], kept: dict[str, dict[str, Any]]) -> BuildReport:
        """Render specs, except those in kept (manifest entries of parts kept from the kit)."""
        started = time.perf_counter()
        fresh = [spec for spec in specs if spec.name not in kept]
        self.progress("scad", "running")
        sources = emit_sources(self.design, fresh)
        for folder in (self.stl_dir, self.scad_dir):
            folder.mkdir(parents=True, exist_ok=True)
        for name, source in sources.items():
            write_text(self.scad_dir / f"{name}.scad", source.text)
        self.progress("render", "running")  # renders, each followed by its mesh checks
        ordered = sorted(fresh, key=lambda s: not s.slow_render)  # slow first: workers end together
        results = self._render_all(ordered, sources)
        results += [self._kept(spec, kept[spec.name]) for spec in specs if spec.name in kept]
        by_name = {r.spec.name: r for r in results}
        parts = [by_name[spec.name] for spec in specs]
        tool = rendered_by(self.backend, parts)
        report = BuildReport(self.out_dir, tool, parts, time.perf_counter() - started, self.params)
        report.reused = sorted(kept)
        return report

    def _kept(self, spec: Part, entry: dict[str, Any]) -> PartResult:
        """A part kept from the kit: its mesh re-measured (cheap), its render time kept."""
        target = self.stl_dir / spec.file_name
        record = {"render_seconds": entry["render_seconds"], "backend": entry.get("backend")}
        record.update(measure(spec, load_mesh(target), self.params))
        self.progress(spec.name, "cached")
        return self._result(spec, target, record, cached=True)

    def _render_all(self, specs: list[Part], sources: dict[str, ScadSource]) -> list[PartResult]:
        """Parts from the cache, the rest rendered by the backend; each rendered part is
        checked and cached as soon as its mesh lands, while the next ones render."""
        done: dict[str, PartResult] = {}
        missing: list[Part] = []
        twins: list[Part] = []  # the shape of a part rendered here (player 1's copy): cached
        rendering: set[str] = set()
        for spec in specs:
            cached = self._cached(spec, sources[spec.name])
            if cached is not None:
                done[spec.name] = cached
                continue
            key = source_key(sources[spec.name].text, self.backend)
            (twins if key in rendering and self.options.use_cache else missing).append(spec)
            rendering.add(key)
        by_name = {spec.name: spec for spec in missing}
        jobs = [
            RenderJob(
                spec.name,
                source.text,
                self.stl_dir / spec.file_name,
                spec.bodies,
                cgal_only=not spec.manifold_agrees,
            )
            for spec in missing
            for source in [sources[spec.name]]
        ]
        for spec in missing:
            self.progress(spec.name, "rendering")

        def landed(rendered: RenderResult) -> None:
            spec = by_name[rendered.part]
            done[spec.name] = self._checked(spec, sources[spec.name], rendered)

        workers = max(1, self.options.jobs or os.cpu_count() or 1)
        self.backend.render(jobs, self.options.timeout_s, workers, on_done=landed)
        for spec in twins:
            twin = self._cached(spec, sources[spec.name])
            done[spec.name] = twin or self._render_all([spec], sources)[0]  # a pruned cache
        return [done[spec.name] for spec in specs]

    def _cached(self, spec: Part, source: ScadSource) -> PartResult | None:
        """The part from the render cache (its checks redone if they changed), or None."""
        if not self.options.use_cache:
            return None
        key = source_key(source.text, self.backend)
        entry = self.cache.lookup(key)
        if entry is None:
            return None
        target = self.stl_dir / spec.file_name
        context = check_context(self.params, spec)
        record = entry.record
        if not _same_file(target, record["stl_sha256"]):
            try:
                mesh = entry.stl.read_bytes()
            except FileNotFoundError:  # a shared cache: another build pruned it just now
                return None
            write_bytes(target, mesh)
        if record.get("check_context") != context:
            record = {**record, **measure(spec, load_mesh(target), self.params)}
            record["check_context"] = context
            self.cache.update_record(key, record)
        self.progress(spec.name, "cached")
        return self._result(spec, target, record, cached=True)

    def _checked(self, spec: Part, source: ScadSource, rendered: RenderResult) -> PartResult:
        """A part just rendered: its mesh checked, then stored in the cache."""
        target = self.stl_dir / spec.file_name
        self.progress(spec.name, "checking")
        record = {
            "render_seconds": round(rendered.seconds, 3),
            "backend": rendered.backend,
            "check_context": check_context(self.params, spec),
            **measure(spec, load_mesh(target), self.params),
        }
        self.cache.store(source_key(source.text, self.backend), target, record)
        self.progress(spec.name, "done")
        return self._result(spec, target, record, cached=False)

    def _result(
        self, spec: Part, target: Path, record: dict[str, Any], *, cached: bool
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
            backend=str(record.get("backend") or ""),
        )


class StageClock:
    """Wall and CPU seconds of each stage, read off the stage events the build reports
    (status "running" from the main thread opens a stage and closes the one before)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.stages: dict[str, dict[str, Any]] = {}
        self._open: tuple[str, float, float] | None = None

    def __call__(self, name: str, status: str) -> None:
        if (
            status in ("running", "finished")
            and threading.current_thread() is threading.main_thread()
        ):
            interrupts.checkpoint()  # each stage: a Ctrl-C a library swallowed ends the build
            self.close()
            if status == "running":
                self._open = (name, time.perf_counter(), _cpu_seconds())
        self.progress(name, status)

    def beside(self, name: str, wall_s: float) -> None:
        """A stage that ran in a thread beside the others: its own wall time, not part of
        their sum; its subprocesses' CPU time falls in the stages it overlapped."""
        self.stages[name] = {"wall_s": round(wall_s, 3), "cpu_s": None, "beside": True}

    def close(self) -> None:
        if self._open is None:
            return
        name, wall, cpu = self._open
        spent = self.stages.setdefault(name, {"wall_s": 0.0, "cpu_s": 0.0})
        spent["wall_s"] = round(spent["wall_s"] + time.perf_counter() - wall, 3)
        spent["cpu_s"] = round(spent["cpu_s"] + _cpu_seconds() - cpu, 3)
        self._open = None


def _cpu_seconds() -> float:
    """CPU time of this process (all threads) and of its finished children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _no_progress(_part: str, _status: str) -> None:
    """Progress is optional: library callers need not show any."""


def _same_file(path: Path, sha256: str) -> bool:
    return path.is_file() and file_sha256(path) == sha256


def build(
    params: KitParamsBase, options: BuildOptions, progress: Progress | None = None
) -> BuildReport:
    """Build the selected parts into options.out_dir as one transaction: STLs, checks,
    layout, BOM, plates, previews and the manifest are staged, verified, then swapped in."""
    started = time.perf_counter()
    out = safe_output_folder(options.out_dir, "kit")
    kit = kit_of(params)
    specs = select_parts(kit, options.only)
    key = kit_build_key(params, options)
    current = uptodate.up_to_date_manifest(out, key) if key and options.use_cache else None
    if current is not None:
        return report_from_manifest(current, out, params, time.perf_counter() - started)
    shared_cache = (
        None if options.cache_dir is None else shared_cache_folder(options.cache_dir, out)
    )
    backend = select_backend(options.backend, options.openscad)  # before anything is written
    design = kit.design(params)
    _refuse_a_box_off_the_bed(design, {spec.name for spec in specs})
    existing = manifest.read_kit(out)
    _refuse_another_game(options.out_dir, existing, kit.name)
    kept = kept_parts(params, options, existing)
    if kept and existing is not None:
        anew = functools.partial(_written_anew, rebuilt=options.only)
        _refuse_changed_files(out, existing, anew, _rebuild_it_too)
    clock = StageClock(progress or _no_progress)
    with no_trace_if_unfinished(out) as abandon:
        report = _transaction(
            design, options, clock, out, backend, existing, kept, specs, shared_cache
        )
        if not report.committed:  # failed checks: the kit was not swapped in
            abandon()
    clock.close()
    report.extras["stages"] = clock.stages
    report.seconds = time.perf_counter() - started
    return report


def build_options_key(options: BuildOptions) -> dict[str, bool | str]:
    """The options that change a whole kit's files (jobs and timeouts do not)."""
    return uptodate.options_key(options.previews, options.slice, options.plates, options.backend)


def kit_build_key(params: KitParamsBase, options: BuildOptions) -> str | None:
    """What a whole kit's files depend on (None for --only and --keep-failed builds, which
    are never taken as up to date)."""
    if options.only or options.keep_failed:
        return None
    return uptodate.build_key(
        params.model_dump_json(), build_options_key(options), options.openscad
    )


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


def _transaction(
    design: Design,
    options: BuildOptions,
    progress: Progress | None,
    out: Path,
    backend: Backend,
    existing: dict[str, Any] | None,
    kept: dict[str, dict[str, Any]],
    specs: list[Part],
    shared_cache: Path | None,
) -> BuildReport:
    started = time.perf_counter()
    params = design.params
    with staged(out, "kit") as staging:
        _seed(staging, options, existing)
        cache = prepare_cache(out, shared_cache)
        builder = Builder(design, options, progress, staging.path, cache, backend)
        report = builder.run(planned_parts(params, specs, kept), kept)
        if backend.note:  # auto fell back to the slow kernel: say why, and how to mend it
            report.notices.append(f"rendered with {backend.note}")
        split_variants(report)
        if report.failures and not options.keep_failed:
            staging.abort()  # a broken mesh: nothing after it (checks, slicer, pictures) helps
            return report
        _stage_rest(report, builder, options, progress or _no_progress)
        if kept:
            report.notices.append(
                f"kept {len(kept)} part(s) from the kit in {out}; "
                f"rebuilt: {', '.join(options.only)}"
            )
        if report.failures and not options.keep_failed:
            staging.abort()
            return report
        report.extras["build_key"] = kit_build_key(params, options)
        report.seconds = time.perf_counter() - started  # the manifest's build_seconds: to here
        (progress or _no_progress)("swap", "running")
        report.extras["stages"] = progress.stages if isinstance(progress, StageClock) else {}
        manifest.write(report, staging.path)
        _verify(staging)
        staging.commit()
    report.relocate(staging.path, out)
    report.committed = True
    return report


def kept_parts(
    params: KitParamsBase, options: BuildOptions, existing: dict[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """--only inside a built kit: the manifest entries of the parts not rebuilt."""
    if not options.only or existing is None:
        return {}
    differs = manifest.params_difference(existing, params)
    if differs:
        raise InputError(
            f"--only: the kit in {options.out_dir} was built with other parameters ({differs}); "
            "build the whole kit (unchanged parts come from the cache) or use another --out"
        )
    return {
        entry["name"]: entry
        for entry in existing["parts"]
        if entry["name"] not in options.only and entry["name"] in kit_of(params).part_names
    }


def _seed(staging: Staging, options: BuildOptions, existing: dict[str, Any] | None) -> None:
    """Copy in what the new kit keeps: everything for --only, the pictures' cache else."""
    if existing is None:
        return
    files = existing.get("files", {})
    if options.only:
        staging.seed(rel for rel in files if rel != manifest.MANIFEST_NAME)
    elif options.previews:
        staging.seed(rel for rel in files if rel.startswith(f"{previews.FOLDER}/"))


def _stage_rest(
    report: BuildReport, builder: Builder, options: BuildOptions, tell: Progress
) -> None:
    """Everything after the renders. The slicer and the pictures run their subprocesses in
    threads beside the Python stages (layout, kit checks, plates), sharing `jobs` slots;
    each joins the report on the main thread when its result is needed."""
    jobs = options.jobs or os.cpu_count() or 1
    slots = threading.BoundedSemaphore(jobs)
    whole_kit = len(report.parts) == len(builder.kit.parts)
    slicing = _slicing(report, builder.cache.folder, jobs, slots)
    drawing = _drawing(report, jobs, slots, builder.cache)
    try:
        if options.slice:
            tell("slicer", "running")
            slicing.start()
        if whole_kit:
            _layout_stage(report, builder, options, tell)
        if options.previews:  # after the layout: the packed box is drawn from its files
            tell("previews", "running")
            drawing.start()
        _kit_check_stage(report, builder, tell, whole_kit)
        _plates_stage(report, options, tell, whole_kit, builder.cache)
        _join_slicer(report, slicing, options, tell)
        tell("bom", "running")
        bom.write_bom(report.out_dir, manifest.manifest_data(report))
        _join_previews(report, drawing, options, tell)
    except BaseException:
        slicing.cancel()
        drawing.cancel()
        raise
    tell("outputs", "finished")


def _layout_stage(
    report: BuildReport, builder: Builder, options: BuildOptions, tell: Progress
) -> None:
    layout = builder.design.layout
    if layout is None:
        return
    tell("layout", "running")
    kit_dir = report.out_dir
    written = write_layout_files(
        layout, report.params, kit_dir, picture=options.previews, cache=builder.cache
    )
    files = [str(path.relative_to(kit_dir)) for path in written]
    report.extras["layout"] = {**layout_summary(layout), "files": files}


def _kit_check_stage(
    report: BuildReport, builder: Builder, tell: Progress, whole_kit: bool
) -> None:
    tell("kit checks", "running")
    meshes = {result.spec.name: load_mesh(result.stl) for result in report.parts}
    shas = {result.spec.name: file_sha256(result.stl) for result in report.parts}
    findings, measured = kit_checks(builder.design, meshes, shas, builder.cache)
    if not whole_kit:
        findings, measured = _partial_kit(report, findings, measured, set(meshes))
    attach(report, findings, measured)
    report.extras["render_seconds"] = round(report.seconds, 3)


def _plates_stage(
    report: BuildReport,
    options: BuildOptions,
    tell: Progress,
    whole_kit: bool,
    cache: RenderCache,
) -> None:
    if not (options.plates and whole_kit):
        return
    tell("plates", "running")
    counts = {r.spec.name: r.count for r in report.parts}
    colours: list[dict[str, Any]] = []
    try:
        with memo.kept_in(cache, PLATES_VERSION):
            plates.write_plates(report.out_dir, report.params, counts, colours)
        report.extras["plates"] = colours  # the BOM's colour table
    except SquadronError as error:
        report.notices.append(f"plates skipped: {error}")


def _partial_kit(
    report: BuildReport,
    findings: list[Finding],
    measured: list[dict[str, Any]],
    present: set[str],
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """--only with no kit yet: the rules' invariants compare parts with each other, so a
    failing one may only lack a part not built; it is named, not enforced."""
    missing = sorted(set(kit_of(report.params).part_names) - present)
    unsure = [item for item in measured if not item["ok"]]
    if unsure:
        names = "; ".join(item["name"] for item in unsure)
        report.notices.append(
            f"kit checks skipped, they need parts not built ({', '.join(missing)}): {names}. "
            "Build the whole kit to check them."
        )
    return findings, [item for item in measured if item["ok"]]


def _verify(staging: Staging) -> None:
    """The staged kit is whole: every file the manifest names is there."""
    data = manifest.read_kit(staging.path, strict=True)
    assert data is not None
    for rel in data["files"]:
        if not (staging.path / rel).is_file():
            raise ToolError(f"the new kit is incomplete ({rel} missing); the previous kit is kept")


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
    layout: Layout,
    params: KitParamsBase,
    out_dir: Path,
    picture: bool = True,
    cache: RenderCache | None = None,
) -> list[Path]:
    """layout.json (with the die's mesh), the packed assembly and the top-down picture."""
    written = [
        layout_io.write_layout(layout, params, out_dir),
        layout_io.write_assembly(layout, params, out_dir, out_dir / LAYOUT_ASSEMBLY),
    ]
    if picture:  # a picture like the previews, skipped with them
        written.append(layout_picture(layout, params, out_dir / LAYOUT_PNG, cache))
    return written


LAYOUT_PICTURE_VERSION = code_version(layout_io)
PLATES_VERSION = code_version(plates, threemf)


def layout_picture(
    layout: Layout, params: KitParamsBase, path: Path, cache: RenderCache | None
) -> Path:
    """The top-down picture, from the cache when the layout and the tin are unchanged (most
    parameters change neither, and drawing it takes matplotlib a second)."""

    drawn: list[Path] = []

    def draw() -> str:
        drawn.append(layout_io.write_layout_png(layout, params, path))
        return base64.b64encode(path.read_bytes()).decode()

    keep = memo.kept_in(cache, LAYOUT_PICTURE_VERSION) if cache is not None else None
    with keep or contextlib.nullcontext():
        png = memo.remember("layoutpng", layout_io.layout_digest(layout, params), draw)
    if not drawn:  # remembered: written from the cache
        write_bytes(path, base64.b64decode(png))
    return path


def kit_checks(
    design: Design,
    meshes: dict[str, trimesh.Trimesh],
    shas: dict[str, str],
    cache: RenderCache,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Printability per part (cached by its mesh and the limits it reads), then the kit's
    clearances and the rules' invariants (cached by every mesh and the parameters)."""
    params = design.params
    kit = kit_of(params)
    findings: list[Finding] = []
    for spec in kit.parts:
        if spec.name in meshes:
            findings += _printability(params, spec, meshes[spec.name], shas[spec.name], cache)
    checks_version = f"{CHECKS_VERSION}|{kit_version(kit)}"
    digest = hashlib.sha256(f"{checks_version}|{params.model_dump_json()}".encode())
    for name in sorted(shas):
        digest.update(f"|{name}:{shas[name]}".encode())
    key = f"kit-{digest.hexdigest()}"
    cached = cache.lookup_record(key)
    if cached is not None:
        return findings + [Finding.from_dict(f) for f in cached["findings"]], cached["invariants"]
    with memo.kept_in(cache, checks_version):
        between = between_parts(design, meshes)
        measured = kit.invariants(design, meshes)
    cache.store_record(key, {"findings": [f.as_dict() for f in between], "invariants": measured})
    return findings + between, measured


def between_parts(design: Design, meshes: Mapping[str, trimesh.Trimesh]) -> list[Finding]:
    """The checks between parts: the kit's own (clearances, play) and the fit proof."""
    return kit_of(design.params).checks(design, meshes) + fit_proof(design, meshes)


def fit_proof(design: Design, meshes: Mapping[str, trimesh.Trimesh]) -> list[Finding]:
    """Every stowed piece clear of the box, with its gap in checks.pocket_fit (any kit
    with a box; the meshes of parts not built are skipped)."""
    try:
        layout = design.layout
    except SquadronError:  # a tin too small: the build reported it already
        return []
    if layout is None:
        return []
    limits = design.params.checks
    return fits.stowed_findings(layout, meshes, limits.pocket_fit, limits.fit_tolerance_mm)


def _printability(
    params: KitParamsBase, spec: Part, mesh: trimesh.Trimesh, sha: str, cache: RenderCache
) -> list[Finding]:
    inputs = f"{CHECKS_VERSION}|{spec.name}|{sha}|{printability_inputs(params, spec)}"
    key = f"print-{hashlib.sha256(inputs.encode()).hexdigest()}"
    cached = cache.lookup_record(key)
    if cached is not None:
        return [Finding.from_dict(f) for f in cached["findings"]]
    found = part_printability(params, spec, mesh)
    cache.store_record(key, {"findings": [f.as_dict() for f in found]})
    return found


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


class Beside(Generic[T]):
    """Work whose subprocesses run in a thread beside the build's Python stages; its result
    (or its error) is taken on the main thread, and `stop` ends it early on an interrupt."""

    def __init__(self, name: str, work: Callable[[], T], stop: Callable[[], None]) -> None:
        self.name = name
        self.work = work
        self.stop = stop
        self.value: T | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        # Waited on instead of Thread.join: Python 3.11 marks a thread ended when a Ctrl-C
        # interrupts a join, and cancel() would then stop waiting for work still running.
        self.finished = threading.Event()

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self.value = self.work()
        except BaseException as error:  # raised again on the main thread by result()
            self.error = error
        finally:
            self.seconds = time.perf_counter() - started
            self.finished.set()

    def result(self) -> T:
        self.finished.wait()
        if self.error is not None:
            raise self.error
        assert self.value is not None
        return self.value

    def cancel(self) -> None:
        """Stop it and wait for the thread, stopping again while it runs: a subprocess it
        started just after a stop is ended too, not waited for (as openscad.stop_until_done
        does for the renders)."""
        openscad.keep_stopping(self.stop, self._ended)

    def _ended(self, seconds: float) -> bool:
        never_started = self.thread.ident is None
        return never_started or self.finished.wait(seconds)


def _slicing(
    report: BuildReport, cache_dir: Path, jobs: int, slots: threading.Semaphore
) -> Beside[slicer.KitSlice]:
    # The biggest first: its slicing takes longest (the box's, most of the stage), and
    # started last it would leave the other worker idle at the end.
    by_size = sorted(report.parts, key=lambda result: -result.volume_mm3)
    names = [result.spec.name for result in by_size]
    runs = slicer.SlicerRuns(slots=slots)
    stl_dir = report.out_dir / "stl"

    def work() -> slicer.KitSlice:
        return slicer.slice_kit(
            report.params, stl_dir, cache_dir=cache_dir, jobs=jobs, parts=names, runs=runs
        )

    return Beside("slicer", work, runs.cancel)


def _join_slicer(
    report: BuildReport, slicing: Beside[slicer.KitSlice], options: BuildOptions, tell: Progress
) -> None:
    if not options.slice:
        report.extras["slicer"] = {"skipped": "built with --no-slice"}
        return
    tell("slicer", "running")  # what is left of it: the wait
    outcome = slicing.result()
    report.extras["slicer"] = slicer.slicer_summary(report.params, outcome)
    report.kit_findings += slicer.slicer_findings(report.params, outcome)
    if outcome.skipped:
        report.notices.append(f"slicer figures skipped: {outcome.skipped}")
    _beside_stage(tell, "slicer", slicing.seconds)


def _drawing(
    report: BuildReport, jobs: int, slots: threading.Semaphore, cache: RenderCache
) -> Beside[list[Path]]:
    sharing = previews.Sharing(slots)
    names = [r.spec.name for r in report.parts]

    def work() -> list[Path]:
        return previews.write_previews(
            report.out_dir, names, report.params, jobs, sharing=sharing, store=cache
        )

    return Beside("previews", work, sharing.stopped.set)


def _join_previews(
    report: BuildReport, drawing: Beside[list[Path]], options: BuildOptions, tell: Progress
) -> None:
    if not options.previews:
        return
    tell("previews", "running")  # what is left of them: the wait
    try:
        drawing.result()
    except ToolError as error:
        report.notices.append(f"previews skipped: {error}")
    _beside_stage(tell, "previews", drawing.seconds)


def _beside_stage(tell: Progress, name: str, seconds: float) -> None:
    if isinstance(tell, StageClock):
        tell.beside(f"{name}, in background", seconds)


@dataclass
class CheckReport:
    parts: list[str]
    findings: list[Finding]
    invariants: list[dict[str, Any]]
    params_from: str  # "the kit's manifest" or "the parameters given"

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]


def check_outputs(out_dir: Path, params: KitParamsBase | None = None) -> CheckReport:
    """Re-check the kit in out_dir: every file against its SHA-256 in the manifest, each
    mesh, printability, the clearances between parts and the rules' invariants. Params
    default to the kit's own (its manifest); given ones ask "would it pass under these"."""
    data = manifest.require_kit(out_dir)
    findings = integrity_findings(out_dir, data)
    used = params if params is not None else manifest.kit_params(data)
    kit = kit_of(used)
    stl_dir = out_dir / "stl"
    present = [spec for spec in kit.parts if (stl_dir / spec.file_name).is_file()]
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
        findings += mesh_findings(spec.name, mesh, spec.bodies, bed_of(used), instead_of(spec))
    design = kit.design(used)
    findings += [
        f
        for spec in present
        if spec.name in meshes
        for f in part_printability(used, spec, meshes[spec.name])
    ]
    findings += between_parts(design, meshes)
    measured = kit.invariants(design, meshes)
    findings += [invariant_finding(item) for item in measured if not item["ok"]]
    source = "the kit's manifest" if params is None else "the parameters given"
    return CheckReport([spec.name for spec in present], findings, measured, source)


def _refuse_another_game(out: Path, existing: dict[str, Any] | None, game: str) -> None:
    """Another game's kit is not replaced by a slip of --out or --kit (new parameters for
    the same game replace its kit, as they must)."""
    held = (existing or {}).get("kit") or {}
    name = held.get("name") if isinstance(held, dict) else None
    if name and name != game:
        example = f" (e.g. --out out-{game})"
        raise refused_replacing(f"--out {out}", f"the {name} kit", f"the {game} kit", example)


def _refuse_changed_files(
    out: Path,
    data: dict[str, Any],
    written_anew: Callable[[str], bool],
    advice: Callable[[str], str],
) -> None:
    """Refuse work that would carry a kit file changed since the build (other than one it
    writes anew) into the kit's record as if it were built; advice(that file) ends the
    line."""
    changed = changed_files(out, data)
    kept = [rel for rel in changed if not written_anew(rel)]
    if kept:
        more = f" (+{len(kept) - 1} more)" if len(kept) > 1 else ""
        raise InputError(
            f"{kept[0]} is {changed[kept[0]][0]} since the build{more}: {advice(kept[0])}"
        )


def _rebuild_it_too(rel: str) -> str:
    """--only keeps the rest of the kit as built: what to rebuild instead."""
    part = _part_of(rel)
    also = f"rebuild it too (--only {part}) or the whole kit" if part else "rebuild the kit"
    return f"--only keeps it as it is; {also}"


def _written_anew(rel: str, rebuilt: Sequence[str]) -> bool:
    """Whether an --only build writes rel again: the rebuilt parts' files, the BOM, the
    pictures."""
    return _is_picture(rel) or rel in bom.FILES or _part_of(rel) in rebuilt


def _is_picture(rel: str) -> bool:
    return rel.startswith(f"{previews.FOLDER}/")


def _part_of(rel: str) -> str | None:
    """The part whose STL or SCAD rel is (a player's copy included), or None."""
    return Path(rel).name.split(".")[0] if rel.split("/", 1)[0] in ("stl", "scad") else None


def _redraw_advice(out: Path) -> str:
    """Pictures are drawn from the kit's files as built."""
    return (
        f"rebuild the kit (squadron-cad build --out {out}) before redrawing its pictures; "
        "`squadron-cad check` lists every change"
    )


def changed_files(out_dir: Path, data: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """Each file the manifest names that is missing or changed since the build: its state
    ("missing" or "changed"), its SHA-256 now and the manifest's."""
    found = {}
    for rel, expected in data.get("files", {}).items():
        path = out_dir / rel
        actual = file_sha256(path) if path.is_file() else "missing"
        if actual != expected:
            found[rel] = ("missing" if actual == "missing" else "changed", actual, expected)
    return found


def integrity_findings(out_dir: Path, data: dict[str, Any]) -> list[Finding]:
    """Each file the manifest names, present and unchanged since the build."""
    return [
        Finding(
            Path(rel).stem if rel.startswith("stl/") else "kit",
            "sha256",
            actual[:16],
            expected[:16],
            "error",
            f"{rel} is {state} since the build",
        )
        for rel, (state, actual, expected) in changed_files(out_dir, data).items()
    ]


def refresh_docs(
    docs_dir: Path, jobs: int | None = None, backend: BackendChoice = "auto"
) -> list[Path]:
    """Build the default kit (cached) and redraw the README gallery and parameter table."""
    params = resolve_defaults()  # the default kit
    options = BuildOptions(
        out_dir=DOCS_KIT_DIR, jobs=jobs, slice=False, plates=False, previews=False, backend=backend
    )
    build(params, options)
    pictures = gallery.write_gallery(docs_dir, DOCS_KIT_DIR, params, jobs or os.cpu_count() or 1)
    return pictures + gallery.write_paper_pictures(docs_dir, params, DOCS_PAPER_DIR)


DOCS_KIT_DIR = Path("out") / "docs-kit"  # the default kit the README gallery is drawn from
DOCS_PAPER_DIR = Path("out") / "docs-paper"  # its paper edition, for docs/paper


def refresh_previews(out_dir: Path, jobs: int | None = None) -> list[Path]:
    """Redraw the previews of the kit in out_dir, as a transaction like a build."""
    out = safe_output_folder(out_dir)
    data = manifest.require_kit(out)
    _refuse_changed_files(out, data, _is_picture, lambda _rel: _redraw_advice(out))
    params = manifest.kit_params(data)
    names = [entry["name"] for entry in data["parts"]]
    with staged(out, "kit") as staging:
        staging.seed(rel for rel in data["files"] if rel != manifest.MANIFEST_NAME)
        pictures = previews.write_previews(staging.path, names, params, jobs or os.cpu_count() or 1)
        data["files"] = hash_files(staging.path, skip={manifest.MANIFEST_NAME})
        write_json(staging.path / manifest.MANIFEST_NAME, data)
        staging.commit()
    return [out / path.relative_to(staging.path) for path in pictures]

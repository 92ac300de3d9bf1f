"""Emit each part's OpenSCAD, render it (from the cache when its source is unchanged, the
rest in parallel by the backend) and check its mesh as soon as it lands.

The mesh checks (trimesh) are imported when the first mesh is read: a build imports them
in a thread while its parts are emitted and rendered (squadron_cad.pipeline.machinery)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import squadron_cad.bed
import squadron_cad.checks
from squadron_cad.checks.findings import Finding
from squadron_cad.emit import ScadSource, emit
from squadron_cad.kit import Design, Part, kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.clock import Progress, no_progress
from squadron_cad.pipeline.context import BuildContext
from squadron_cad.pipeline.report import BuildReport, PartResult, rendered_by
from squadron_cad.render.atomic import write_bytes, write_text
from squadron_cad.render.backends import Backend, RenderJob
from squadron_cad.render.cache import RenderCache, file_sha256, source_key
from squadron_cad.render.openscad import RenderResult
from squadron_cad.versions import code_version

if TYPE_CHECKING:
    import trimesh

    from squadron_cad.checks.mesh import BedSize

# Cached check results are keyed by the checks' own source: a changed check recomputes.
CHECKS_VERSION = code_version(squadron_cad.checks, squadron_cad.bed)


def emit_sources(
    design: Design, specs: list[Part], credit: str | None = None
) -> dict[str, ScadSource]:
    """Each part's OpenSCAD; `credit` is the kit's (a build passes its own; a caller
    without a build context has it looked up)."""
    credit = kit_of(design.params).credit if credit is None else credit
    return {spec.name: emit(spec, design, credit) for spec in specs}


def bed_of(params: KitParamsBase) -> BedSize:
    from squadron_cad.checks.mesh import BedSize

    printer = params.printer
    return BedSize(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)


def check_context(params: KitParamsBase, spec: Part) -> str:
    bed = bed_of(params)
    return f"{CHECKS_VERSION}|{spec.bodies}|{bed.length_mm}|{bed.width_mm}|{bed.height_mm}"


def replaced_files(spec: Part) -> str | None:
    """The files an optional part stands in for (a one-piece part: the sections it joins)."""
    return ", ".join(f"{name}.stl" for name in spec.replaces) or None


def measure_file(spec: Part, stl: Path, params: KitParamsBase) -> dict[str, Any]:
    """The part's mesh read from its STL, then measured."""
    from squadron_cad.checks.mesh import load_mesh

    return measure(spec, load_mesh(stl), params)


def measure(spec: Part, mesh: trimesh.Trimesh, params: KitParamsBase) -> dict[str, Any]:
    from squadron_cad.checks.mesh import mesh_findings, mesh_volume

    findings = mesh_findings(spec.name, mesh, spec.bodies, bed_of(params), replaced_files(spec))
    return {
        "triangles": len(mesh.faces),
        "bounds": [[round(float(v), 4) for v in corner] for corner in mesh.bounds],
        "volume_mm3": round(mesh_volume(mesh), 3),
        "findings": [f.as_dict() for f in findings],
    }


def _same_file(path: Path, sha256: str) -> bool:
    return path.is_file() and file_sha256(path) == sha256


class Renderer:
    """The renders of one build: owns the backend, the cache and the kit's stl/ and scad/."""

    def __init__(
        self,
        context: BuildContext,
        progress: Progress | None,
        kit_dir: Path,
        cache_dir: Path,
        backend: Backend,
    ):
        self.context = context
        self.design = context.design
        self.params = context.params
        self.kit = context.kit
        self.options = context.options
        self.progress = progress or no_progress
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
        sources = emit_sources(self.design, fresh, self.kit.credit)
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
        record.update(measure_file(spec, target, self.params))
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
            record = {**record, **measure_file(spec, target, self.params)}
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
            **measure_file(spec, target, self.params),
        }
        self.cache.store(source_key(source.text, self.backend), target, record)
        self.progress(spec.name, "done")
        return self._result(spec, target, record, cached=False)

    def _result(
        self, spec: Part, target: Path, record: dict[str, Any], *, cached: bool
    ) -> PartResult:
        return PartResult(
            name=spec.name,
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
            known_spec=spec,
        )

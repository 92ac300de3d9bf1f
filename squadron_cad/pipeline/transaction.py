"""A build as one transaction: the whole kit (SCAD, STLs, checks, layout, BOM, plates,
pictures, manifest) is written into a staging folder beside the output folder, verified,
and swapped in with one atomic rename (squadron_cad.outfolder). An interrupted or failed
build leaves the previous kit byte-identical and no debris."""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

from squadron_cad import uptodate
from squadron_cad.errors import ToolError
from squadron_cad.fit import prerender
from squadron_cad.kit import Part
from squadron_cad.outfolder import (
    PREVIEWS_NAME,
    Staging,
    no_trace_if_unfinished,
    prepare_cache,
    safe_output_folder,
    shared_cache_folder,
    staged,
)
from squadron_cad.outputs import manifest
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline import machinery, refusals
from squadron_cad.pipeline.clock import Progress, StageClock, no_progress
from squadron_cad.pipeline.context import BuildContext
from squadron_cad.pipeline.layout_files import Picture, early_picture
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.parts import kept_parts, planned_parts, select_parts, split_variants
from squadron_cad.pipeline.rendering import Renderer
from squadron_cad.pipeline.report import BuildReport, report_from_manifest
from squadron_cad.render.backends import Backend, select_backend


def build(
    params: KitParamsBase, options: BuildOptions, progress: Progress | None = None
) -> BuildReport:
    """Build these parameters' kit (a library caller's entry; the command makes its context
    itself and calls `build_kit`)."""
    return build_kit(BuildContext.of(params, options), progress)


def build_kit(context: BuildContext, progress: Progress | None = None) -> BuildReport:
    """Build the selected parts into options.out_dir as one transaction: STLs, checks,
    layout, BOM, plates, previews and the manifest are staged, verified, then swapped in."""
    started = time.perf_counter()
    kit, options = context.kit, context.options
    out = safe_output_folder(options.out_dir, "kit")
    specs = select_parts(kit, options.only)
    key = context.build_key
    current = uptodate.up_to_date_manifest(out, key) if key and options.use_cache else None
    if current is not None:
        return report_from_manifest(current, out, context, time.perf_counter() - started)
    shared_cache = (
        None if options.cache_dir is None else shared_cache_folder(options.cache_dir, out)
    )
    backend = select_backend(options.backend, options.openscad)  # before anything is written
    prerender.refuse_before_rendering(context.design, {spec.name for spec in specs})
    existing = manifest.read_kit(out)
    refusals.refuse_another_game(options.out_dir, existing, kit.name)
    kept = kept_parts(context, existing)
    if kept and existing is not None:
        anew = functools.partial(refusals.written_anew, rebuilt=options.only)
        refusals.refuse_changed_files(out, existing, anew, refusals.rebuild_it_too)
    clock = StageClock(progress or no_progress)
    with no_trace_if_unfinished(out) as abandon:
        report = _transaction(context, clock, out, backend, existing, kept, specs, shared_cache)
        if not report.committed:  # failed checks: the kit was not swapped in
            abandon()
    clock.close()
    report.extras["stages"] = clock.stages
    report.seconds = time.perf_counter() - started
    return report


def _transaction(
    context: BuildContext,
    clock: StageClock,
    out: Path,
    backend: Backend,
    existing: dict[str, Any] | None,
    kept: dict[str, dict[str, Any]],
    specs: list[Part],
    shared_cache: Path | None,
) -> BuildReport:
    started = time.perf_counter()
    options = context.options
    with staged(out, "kit") as staging:
        _copy_in_kept(staging, options, existing)
        cache = prepare_cache(out, shared_cache)
        renderer = Renderer(context, clock, staging.path, cache, backend)
        planned = planned_parts(context, specs, kept)
        machinery.import_beside()  # while the parts are emitted and rendered
        picture_wanted = options.previews and _whole_kit(context, planned)
        with early_picture(context.design, renderer.cache, picture_wanted) as drawing:
            report = _render_and_after(renderer, planned, kept, clock, drawing, out)
        if report.failures and not options.keep_failed:
            staging.abort()  # a broken mesh, or a failed check: the previous kit stays
            return report
        report.extras["build_key"] = context.build_key
        report.seconds = time.perf_counter() - started  # the manifest's build_seconds: to here
        clock("swap", "running")
        report.extras["stages"] = clock.stages
        manifest.write(report, staging.path)
        _verify(staging)
        staging.commit()
    report.relocate(staging.path, out)
    report.committed = True
    return report


def _render_and_after(
    renderer: Renderer,
    planned: list[Part],
    kept: dict[str, dict[str, Any]],
    clock: StageClock,
    drawing: Picture | None,
    out: Path,
) -> BuildReport:
    """The renders, then (unless a mesh broke) every stage after them."""
    options = renderer.options
    report = renderer.run(planned, kept)
    if renderer.backend.note:  # auto fell back to the slow kernel: say why, and how to mend it
        report.notices.append(f"rendered with {renderer.backend.note}")
    split_variants(report)
    if report.failures and not options.keep_failed:
        return report  # a broken mesh: nothing after it (checks, slicer, pictures) helps
    from squadron_cad.pipeline.stages import after_renders  # imported beside the renders

    after_renders(report, renderer, clock, drawing)
    if kept:
        report.notices.append(
            f"kept {len(kept)} part(s) from the kit in {out}; rebuilt: {', '.join(options.only)}"
        )
    return report


def _whole_kit(context: BuildContext, planned: list[Part]) -> bool:
    """Whether the build goes through every part of the kit (it then writes the layout)."""
    return sum(spec.variant_of is None for spec in planned) == len(context.kit.parts)


def _copy_in_kept(staging: Staging, options: BuildOptions, existing: dict[str, Any] | None) -> None:
    """Copy in what the new kit keeps: everything for --only, the pictures' cache else."""
    if existing is None:
        return
    files = existing.get("files", {})
    if options.only:
        staging.seed(rel for rel in files if rel != manifest.MANIFEST_NAME)
    elif options.previews:
        staging.seed(rel for rel in files if rel.startswith(f"{PREVIEWS_NAME}/"))


def _verify(staging: Staging) -> None:
    """The staged kit is whole: every file the manifest names is there."""
    data = manifest.read_kit(staging.path, strict=True)
    assert data is not None
    for rel in data["files"]:
        if not (staging.path / rel).is_file():
            raise ToolError(f"the new kit is incomplete ({rel} missing); the previous kit is kept")

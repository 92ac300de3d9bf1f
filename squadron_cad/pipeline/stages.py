"""Everything after the renders: the layout files, the kit checks, the plates, the slicer's
figures, the pictures and the BOM.

The slicer and the pictures run their subprocesses in threads beside the Python stages
(layout, kit checks, plates), sharing the build's `jobs` slots; each joins the report on
the main thread when its result is needed.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from squadron_cad.checks import kit_slicing, memo, slicer
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.errors import SquadronError, ToolError
from squadron_cad.outputs import bom, manifest, plate_colours, plates, previews, threemf
from squadron_cad.pipeline.clock import BackgroundWork, Progress, StageClock
from squadron_cad.pipeline.kit_checks import attach_findings, kit_checks
from squadron_cad.pipeline.layout_files import Picture, write_layout_files
from squadron_cad.pipeline.rendering import Renderer
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.render.cache import RenderCache, file_sha256
from squadron_cad.versions import code_version

PLATES_VERSION = code_version(plates, plate_colours, threemf)


def after_renders(
    report: BuildReport,
    renderer: Renderer,
    tell: Progress,
    layout_picture: Picture | None = None,
) -> None:
    """Every stage after the renders, the slicer and the pictures beside the others
    (`layout_picture`: drawing since before the renders, when it was started then)."""
    options = renderer.options
    jobs = options.jobs or os.cpu_count() or 1
    slots = threading.BoundedSemaphore(jobs)
    whole_kit = len(report.parts) == len(renderer.kit.parts)
    slicing = _slicing(report, renderer.cache.folder, jobs, slots)
    drawing = _drawing(report, jobs, slots, renderer.cache)
    try:
        if options.slice:
            tell("slicer", "running")
            slicing.start()
        if whole_kit:
            _layout_stage(report, renderer, tell, layout_picture)
        if options.previews:  # after the layout: the packed box is drawn from its files
            tell("previews", "running")
            drawing.start()
        _kit_check_stage(report, renderer, tell, whole_kit)
        _plates_stage(report, renderer, tell, whole_kit)
        _join_slicer(report, slicing, renderer, tell)
        tell("bom", "running")
        bom.write_bom(report.out_dir, manifest.manifest_data(report))
        _join_previews(report, drawing, renderer, tell)
    except BaseException:
        slicing.cancel()
        drawing.cancel()
        raise
    tell("outputs", "finished")


def _layout_stage(
    report: BuildReport, renderer: Renderer, tell: Progress, picture: Picture | None
) -> None:
    layout = renderer.design.layout
    if layout is None:
        return
    tell("layout", "running")
    kit_dir = report.out_dir
    written = write_layout_files(
        layout,
        report.params,
        kit_dir,
        picture=renderer.options.previews,
        cache=renderer.cache,
        drawing=picture,
    )
    files = [str(path.relative_to(kit_dir)) for path in written]
    report.extras["layout"] = {**layout.summary(), "files": files}


def _kit_check_stage(
    report: BuildReport, renderer: Renderer, tell: Progress, whole_kit: bool
) -> None:
    tell("kit checks", "running")
    results = [*report.parts, *report.variants]  # each player's copy: their marks' checks
    meshes = {result.spec.name: load_mesh(result.stl) for result in results}
    shas = {result.spec.name: file_sha256(result.stl) for result in results}
    findings, measured = kit_checks(renderer.kit, renderer.design, meshes, shas, renderer.cache)
    if not whole_kit:
        missing = sorted(set(renderer.kit.part_names) - set(meshes))
        findings, measured = _partial_kit(report, findings, measured, missing)
    attach_findings(report, findings, measured)
    report.extras["render_seconds"] = round(report.seconds, 3)


def _plates_stage(report: BuildReport, renderer: Renderer, tell: Progress, whole_kit: bool) -> None:
    if not (renderer.options.plates and whole_kit):
        return
    tell("plates", "running")
    counts = {r.spec.name: r.count for r in report.parts}
    colours: list[dict[str, Any]] = []
    try:
        with memo.remembering_in(renderer.cache, PLATES_VERSION):
            plates.write_plates(report.out_dir, report.params, counts, colours)
        report.extras["plates"] = colours  # the BOM's colour table
    except SquadronError as error:
        report.notices.append(f"plates skipped: {error}")


def _partial_kit(
    report: BuildReport,
    findings: list[Finding],
    measured: list[dict[str, Any]],
    missing: list[str],
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """--only with no kit yet: the rules' invariants compare parts with each other, so a
    failing one may only lack a part not built (`missing`); it is named, not enforced."""
    unsure = [item for item in measured if not item["ok"]]
    if unsure:
        names = "; ".join(item["name"] for item in unsure)
        report.notices.append(
            f"kit checks skipped, they need parts not built ({', '.join(missing)}): {names}. "
            "Build the whole kit to check them."
        )
    return findings, [item for item in measured if item["ok"]]


def _slicing(
    report: BuildReport, cache_dir: Path, jobs: int, slots: threading.Semaphore
) -> BackgroundWork[kit_slicing.KitSlice]:
    # The biggest first: its slicing takes longest (the box's, most of the stage), and
    # started last it would leave the other worker idle at the end.
    by_size = sorted(report.parts, key=lambda result: -result.volume_mm3)
    names = [result.spec.name for result in by_size]
    runs = slicer.SlicerRuns(slots=slots)
    stl_dir = report.out_dir / "stl"

    def work() -> kit_slicing.KitSlice:
        return kit_slicing.slice_kit(
            report.params, stl_dir, cache_dir=cache_dir, jobs=jobs, parts=names, runs=runs
        )

    return BackgroundWork("slicer", work, runs.cancel)


def _join_slicer(
    report: BuildReport,
    slicing: BackgroundWork[kit_slicing.KitSlice],
    renderer: Renderer,
    tell: Progress,
) -> None:
    if not renderer.options.slice:
        report.extras["slicer"] = {"skipped": "built with --no-slice"}
        return
    tell("slicer", "running")  # what is left of it: the wait
    outcome = slicing.result()
    report.extras["slicer"] = kit_slicing.slicer_summary(report.params, outcome)
    report.kit_findings += kit_slicing.slicer_findings(report.params, outcome)
    if outcome.skipped:
        report.notices.append(f"slicer figures skipped: {outcome.skipped}")
    _background_stage(tell, "slicer", slicing.seconds)


def _drawing(
    report: BuildReport, jobs: int, slots: threading.Semaphore, cache: RenderCache
) -> BackgroundWork[list[Path]]:
    sharing = previews.Sharing(slots)
    names = [r.spec.name for r in report.parts]

    def work() -> list[Path]:
        return previews.write_previews(
            report.out_dir, names, report.params, jobs, sharing=sharing, store=cache
        )

    return BackgroundWork("previews", work, sharing.stopped.set)


def _join_previews(
    report: BuildReport,
    drawing: BackgroundWork[list[Path]],
    renderer: Renderer,
    tell: Progress,
) -> None:
    if not renderer.options.previews:
        return
    tell("previews", "running")  # what is left of them: the wait
    try:
        drawing.result()
    except ToolError as error:
        report.notices.append(f"previews skipped: {error}")
    _background_stage(tell, "previews", drawing.seconds)


def _background_stage(tell: Progress, name: str, seconds: float) -> None:
    if isinstance(tell, StageClock):
        tell.beside(f"{name}, in background", seconds)

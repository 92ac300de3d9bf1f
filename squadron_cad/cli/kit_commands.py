"""Commands on a kit in an output folder: build it, check it, redraw its pictures, clean it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from squadron_cad import console, interrupts
from squadron_cad.cli.app import command
from squadron_cad.cli.options import (
    BackendOpt,
    CacheDirOpt,
    DebugOpt,
    Given,
    JobsOpt,
    JsonOpt,
    KitOpt,
    OutOpt,
    ParamsOpt,
    QuietOpt,
    SetOpt,
    TinOpt,
    VerboseOpt,
)
from squadron_cad.cli.session import session_of
from squadron_cad.errors import CheckFailed, InputError
from squadron_cad.outfolder import (
    clean_output,
    remove_stale_staging,
    safe_output_folder,
    shared_cache_folder,
)

# The modules each command needs are imported in it: `squadron-cad serve` and `fit` start
# without loading the build's (a third of a second on 2 shared cores).

OnlyOpt = Annotated[
    list[str] | None,
    typer.Option("--only", metavar="PART", help="Build just this part (repeatable)."),
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout", min=1, metavar="SECONDS", help="Seconds before one part's render is stopped."
    ),
]
BuildJobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        min=0,
        metavar="N",
        help="Tools run at once: renders, slicers, pictures (0 = one per core).",
    ),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Render every part, ignoring the cache.")
]
NoPreviewsOpt = Annotated[
    bool, typer.Option("--no-previews", help="Skip the pictures (previews and layout.png).")
]
NoSliceOpt = Annotated[
    bool, typer.Option("--no-slice", help="Skip slicing (print time and filament).")
]
KeepFailedOpt = Annotated[
    bool,
    typer.Option(
        "--keep-failed",
        help="Put the new kit in OUT even when a check fails, to look at it (default: a "
        "failing kit is discarded and OUT keeps the previous kit).",
    ),
]


@command()
def build(
    ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    out: OutOpt = Path("out"),
    backend: BackendOpt = "auto",
    only: OnlyOpt = None,
    jobs: BuildJobsOpt = 0,
    no_cache: NoCacheOpt = False,
    cache: CacheDirOpt = None,
    timeout: TimeoutOpt = 600.0,
    no_previews: NoPreviewsOpt = False,
    no_slice: NoSliceOpt = False,
    keep_failed: KeepFailedOpt = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Emit OpenSCAD for every part, render STLs into OUT/stl, check them, write the manifest.

    The kit is built aside and swapped into OUT whole: if the build fails or is
    interrupted, OUT keeps the previous kit untouched (a Ctrl-C during the swap itself
    waits for it; the message says which kit OUT holds). With --only and a kit already in
    OUT, just those parts are rebuilt and the kit's manifest and BOM stay whole.

    Example: squadron-cad build --tin altoids
    """
    from squadron_cad import uptodate
    from squadron_cad.cli.showing import failed_build_left, show_build
    from squadron_cad.pipeline.context import BuildContext
    from squadron_cad.pipeline.options import BuildOptions
    from squadron_cad.pipeline.report import report_from_manifest

    started = time.perf_counter()
    given = Given.of(params, overrides, tin=tin, kit=kit, out=out, backend=backend)
    resolved = given.parameters()
    options = BuildOptions(
        out_dir=out,
        only=tuple(only or ()),
        jobs=jobs or None,
        use_cache=not no_cache,
        timeout_s=timeout,
        previews=not no_previews,
        slice=not no_slice,
        keep_failed=keep_failed,
        backend=backend,
        cache_dir=cache,
    )
    context = BuildContext.of(resolved, options)  # made once, passed to every stage
    show = {"quiet": quiet, "verbose": verbose, "as_json": as_json}
    key = context.build_key if options.use_cache else None  # the build's own
    unchanged = uptodate.up_to_date_manifest(Path(os.path.abspath(out)), key) if key else None
    if unchanged is not None:  # nothing to do, and no need to load the machinery to see it
        remove_stale_staging(Path(os.path.realpath(out)))  # a killed build's, as README says
        seconds = time.perf_counter() - started
        show_build(report_from_manifest(unchanged, out, context, seconds), **show)
        return
    safe_output_folder(out, "kit")  # a refused folder is said before the meshing stack loads
    if cache is not None:
        shared_cache_folder(cache, Path(out))
    from squadron_cad.pipeline import parts
    from squadron_cad.render.backends import probe_beside

    probe_beside(backend)  # OpenSCAD and node answer while the kit's parts load

    total = parts.progress_total(context)
    session = session_of(ctx)
    session.watch(Path(out), "kit")
    with console.build_progress(total, quiet=quiet, as_json=as_json) as progress:
        # the machinery (meshes, renders: a second to load) once the build has said so
        from squadron_cad.pipeline import transaction

        interrupts.checkpoint()  # a Ctrl-C the imports swallowed
        report = transaction.build_kit(context, progress)
    show_build(report, **show)
    if report.failures:
        left = failed_build_left(report, Path(out), session)
        raise CheckFailed(f"{len(report.failures)} check(s) failed (see above){left}")


@command()
def check(
    _ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    out: OutOpt = Path("out"),
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Re-check the kit in OUT: every file against its SHA-256, every mesh, the rules.

    The kit is checked with the parameters it was built with (from its manifest), as the
    game it was built for. Give --params, --set or --tin only to ask "would this kit pass
    under other parameters".

    Example: squadron-cad check --out out
    """
    from squadron_cad.kit import load_kit
    from squadron_cad.outputs.manifest import kit_of_manifest, read_kit, require_kit
    from squadron_cad.resolve import resolve

    opts = Given.of(params, overrides, tin=tin, kit=kit, out=out, quiet=quiet, json=as_json)
    named = load_kit(kit).name if kit else None
    built = read_kit(out)
    game = kit_of_manifest(built).name if built else named
    other = opts.params or opts.overrides or opts.tin  # --kit alone asks nothing new
    asked = resolve(opts.params, opts.overrides, opts.tin, game) if other else None
    require_kit(out)  # no kit is said before the meshing stack loads
    if named and named != game:
        raise InputError(
            f"--kit {kit}: {out} holds a {game} kit; check reads the game from its "
            "manifest, so drop --kit"
        )
    from squadron_cad.pipeline.verify import check_outputs  # the machinery

    interrupts.checkpoint()
    checked = check_outputs(out, asked)
    failures = checked.failures
    if as_json:
        for finding in checked.findings:
            console.emit_json({"event": "finding", **finding.as_dict()})
        for item in checked.invariants:
            console.emit_json({"event": "invariant", **item})
        console.emit_json(
            {"event": "checked", "parts": len(checked.parts), "failures": len(failures)}
        )
    else:
        for finding in checked.findings:
            if finding.failed:  # an error: shown even with --quiet
                console.stdout.print(f"FAIL {finding.line()}")
            elif finding.severity == "warning":
                opts.show(f"warn {finding.line()}")
            elif finding.severity == "cosmetic" and verbose:
                opts.show(f"note {finding.line()}")
        held = sum(1 for item in checked.invariants if item["ok"])
        opts.show(
            f"checked {len(checked.parts)} parts in {out} with {checked.params_from}: "
            f"{len(failures)} failing check(s); {held} of {len(checked.invariants)} rule "
            "invariants hold"
        )
    if failures:
        failing = sorted({f.part for f in failures})
        raise CheckFailed(f"failing: {', '.join(failing)}")


@command()
def previews(
    ctx: typer.Context,
    out: OutOpt = Path("out"),
    jobs: JobsOpt = 0,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Redraw OUT/previews/*.png for the kit in OUT, with its own parameters (build draws
    them too).

    Example: squadron-cad previews --out out
    """
    from squadron_cad.outputs.manifest import require_kit

    require_kit(safe_output_folder(out))  # said before the meshing stack loads
    session_of(ctx).watch(Path(out), "kit")
    from squadron_cad.pipeline.pictures import refresh_previews  # the machinery

    interrupts.checkpoint()
    pictures = refresh_previews(out, jobs or None)
    Given(quiet=quiet).show(f"{len(pictures)} pictures in {out / 'previews'}")


@command()
def clean(
    _ctx: typer.Context,
    out: OutOpt = Path("out"),
    cache: Annotated[
        bool, typer.Option("--cache/--keep-cache", help="Remove the render cache too.")
    ] = True,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Remove what squadron-cad wrote in OUT: the kit and any paper edition or tolerance
    plate it wrote inside it, only the files its ownership records list and the folders
    it made; a file changed since it was written is yours and kept; anything else is left,
    and said.

    Example: squadron-cad clean --out out
    """
    opts = Given(quiet=quiet)
    removed, left, edited = clean_output(out, cache=cache)
    opts.show(f"removed {removed} file(s) from {out}")
    if edited:
        shown = ", ".join(edited[:5]) + (" ..." if len(edited) > 5 else "")
        opts.note(
            f"note: kept {len(edited)} file(s) you changed since squadron-cad wrote them: {shown}"
        )
    if left:
        shown = ", ".join(left[:5]) + (" ..." if len(left) > 5 else "")
        opts.note(f"note: left {len(left)} file(s) squadron-cad did not write: {shown}")

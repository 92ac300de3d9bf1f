"""Commands that write what goes beside a kit: its paper edition and its tolerance plate."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from squadron_cad import console, interrupts
from squadron_cad.cli.app import command
from squadron_cad.cli.options import (
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
)
from squadron_cad.cli.session import session_of
from squadron_cad.errors import InputError
from squadron_cad.outfolder import safe_output_folder, shared_cache_folder


@command()
def paper(
    ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    out: OutOpt = Path("out/paper"),
    no_previews: Annotated[
        bool, typer.Option("--no-previews", help="Skip the PNG pictures of the pages.")
    ] = False,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Write the kit's paper edition into OUT, for players without a printer: a vector PDF
    of every sheet, one SVG per page, laser and cutter SVGs (cut and engrave layers) and a
    PNG of each page.

    The kit's sheets hold its pieces at 1:1 to cut out, and large sheets (a battle mat)
    tiled over pages that overlap and align. Every page carries a 100 mm and a 1 inch
    scale bar. The written PDF is read back and measured; the last lines give the figures.

    Example: squadron-cad paper --set paper.size=letter --out out/paper
    """
    from squadron_cad.kit import kit_of

    opts = Given.of(params, overrides, tin=tin, kit=kit, out=out, quiet=quiet)
    resolved = opts.parameters()
    game = kit_of(resolved)
    if game.paper is None:
        raise InputError(f"the {game.name} kit has no paper edition")
    session_of(ctx).watch(Path(out), "paper edition")
    with console.build_progress(1, quiet=True, as_json=as_json) as progress:
        progress("paper edition", "running")
        report = game.paper(resolved, out, not no_previews)
        progress("paper edition", "done")
    if as_json:
        for notice in report.notices:
            console.emit_json({"event": "notice", "message": notice})
        console.emit_json(
            {"event": "paper", "out": str(out), "pdf": str(report.pdf), **report.figures}
        )
        return
    for notice in report.notices:
        opts.note(f"note: {notice}", markup=False)
    for line in report.summary:
        opts.show(line, markup=False)


@command()
def tolerance(
    ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    out: OutOpt = Path("out/tolerance"),
    picks: Annotated[
        list[str] | None,
        typer.Argument(metavar="[FIT=MM]...", help="With --choose: each fit's chosen clearance."),
    ] = None,
    choose: Annotated[
        bool,
        typer.Option("--choose", help="Write the chosen clearances as a parameters file."),
    ] = False,
    out_params: Annotated[
        Path, typer.Option("--out-params", metavar="FILE", help="Where --choose writes.")
    ] = Path("fits.yaml"),
    ladder: Annotated[
        str | None,
        typer.Option(
            "--ladder", metavar="FROM:TO:STEP", help="Clearances to print, in mm (0.10:0.40:0.05)."
        ),
    ] = None,
    jobs: JobsOpt = 0,
    cache: CacheDirOpt = None,
    no_previews: Annotated[
        bool, typer.Option("--no-previews", help="Skip the picture of the plate.")
    ] = False,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Print one small plate of coupons for each fit of the kit, at a ladder of clearances,
    then write the ones that fit your printer as a parameters file.

    Builds into OUT: the coupons' STLs, the plate (3MF and STL), its picture, the
    slicer's time and filament, and a README with the steps. After printing, pick the
    tightest coupon of each fit that still works and write them down with --choose; the
    file sets the kit's own clearance keys for `squadron-cad build --params FILE`.

    Example: squadron-cad tolerance --choose peg=0.25 joint=0.20 clip=0.15 lid=0.30
    """
    from squadron_cad import tolerance as coupons
    from squadron_cad.kit import kit_of

    interrupts.checkpoint()
    opts = Given.of(params, overrides, tin=tin, kit=kit, out=out, quiet=quiet)
    resolved = opts.parameters()
    game = kit_of(resolved)
    coupons.coupons_of(game)  # a kit without any says so first
    steps = coupons.Ladder.parse(ladder or coupons.DEFAULT_LADDER)
    if picks and not choose:
        raise InputError(f"{picks[0]}: FIT=MM words are for --choose (--choose {picks[0]})")
    layers = (opts.params, opts.overrides, opts.tin)
    if choose:
        lines = coupons.write_choice(resolved, game, steps, picks or (), out_params, layers)
    else:
        safe_output_folder(out, coupons.KIND)  # said before the work is announced
        if cache is not None:
            shared_cache_folder(cache, Path(out))
        opts.note(f"rendering, measuring and slicing the {game.name} coupons into {out} ...")
        cores = jobs or os.cpu_count() or 1
        session_of(ctx).watch(Path(out), "tolerance plate")
        watch = console.JsonEvents() if as_json else None
        lines = coupons.build_lines(
            resolved, out, steps, cores, not no_previews, layers, progress=watch,
            started=_json_start if as_json else None, cache_dir=cache,
        )  # fmt: skip
    for line in lines:
        if as_json:
            console.emit_json({"event": "tolerance", "message": line})
        else:
            opts.show(line, markup=False)


def _json_start(pieces: int) -> None:
    console.emit_json({"event": "start", "parts": pieces})  # what the progress counts to

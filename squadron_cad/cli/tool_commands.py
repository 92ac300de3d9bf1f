"""Commands for the project itself: set the tools up, redraw the docs, time the builds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from squadron_cad import interrupts
from squadron_cad.cli.app import command
from squadron_cad.cli.options import (
    BackendOpt,
    DebugOpt,
    Given,
    JobsOpt,
    KitOpt,
    ParamsOpt,
    QuietOpt,
    SetOpt,
    TinOpt,
)
from squadron_cad.errors import ToolError


@command()
def setup(_ctx: typer.Context, quiet: QuietOpt = False, _debug: DebugOpt = False) -> None:
    """Set up OpenSCAD's fast Manifold build (the pinned npm package, integrity-checked) for
    this checkout, or for your user when squadron-cad is installed as a tool, and say which
    tools a build will use. Builds do this by themselves the first time; run it to do it now
    or to see why a build renders with the slower CGAL."""
    from squadron_cad.render import manifold_probe, node_tools, openscad

    opts = Given(quiet=quiet)
    opts.show(node_tools.install(), markup=False)
    reason = manifold_probe.unavailable_reason()
    try:
        native = openscad.locate()
        opts.show(f"OpenSCAD {native.version}: {native.executable}", markup=False)
    except ToolError as error:
        opts.show(f"OpenSCAD not found: {error}", markup=False)
    if reason:
        opts.show(f"Manifold backend unavailable: {reason}", markup=False)
        raise typer.Exit(1)
    opts.show(f"Manifold backend: {manifold_probe.locate().identity}", markup=False)


@command()
def docs(
    _ctx: typer.Context,
    backend: BackendOpt = "auto",
    folder: Annotated[Path, typer.Option("--docs", help="The docs folder.")] = Path("docs"),
    jobs: JobsOpt = 0,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Redraw the README gallery (docs/gallery), the paper pages (docs/paper) and
    docs/parameters.md from the defaults.

    Example: squadron-cad docs
    """
    from squadron_cad.pipeline.pictures import refresh_docs  # the machinery

    interrupts.checkpoint()
    written = refresh_docs(folder, jobs or None, backend)
    Given(quiet=quiet).show(f"wrote {len(written)} files under {folder}")


@command()
def bench(
    _ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    backend: BackendOpt = "auto",
    reference: Annotated[
        Path | None,
        typer.Option(
            help="Folder of OpenSCAD files to compare against (default: bench/reference)."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Rounds; medians are quoted.")] = 3,
    jobs: JobsOpt = 0,
    save: Annotated[Path | None, typer.Option(help="Also write the figures as JSON here.")] = None,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Time cold, warm and one-change builds against rendering a reference set one by one.

    Example: squadron-cad bench --repeats 3 --reference ~/other-project/scad
    """
    from squadron_cad.bench import format_figures, run_bench  # rarely used: load on demand
    from squadron_cad.render.atomic import write_json

    opts = Given.of(params, overrides, tin=tin, kit=kit, backend=backend, quiet=quiet)
    resolved = opts.parameters()
    param_args = [a for path in opts.params for a in ("--params", str(path))]
    param_args += [a for text in opts.overrides for a in ("--set", text)]
    param_args += ["--tin", tin] if tin else []
    param_args += ["--kit", kit] if kit else []
    param_args += ["--backend", backend]
    result = run_bench(resolved, param_args, reference, repeats, jobs or None, opts.note).as_dict()
    opts.show(format_figures(result))
    if save:
        write_json(save, result)

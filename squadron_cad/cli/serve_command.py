"""The customizer: a local web page that fits a kit to a tin, shows every part in 3D,
builds it and hands over what to print (squadron_cad.web)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from squadron_cad.cli.app import command
from squadron_cad.cli.options import DebugOpt, Given, KitOpt, OutOpt, QuietOpt
from squadron_cad.errors import InputError


@command()
def serve(
    _ctx: typer.Context,
    kit: KitOpt = None,
    out: OutOpt = Path("out/web"),
    port: Annotated[
        int,
        typer.Option(
            "--port", min=0, max=65535, metavar="N", help="Port on 127.0.0.1 (0: any free one)."
        ),
    ] = 8421,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Serve the customizer page on 127.0.0.1: fit a kit to your tin, see every part in
    3D, build it and download what to print. Builds go into OUT/<kit> (default out/web).

    Example: squadron-cad serve --port 0
    """
    from squadron_cad.web.server import serve as serve_page

    try:
        serve_page(port, Path(out), kit, announce=lambda line: print(line, flush=True))
    except OSError as error:
        raise InputError(
            f"--port {port}: cannot listen there ({error.strerror}); try --port 0"
        ) from None
    except KeyboardInterrupt:
        Given(quiet=quiet).note("squadron-cad: the customizer stopped", markup=False)

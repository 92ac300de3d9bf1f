"""The `squadron-cad` application: its commands, and one line per error.

Errors a user can cause print one line and exit 2; tool failures exit 1; an interrupt
exits 130 saying what the output folder holds; `--debug` shows the traceback instead.
"""

from __future__ import annotations

import functools
import signal
import sys
import warnings
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Annotated, Any, TypeVar

import typer

from squadron_cad import __version__, console, interrupts, lifeline
from squadron_cad.cli.options import DebugOpt
from squadron_cad.cli.session import Session, session_of
from squadron_cad.errors import Interrupted, SquadronError
from squadron_cad.interrupts import STOP_SIGNALS


def _another_kit() -> str:
    """An installed kit besides the default one, for the help's example (NAME if none)."""
    names = sorted(point.name for point in entry_points(group="squadron_cad.kits"))
    default = [point.name for point in entry_points(group="squadron_cad.default_kit")]
    return next((name for name in names if name not in default), "NAME")


EXAMPLES = f"""

Examples:

\b
  squadron-cad build                         the default kit into out/
  squadron-cad build --tin altoids           a box for an Altoids tin
  squadron-cad build --tin custom --set token.width_mm=30
  squadron-cad build --params mytin.yaml --only box --out mybox  just the box
  squadron-cad fit --params mytin.yaml       the box layout, without rendering
  squadron-cad check                         re-check the kit in out/
  squadron-cad kits                          the games' kits installed (use one with --kit)
  {"squadron-cad fit --kit " + _another_kit():<42} another game's box layout
"""

app = typer.Typer(
    name="squadron-cad",
    help="Generate, render and check the 3D-printable parts of a tabletop game's kit"
    " (`squadron-cad kits` lists them). Parameters come from the kit's defaults, then --tin,"
    " then --params files, then --set." + EXAMPLES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
# click's exception for usage errors, reached through typer's public BadParameter (typer
# carries its own copy of click, and its module is private).
CLICK_ERROR: type[Exception] = next(
    kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "ClickException"
)
# The context click hands a command: click's own class, which typer.Context extends (and
# adds nothing to); typed as the commands declare it, typer.Context.
CLICK_CONTEXT: type[typer.Context] = typer.Context.__mro__[1]

Command = TypeVar("Command", bound=Callable[..., Any])


def command(name: str | None = None) -> Callable[[Command], Command]:
    """Register a command (it takes a typer.Context): a Ctrl-C inside it is said as what the
    output folder holds (click would turn it into its own "Aborted!")."""

    def register(function: Command) -> Command:
        @functools.wraps(function)
        def run(**given: Any) -> Any:
            ctx = next(value for value in given.values() if isinstance(value, CLICK_CONTEXT))
            try:
                return function(**given)
            except KeyboardInterrupt:
                raise Interrupted(session_of(ctx).interrupted_line()) from None

        app.command(name=name)(run)
        return function

    return register


def _version(value: bool) -> None:
    if value:
        typer.echo(f"squadron-cad {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    _version_flag: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
    _debug: DebugOpt = False,
) -> None:
    """--debug is taken before the command name too (`squadron-cad --debug build`)."""


def main(argv: list[str] | None = None) -> None:
    """Entry point: one line per error, exit 2 for bad input and 1 for tool failures."""
    args = sys.argv[1:] if argv is None else argv
    # --json known before parsing, so that a usage error is a JSON line too
    session = Session(as_json="--json" in args)
    previous = {signum: signal.signal(signum, session.on_signal) for signum in STOP_SIGNALS}
    if "--debug" not in args:
        warnings.simplefilter("ignore")  # numpy's notes on a broken mesh: the finding says it
    interrupts.forget()
    try:
        with lifeline.run_temporaries():  # removed at the end; a killed run's, by the next
            _run(session, args)
    except KeyboardInterrupt:  # a second Ctrl-C while the first one's line was being said
        sys.exit(130)
    finally:
        # The run is over and said: a late Ctrl-C must not kill the exit (a process killed
        # by SIGINT, no message). In-process callers get their handlers back.
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if argv is None else handler)


def _run(session: Session, args: list[str]) -> None:
    try:
        # Not standalone: click's usage errors reach here, to be said in one line as ours.
        code = app(args=args, prog_name="squadron-cad", standalone_mode=False, obj=session)
    except CLICK_ERROR as error:
        # click's exception class is private in typer, so typed Exception here: its show()
        # and exit_code are click's
        if type(error).__name__ == "NoArgsIsHelpError":  # no command given: the help
            error.show()  # type: ignore[attr-defined]
            sys.exit(error.exit_code)  # type: ignore[attr-defined]
        _fail(session, error, _usage_line(error), error.exit_code)  # type: ignore[attr-defined]
    except (typer.Abort, KeyboardInterrupt) as error:
        _fail(session, error, session.interrupted_line(), 130)
    except SquadronError as error:
        if session.interrupted and not isinstance(error, Interrupted):
            _fail(session, error, session.interrupted_line(), 130)
        _fail(session, error, str(error), error.exit_code)
    except Exception as error:  # never a raw traceback for a maker; --debug shows it
        if session.interrupted:
            _fail(session, error, session.interrupted_line(), 130)
        line = f"internal error: {type(error).__name__}: {error} (rerun with --debug)"
        _fail(session, error, line, 1)
    sys.exit(code if isinstance(code, int) else 0)  # --help and the like return theirs


def _usage_line(error: Any) -> str:
    """A click usage error in one line, with where to read the command's options."""
    context = getattr(error, "ctx", None)
    where = f" (see {context.command_path} --help)" if context is not None else ""
    return f"{error.format_message()}{where}"


def _fail(session: Session, error: BaseException | None, line: str, code: int) -> None:
    if session.debug and error is not None:
        raise error
    if session.as_json:  # scripts read stdout: the error is the last JSON line there too
        console.emit_json({"event": "error", "message": line, "exit_code": code})
    print(f"squadron-cad: error: {line}", file=sys.stderr)
    sys.exit(code)

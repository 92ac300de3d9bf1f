"""One run of the command: what its error path must know (--debug, --json, whether a stop
signal came, which output folder it swaps files into), held by one object that click
hands every command through its context."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from squadron_cad import interrupts
from squadron_cad.outfolder import Ownership, read_ownership

INTERRUPTED = "interrupted before anything was written"  # each command watches its folder first


@dataclass(frozen=True)
class Watched:
    """The output folder a command swaps new files into, and what it held before."""

    out: Path
    before: Ownership | None
    what: str  # "kit", "paper edition", ...


@dataclass
class Session:
    debug: bool = False
    as_json: bool = False
    interrupted: bool = False
    watched: Watched | None = None

    def watch(self, out: Path, what: str) -> None:
        """Note what the output folder holds before a command swaps new files in, so that
        an interrupt is reported by what it holds after (read off the folder, not guessed)."""
        self.watched = Watched(out, read_ownership(out), what)

    def interrupted_line(self) -> str:
        watched = self.watched
        if watched is None:
            return INTERRUPTED
        return what_an_interrupt_left(watched.out, watched.before, watched.what)

    def on_signal(self, signum: int, _frame: object) -> None:
        """Ctrl-C or SIGTERM: remembered, so that a library that swallows the
        KeyboardInterrupt (trimesh's loaders catch everything) still ends the run."""
        self.interrupted = True
        interrupts.note_stop()
        raise KeyboardInterrupt(f"signal {signum}")


def what_an_interrupt_left(out: Path, before: Ownership | None, what: str = "kit") -> str:
    now = read_ownership(out)
    if now is not None and (before is None or now.files != before.files):
        return f"interrupted after the swap; {out} holds the new {what}, whole"
    if before is None:
        return f"interrupted; nothing written to {out}"
    return f"interrupted; {out} still holds the previous {what}, untouched"


def session_of(ctx: typer.Context) -> Session:
    """The run's session (a new one when a test invokes the app without main)."""
    return ctx.ensure_object(Session)

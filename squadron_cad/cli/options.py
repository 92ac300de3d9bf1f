"""The options several commands take, each declared once as an Annotated alias, and what
a command was given of them (`Given`): its parameters resolved, its lines shown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from squadron_cad import console
from squadron_cad.cli.session import session_of
from squadron_cad.errors import InputError, SquadronError
from squadron_cad.outfolder import CACHE_ENV

Backend = Literal["auto", "cgal", "manifold"]  # render.backends.BackendChoice (not loaded here)
BACKENDS: tuple[Backend, ...] = ("auto", "cgal", "manifold")


def _out_folder(text: str | Path) -> Path:
    """--out '' would mean the folder you are in: refuse it as such."""
    if not str(text).strip():
        raise InputError("--out '': give a folder name, e.g. --out out")
    return Path(text)


def _backend_choice(text: str) -> Backend:
    for choice in BACKENDS:
        if text == choice:
            return choice
    raise InputError(f"--backend {text}: choose one of {', '.join(BACKENDS)}")


def _json_now(ctx: typer.Context, value: bool) -> bool:
    """--json known as it is parsed: an error in a later option is a JSON line too."""
    if value:
        session_of(ctx).as_json = True
    return value


def _debug_now(ctx: typer.Context, value: bool) -> bool:
    """--debug takes effect as it is parsed (it is eager), so that an error in another
    option's value already shows its traceback."""
    if value:
        session_of(ctx).debug = True
    return value


ParamsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--params",
        "-p",
        metavar="FILE",
        help="A YAML parameter file, - for standard input (repeatable; later files win).",
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override one key: --set token.width_mm=30 (repeatable).",
    ),
]
TinOpt = Annotated[
    str | None,
    typer.Option("--tin", metavar="NAME", help="A tin preset of the kit (`squadron-cad tins`)."),
]
KitOpt = Annotated[
    str | None,
    typer.Option(
        "--kit",
        "-k",
        metavar="NAME",
        help="Which game's kit (`squadron-cad kits`; default: squadron-leader).",
    ),
]
OutOpt = Annotated[
    Path,
    typer.Option(
        "--out", "-o", metavar="DIR", help="Output folder.", parser=lambda v: _out_folder(v)
    ),
]
BackendOpt = Annotated[
    Backend,
    typer.Option(
        "--backend",
        metavar="auto|cgal|manifold",
        help="OpenSCAD's kernel for the STLs: manifold (fast; OpenSCAD 2025, native or "
        "its WebAssembly build via node), cgal (the OpenSCAD on PATH), or auto: "
        "Manifold when it works here, CGAL for any part it gets wrong, else CGAL.",
        parser=lambda v: _backend_choice(v),
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Also list cosmetic findings.")]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="JSON Lines on stdout (docs/json-output.md).", callback=_json_now),
]
DebugOpt = Annotated[
    bool,
    typer.Option("--debug", help="Show tracebacks on errors.", callback=_debug_now, is_eager=True),
]
CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        metavar="DIR",
        envvar=CACHE_ENV,
        help="Keep the render cache in DIR, shared by every --out: parts, figures and "
        "pictures one kit made are reused by the others (default: OUT/.cache). "
        "Safe to delete.",
    ),
]
JobsOpt = Annotated[
    int,
    typer.Option("--jobs", "-j", min=0, metavar="N", help="Parallel jobs (0 = one per core)."),
]


@dataclass(frozen=True)
class Given:
    """The common options one command was given (those it does not take keep these
    defaults): its parameters resolved on demand, and its lines shown unless --quiet."""

    params: tuple[Path, ...] = ()
    overrides: tuple[str, ...] = ()
    tin: str | None = None
    kit: str | None = None
    out: Path = Path("out")
    backend: str = "auto"
    quiet: bool = False
    verbose: bool = False
    json: bool = False

    @classmethod
    def of(cls, params: list[Path] | None = None, overrides: list[str] | None = None,
           **given: Any) -> Given:  # fmt: skip
        """The options as typer hands them over (a repeatable option not given is None)."""
        return cls(params=tuple(params or ()), overrides=tuple(overrides or ()), **given)

    def parameters(self) -> Any:
        """The resolved parameters: kit defaults, then --tin, then --params, then --set. A
        --params file the page saved for another kit or tin is said: in the refusal, or
        as a note when its values resolve on this run's defaults."""
        from squadron_cad.resolve import resolve  # pydantic and the kits: not for --help

        try:
            resolved = resolve(self.params, self.overrides, self.tin, self.kit)
        except InputError as error:
            elsewhere = self._saved_elsewhere()
            if elsewhere:
                raise InputError(f"{error}; {'; '.join(elsewhere)}") from None
            raise
        for line in self._saved_elsewhere():
            self.note(f"note: {line}: its values went on this run's defaults instead")
        return resolved

    def _saved_elsewhere(self) -> list[str]:
        """Each --params file whose first line (the page's command) names another kit or
        tin preset than this run's."""
        from squadron_cad.kit import default_kit, load_kit
        from squadron_cad.paramfile import saved_command, saved_for_file

        try:
            kit = load_kit(self.kit).name if self.kit else default_kit().name
        except SquadronError:
            return []
        found = []
        for path in self.params:
            saved = saved_for_file(path)
            if saved is not None and saved != (kit, self.tin):
                command = saved_command(*saved, path.name)
                found.append(f"{path.name} was saved for `{command}` (its first line)")
        return found

    def show(self, text: str, *, markup: bool = True) -> None:
        """One line of the command's output on stdout (none with --quiet)."""
        if not self.quiet:
            console.stdout.print(text, markup=markup)

    def note(self, text: str, *, markup: bool = True) -> None:
        """One line of commentary on stderr (none with --quiet)."""
        if not self.quiet:
            console.stderr.print(text, markup=markup)

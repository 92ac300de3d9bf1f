"""The `squadron-cad` command: parse, resolve parameters, call one library function.

Errors a user can cause print one line and exit 2; tool failures exit 1; `--debug` shows
the traceback instead.
"""

from __future__ import annotations

import functools
import inspect
import os
import signal
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast, get_type_hints

import typer
import yaml

from squadron_cad import __version__, console, interrupts, lifeline, uptodate
from squadron_cad.checks.findings import Finding
from squadron_cad.errors import CheckFailed, InputError, Interrupted, SquadronError
from squadron_cad.kit import default_kit, installed_kits, kit_of, load_kit
from squadron_cad.outfolder import (
    CACHE_ENV,
    STOP_SIGNALS,
    Ownership,
    clean_output,
    read_ownership,
    remove_stale_staging,
    safe_output_folder,
    shared_cache_folder,
)
from squadron_cad.outputs.manifest import kit_of_manifest, read_kit, require_kit
from squadron_cad.resolve import available_tins, resolve

if TYPE_CHECKING:
    from squadron_cad import build as pipeline_module

EXAMPLES = """

Examples:

\b
  squadron-cad build                         the default kit into out/
  squadron-cad build --tin altoids           a box for an Altoids tin
  squadron-cad build --tin custom --set token.width_mm=30
  squadron-cad build --params mytin.yaml --only box --out mybox  just the box
  squadron-cad fit --params mytin.yaml       the box layout, without rendering
  squadron-cad check                         re-check the kit in out/
  squadron-cad kits                          the games' kits installed (use one with --kit)
  squadron-cad fit --kit squadrons           another game's box layout
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

_STATE: dict[str, Any] = {"debug": False, "json": False, "interrupted": False, "output": None}


def _debug_now(value: bool) -> bool:
    """--debug takes effect as it is parsed (it is eager), so that an error in another
    option's value already shows its traceback."""
    if value:
        _STATE["debug"] = True
    return value


@dataclass(frozen=True)
class SharedOption:
    """One option several commands take: declared once here, attached by `shared`."""

    field: str  # the Shared field it fills
    annotation: Any  # Annotated[type, typer.Option(...)]: what typer reads
    default: Any
    first: bool  # listed before the command's own options (else after them)


SHARED_OPTIONS: dict[str, SharedOption] = {
    "params": SharedOption(
        "params",
        Annotated[
            list[Path] | None,
            typer.Option(
                "--params",
                "-p",
                metavar="FILE",
                help="A YAML parameter file, - for standard input (repeatable; later files win).",
            ),
        ],
        None,
        first=True,
    ),
    "set": SharedOption(
        "overrides",
        Annotated[
            list[str] | None,
            typer.Option(
                "--set",
                "-s",
                metavar="KEY=VALUE",
                help="Override one key: --set token.width_mm=30 (repeatable).",
            ),
        ],
        None,
        first=True,
    ),
    "tin": SharedOption(
        "tin",
        Annotated[
            str | None,
            typer.Option(
                "--tin", metavar="NAME", help="A tin preset of the kit (`squadron-cad tins`)."
            ),
        ],
        None,
        first=True,
    ),
    "kit": SharedOption(
        "kit",
        Annotated[
            str | None,
            typer.Option(
                "--kit",
                "-k",
                metavar="NAME",
                help="Which game's kit (`squadron-cad kits`; default: squadron-leader).",
            ),
        ],
        None,
        first=True,
    ),
    "out": SharedOption(
        "out",
        Annotated[
            Path,
            typer.Option(
                "--out",
                "-o",
                metavar="DIR",
                help="Output folder.",
                parser=lambda v: _out_folder(v),
            ),
        ],
        Path("out"),
        first=True,
    ),
    "backend": SharedOption(
        "backend",
        Annotated[
            str,
            typer.Option(
                "--backend",
                metavar="auto|cgal|manifold",
                help="OpenSCAD's kernel for the STLs: manifold (fast; OpenSCAD 2025, native or "
                "its WebAssembly build via node), cgal (the OpenSCAD on PATH), or auto: "
                "Manifold when it works here, CGAL for any part it gets wrong, else CGAL.",
                parser=lambda v: _backend_choice(v),
            ),
        ],
        "auto",
        first=True,
    ),
    "quiet": SharedOption(
        "quiet",
        Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")],
        False,
        first=False,
    ),
    "verbose": SharedOption(
        "verbose",
        Annotated[bool, typer.Option("--verbose", "-v", help="Also list cosmetic findings.")],
        False,
        first=False,
    ),
    "json": SharedOption(
        "json",
        Annotated[bool, typer.Option("--json", help="JSON Lines on stdout (docs/json-output.md).")],
        False,
        first=False,
    ),
    "debug": SharedOption(
        "debug",
        Annotated[
            bool,
            typer.Option(
                "--debug", help="Show tracebacks on errors.", callback=_debug_now, is_eager=True
            ),
        ],
        False,
        first=False,
    ),
}


@dataclass(frozen=True)
class Shared:
    """The shared options' values one command was given (those it does not take keep
    these defaults)."""

    params: tuple[Path, ...] = ()
    overrides: tuple[str, ...] = ()
    tin: str | None = None
    kit: str | None = None
    out: Path = Path("out")
    backend: str = "auto"
    quiet: bool = False
    verbose: bool = False
    json: bool = False
    debug: bool = False

    @property
    def asked(self) -> bool:
        """Were any parameters given (files, overrides, a tin or a kit)?"""
        return bool(self.params or self.overrides or self.tin or self.kit)

    def parameters(self) -> Any:
        """The resolved parameters: kit defaults, then --tin, then --params, then --set."""
        return resolve(self.params, self.overrides, self.tin, self.kit)

    def show(self, text: str, *, markup: bool = True) -> None:
        """One line of the command's output on stdout (none with --quiet)."""
        if not self.quiet:
            console.stdout.print(text, markup=markup)

    def note(self, text: str, *, markup: bool = True) -> None:
        """One line of commentary on stderr (none with --quiet)."""
        if not self.quiet:
            console.stderr.print(text, markup=markup)


Command = TypeVar("Command", bound=Callable[..., Any])


def shared(*names: str, **defaults: Any) -> Callable[[Command], Command]:
    """Attach shared options (keys of SHARED_OPTIONS; --debug always) to a command whose
    first parameter takes a `Shared`; `defaults` changes one's default (paper's --out).

    The command's signature seen by typer becomes: the shared input options (--params,
    --set, --tin, --kit, --out), the command's own options, then the shared output options
    (--quiet, --verbose, --json, --debug). Annotations are resolved to real types here, as
    this module's are strings (`from __future__ import annotations`)."""
    chosen = [*dict.fromkeys((*names, "debug"))]
    unknown = set(chosen) - SHARED_OPTIONS.keys() or set(defaults) - set(chosen)
    if unknown:
        raise TypeError(f"not shared options of this command: {sorted(unknown)}")

    def attach(command: Command) -> Command:
        hints = get_type_hints(command, include_extras=True)
        own = list(inspect.signature(command).parameters.values())[1:]  # after the Shared
        clash = {p.name for p in own} & set(chosen)
        if clash:
            raise TypeError(f"{command.__name__}: own options named like shared ones: {clash}")

        def option(name: str) -> inspect.Parameter:
            entry = SHARED_OPTIONS[name]
            default = defaults.get(name, entry.default)
            kind = inspect.Parameter.KEYWORD_ONLY
            return inspect.Parameter(name, kind, default=default, annotation=entry.annotation)

        parameters = [
            *(option(name) for name in chosen if SHARED_OPTIONS[name].first),
            *(
                p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[p.name])
                for p in own
            ),
            *(option(name) for name in chosen if not SHARED_OPTIONS[name].first),
        ]

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            values = {SHARED_OPTIONS[name].field: given.pop(name) for name in chosen}
            for field in ("params", "overrides"):  # repeatable: None when not given
                if field in values:
                    values[field] = tuple(values[field] or ())
            if "json" in values:  # an error is then a JSON line too
                _STATE["json"] = bool(values["json"])
            _STATE["output"] = None  # until the command names the folder it swaps files into
            try:
                return command(Shared(**values), **given)
            except KeyboardInterrupt:  # said here: click would turn it into its own "Aborted!"
                raise Interrupted(_interrupted_line()) from None

        signature = inspect.Signature(parameters, return_annotation=None)
        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
        return cast(Command, run)

    return attach


def _pipeline() -> Any:
    """The build machinery, imported when a command needs it (it costs a second: trimesh,
    scipy, the parts), so an unchanged kit's rebuild and the light commands stay quick."""
    from squadron_cad import build

    interrupts.checkpoint()  # a Ctrl-C the imports swallowed
    return build


def _out_folder(text: str | Path) -> Path:
    """--out '' would mean the folder you are in: refuse it as such."""
    if not str(text).strip():
        raise InputError("--out '': give a folder name, e.g. --out out")
    return Path(text)


BACKENDS = ("auto", "cgal", "manifold")  # squadron_cad.render.backends.BACKEND_CHOICES


def _backend_choice(text: str) -> str:
    if text not in BACKENDS:
        raise InputError(f"--backend {text}: choose one of {', '.join(BACKENDS)}")
    return text


def _version(value: bool) -> None:
    if value:
        typer.echo(f"squadron-cad {__version__}")
        raise typer.Exit()


@app.callback()
@shared()
def _global(
    opts: Shared,
    _version_flag: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    """--debug is taken before the command name too (`squadron-cad --debug build`)."""
    _STATE["debug"] = opts.debug


@app.command()
@shared("params", "set", "tin", "kit", "out", "backend", "quiet", "verbose", "json")
def build(
    opts: Shared,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", metavar="PART", help="Build just this part (repeatable)."),
    ] = None,  # type: ignore[assignment]
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=0,
            metavar="N",
            help="Tools run at once: renders, slicers, pictures (0 = one per core).",
        ),
    ] = 0,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Render every part, ignoring the cache.")
    ] = False,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            metavar="DIR",
            envvar=CACHE_ENV,
            help="Keep the render cache in DIR, shared by every --out: parts, figures and "
            "pictures one kit made are reused by the others (default: OUT/.cache). "
            "Safe to delete.",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=1,
            metavar="SECONDS",
            help="Seconds before one part's render is stopped.",
        ),
    ] = 600.0,
    no_previews: Annotated[
        bool, typer.Option("--no-previews", help="Skip the pictures (previews and layout.png).")
    ] = False,
    no_slice: Annotated[
        bool, typer.Option("--no-slice", help="Skip slicing (print time and filament).")
    ] = False,
    keep_failed: Annotated[
        bool,
        typer.Option(
            "--keep-failed",
            help="Put the new kit in OUT even when a check fails, to look at it (default: a "
            "failing kit is discarded and OUT keeps the previous kit).",
        ),
    ] = False,
) -> None:
    """Emit OpenSCAD for every part, render STLs into OUT/stl, check them, write the manifest.

    The kit is built aside and swapped into OUT whole: if the build fails or is
    interrupted, OUT keeps the previous kit untouched (a Ctrl-C during the swap itself
    waits for it; the message says which kit OUT holds). With --only and a kit already in
    OUT, just those parts are rebuilt and the kit's manifest and BOM stay whole.

    Example: squadron-cad build --tin altoids
    """
    _STATE["json"] = opts.json
    out, quiet, verbose, as_json = opts.out, opts.quiet, opts.verbose, opts.json
    kit = opts.parameters()
    unchanged = None
    if not (only or no_cache or keep_failed):
        key = uptodate.build_key(
            kit.model_dump_json(),
            uptodate.options_key(not no_previews, not no_slice, True, opts.backend),
        )
        unchanged = uptodate.up_to_date_manifest(Path(os.path.abspath(out)), key)
    if unchanged is not None:  # nothing to do, and no need to load the machinery to see it
        remove_stale_staging(Path(os.path.realpath(out)))  # a killed build's, as README says
        _report_build(ManifestReport(unchanged, out), quiet=quiet, verbose=verbose, as_json=as_json)
        return
    safe_output_folder(out, "kit")  # a refused folder is said before the meshing stack loads
    if cache is not None:
        shared_cache_folder(cache, Path(out))
    pipeline = _pipeline()
    options = pipeline.BuildOptions(
        out_dir=out,
        only=tuple(only or ()),
        jobs=jobs or None,
        use_cache=not no_cache,
        timeout_s=timeout,
        previews=not no_previews,
        slice=not no_slice,
        keep_failed=keep_failed,
        backend=opts.backend,
        cache_dir=cache,
    )
    total = pipeline.progress_total(kit, options)
    _watch_output(Path(out), "kit")
    with console.build_progress(total, quiet=quiet, as_json=as_json) as progress:
        report = pipeline.build(kit, options, progress)
    _report_build(report, quiet=quiet, verbose=verbose, as_json=as_json)
    if report.failures:
        left = _failed_build_left(report, Path(out))
        raise CheckFailed(f"{len(report.failures)} check(s) failed (see above){left}")


def _failed_build_left(report: pipeline_module.BuildReport | ManifestReport, out: Path) -> str:
    """What a failed build left in the output folder (said after its failures)."""
    if report.committed:
        return f"; the kit is in {out} to look at (--keep-failed)"
    watched = _STATE.get("output")
    if watched is not None and watched[1] is not None:  # the folder held a kit before
        return f"; nothing written: {out} keeps the previous kit"
    return f"; nothing written to {out} (--keep-failed puts the kit there to look at)"


def _watch_output(out: Path, what: str) -> None:
    """Note what the output folder holds before a command swaps new files in, so that an
    interrupt is reported by what it holds after (read off the folder, not guessed)."""
    _STATE["output"] = (out, read_ownership(out), what)


def _what_an_interrupt_left(out: Path, before: Ownership | None, what: str = "kit") -> str:
    now = read_ownership(out)
    if now is not None and (before is None or now.files != before.files):
        return f"interrupted after the swap; {out} holds the new {what}, whole"
    if before is None:
        return f"interrupted; nothing written to {out}"
    return f"interrupted; {out} still holds the previous {what}, untouched"


def _interrupted_line() -> str:
    watched = _STATE.get("output")
    return INTERRUPTED if watched is None else _what_an_interrupt_left(*watched)


class ManifestReport:
    """An unchanged kit's build report, read off its manifest (what _report_build shows)."""

    committed = True

    def __init__(self, data: dict[str, Any], out: Path) -> None:
        self.out_dir = out
        self.rendered: list[str] = []
        self.parts = data["parts"]
        self.seconds = 0.0
        found = [Finding.from_dict(f) for part in self.parts for f in part["checks"]]
        found += [Finding.from_dict(f) for f in data.get("kit_checks", [])]
        self.failures = [f for f in found if f.failed]
        self.warnings = [f for f in found if f.severity == "warning"]
        self.cosmetic = [f for f in found if f.severity == "cosmetic"]
        self.notices = [f"the kit in {out} is up to date: nothing to rebuild"]
        tool = data.get("openscad", {})
        self.tool = ToolInfo(str(tool.get("version")), str(tool.get("backend")))


@dataclass(frozen=True)
class ToolInfo:
    version: str
    backend: str


def _report_build(
    report: pipeline_module.BuildReport | ManifestReport,
    *,
    quiet: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    if as_json:
        _report_build_json(report)
        return
    for finding in report.failures:
        console.stderr.print(f"[red]FAIL[/red] {finding.line()}")
    if quiet:
        return
    for finding in report.warnings:
        console.stderr.print(f"[yellow]warn[/yellow] {finding.line()}")
    for finding in report.cosmetic if verbose else ():
        console.stderr.print(f"note {finding.line()}")
    for notice in report.notices:
        console.stderr.print(f"note: {notice}")
    if not report.committed:
        return
    cached = len(report.parts) - len(report.rendered)
    hidden = len(report.cosmetic)
    more = f"; {hidden} cosmetic note(s) with --verbose" if hidden and not verbose else ""
    console.stderr.print(
        f"built {len(report.parts)} parts in {report.seconds:.1f} s "
        f"({len(report.rendered)} rendered, {cached} unchanged; OpenSCAD "
        f"{report.tool.version}, {report.tool.backend} backend) -> "
        f"{report.out_dir / 'stl'}, manifest {report.out_dir / 'manifest.json'}{more}"
    )


def _report_build_json(report: pipeline_module.BuildReport | ManifestReport) -> None:
    """JSON Lines: a `finding` line per warning or failure, a `notice` line per note, then
    the `built` summary last (fields in docs/json-output.md)."""
    for finding in report.failures + report.warnings + report.cosmetic:
        console.emit_json({"event": "finding", **finding.as_dict()})
    for notice in report.notices:
        console.emit_json({"event": "notice", "message": notice})
    console.emit_json(
        {
            "event": "built",
            "out": str(report.out_dir),
            "committed": report.committed,
            "seconds": round(report.seconds, 3),
            "parts": len(report.parts),
            "rendered": report.rendered,
            "failures": len(report.failures),
            "warnings": len(report.warnings),
        }
    )


@app.command()
@shared("params", "set", "tin", "kit", "out", "quiet", "verbose", "json")
def check(opts: Shared) -> None:
    """Re-check the kit in OUT: every file against its SHA-256, every mesh, the rules.

    The kit is checked with the parameters it was built with (from its manifest), as the
    game it was built for. Give --params, --set or --tin only to ask "would this kit pass
    under other parameters".

    Example: squadron-cad check --out out
    """
    out = opts.out
    named = load_kit(opts.kit).name if opts.kit else None
    built = read_kit(out)
    game = kit_of_manifest(built).name if built else named
    other = opts.params or opts.overrides or opts.tin  # --kit alone asks nothing new
    asked = resolve(opts.params, opts.overrides, opts.tin, game) if other else None
    require_kit(out)  # no kit is said before the meshing stack loads
    if named and named != game:
        raise InputError(
            f"--kit {opts.kit}: {out} holds a {game} kit; check reads the game from its "
            "manifest, so drop --kit"
        )
    checked = _pipeline().check_outputs(out, asked)
    failures = checked.failures
    if opts.json:
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
            elif finding.severity == "cosmetic" and opts.verbose:
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


@app.command()
@shared("params", "set", "tin", "kit", "quiet", "json")
def fit(opts: Shared) -> None:
    """Choose the box layout for the tin and print it, without rendering anything.

    Prints the box's size, where each group of pieces goes, the spare room in every
    direction and what limits it. A tin that is too small is refused (exit 2) naming the
    piece that does not fit and by how many mm.

    Example: squadron-cad fit --tin altoids --set players=1
    """
    chosen = opts.parameters()
    game = kit_of(chosen)
    design = game.design(chosen)
    layout = design.layout
    if layout is None:
        raise InputError(f"the {game.name} kit has no box to fit")
    if opts.json:
        summary = _pipeline().layout_summary(layout)
        pieces = Counter(placed.part for placed in layout.placements)
        console.emit_json({**summary, "pieces": dict(pieces)})
        return
    lines = game.fit_lines(design) if game.fit_lines else [layout.describe()]
    for line in lines:
        opts.show(line, markup=False)


@app.command(name="list")
@shared("params", "set", "tin", "kit", "quiet", "json")
def list_parts(opts: Shared) -> None:
    """List the parts, their files and how many to print for the configured players."""
    kit = opts.parameters()
    rows = [
        {
            "part": spec.name,
            "file": spec.file_name,
            "count": spec.count(kit),
            "group": spec.group,
            "orientation": spec.orientation,
            "alternative_to": spec.alternative_to,
            "replaces": list(spec.replaces),
        }
        for spec in kit_of(kit).parts
    ]
    if opts.json:
        console.emit_json(rows)
        return
    opts.show(f"{kit_of(kit).title} parts for {kit.players} player(s):")
    for row in rows:
        note = f"  (optional, instead of {', '.join(row['replaces'])})" if row["replaces"] else ""
        opts.show(f"  {row['count']:>3} x {row['file']:<24} {row['orientation']}{note}")


@app.command(name="params")
@shared("params", "set", "tin", "kit", "quiet", "json")
def show_params(opts: Shared) -> None:
    """Print the resolved parameters (defaults, tin, files and overrides applied)."""
    data = opts.parameters().model_dump(mode="json")
    if opts.json:
        console.emit_json(data)
    elif not opts.quiet:
        sys.stdout.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


@app.command()
@shared("quiet", "json")
def kits(opts: Shared) -> None:
    """List the installed kits (use one with --kit NAME)."""
    found = installed_kits()
    if opts.json:
        console.emit_json(
            [
                {"name": k.name, "title": k.title, "parts": len(k.parts), "credit": k.credit}
                for k in found.values()
            ]
        )
        return
    for game in found.values():
        opts.show(f"  {game.name:<18} {game.title}: {game.notes}", markup=False)
        opts.show(f"  {'':<18} {len(game.parts)} parts; {game.credit}", markup=False)


@app.command()
@shared("kit", "quiet")
def tins(opts: Shared) -> None:
    """List the kit's tin presets (use one with --tin NAME)."""
    game = load_kit(opts.kit) if opts.kit else default_kit()
    for name in available_tins(game):
        kit = resolve(tin=name, kit=game)
        t = kit.tin
        approx = " (approximate)" if t.approximate else ""
        opts.show(
            f"  {name:<16} {t.inner_length_mm:g} x {t.inner_width_mm:g} x {t.inner_depth_mm:g} mm,"
            f" corner r{t.corner_radius_mm:g}{approx}"
        )


@app.command()
@shared("out", "quiet")
def previews(
    opts: Shared,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=0, metavar="N", help="Parallel jobs (0 = one per core)."),
    ] = 0,
) -> None:
    """Redraw OUT/previews/*.png for the kit in OUT, with its own parameters (build draws
    them too).

    Example: squadron-cad previews --out out
    """
    require_kit(safe_output_folder(opts.out))  # said before the meshing stack loads
    _watch_output(Path(opts.out), "kit")
    pictures = _pipeline().refresh_previews(opts.out, jobs or None)
    opts.show(f"{len(pictures)} pictures in {opts.out / 'previews'}")


@app.command()
@shared("out", "quiet")
def clean(
    opts: Shared,
    cache: Annotated[
        bool, typer.Option("--cache/--keep-cache", help="Remove the render cache too.")
    ] = True,
) -> None:
    """Remove what squadron-cad wrote in OUT: the kit and any paper edition or tolerance
    plate it wrote inside it, only the files its ownership records list and the folders
    it made; a file changed since it was written is yours and kept; anything else is left,
    and said.

    Example: squadron-cad clean --out out
    """
    removed, left, edited = clean_output(opts.out, cache=cache)
    opts.show(f"removed {removed} file(s) from {opts.out}")
    if edited:
        shown = ", ".join(edited[:5]) + (" ..." if len(edited) > 5 else "")
        opts.note(
            f"note: kept {len(edited)} file(s) you changed since squadron-cad wrote them: {shown}"
        )
    if left:
        shown = ", ".join(left[:5]) + (" ..." if len(left) > 5 else "")
        opts.note(f"note: left {len(left)} file(s) squadron-cad did not write: {shown}")


@app.command()
@shared("backend", "quiet")
def docs(
    opts: Shared,
    folder: Annotated[Path, typer.Option("--docs", help="The docs folder.")] = Path("docs"),
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=0, metavar="N", help="Parallel jobs (0 = one per core)."),
    ] = 0,
) -> None:
    """Redraw the README gallery (docs/gallery), the paper pages (docs/paper) and
    docs/parameters.md from the defaults.

    Example: squadron-cad docs
    """
    written = _pipeline().refresh_docs(folder, jobs or None, opts.backend)
    opts.show(f"wrote {len(written)} files under {folder}")


@app.command()
@shared("params", "set", "tin", "kit", "backend", "quiet")
def bench(
    opts: Shared,
    reference: Annotated[
        Path | None,
        typer.Option(
            help="Folder of OpenSCAD files to compare against (default: bench/reference)."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Rounds; medians are quoted.")] = 3,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=0, metavar="N", help="Parallel jobs (0 = one per core)."),
    ] = 0,
    save: Annotated[Path | None, typer.Option(help="Also write the figures as JSON here.")] = None,
) -> None:
    """Time cold, warm and one-change builds against rendering a reference set one by one.

    Example: squadron-cad bench --repeats 3 --reference ~/other-project/scad
    """
    from squadron_cad.bench import format_figures, run_bench  # rarely used: load on demand
    from squadron_cad.render.atomic import write_json

    kit = opts.parameters()
    param_args = [a for path in opts.params for a in ("--params", str(path))]
    param_args += [a for text in opts.overrides for a in ("--set", text)]
    param_args += ["--tin", opts.tin] if opts.tin else []
    param_args += ["--kit", opts.kit] if opts.kit else []
    param_args += ["--backend", opts.backend]
    result = run_bench(kit, param_args, reference, repeats, jobs or None, opts.note).as_dict()
    opts.show(format_figures(result))
    if save:
        write_json(save, result)


@app.command()
@shared("params", "set", "tin", "kit", "out", "quiet", "json", out=Path("out/paper"))
def paper(
    opts: Shared,
    no_previews: Annotated[
        bool, typer.Option("--no-previews", help="Skip the PNG pictures of the pages.")
    ] = False,
) -> None:
    """Write the paper edition into OUT: a vector PDF of every sheet, one SVG per page,
    laser and cutter SVGs (cut and engrave layers) and a PNG of each page.

    Sheets: per player a plane counter, 4 altitude counters and a stat record; the hex
    moves card; the move templates and the range ruler at 1:1; the hex battle mat, tiled
    over pages that overlap and align. Every page carries a 100 mm and a 1 inch scale bar.
    The written PDF is read back and measured; the last lines give the figures.

    Example: squadron-cad paper --set paper.size=letter --out out/paper
    """
    _STATE["json"] = opts.json
    out = opts.out
    kit = opts.parameters()
    game = kit_of(kit)
    if game.paper is None:
        raise InputError(f"the {game.name} kit has no paper edition")
    _watch_output(Path(out), "paper edition")
    report = game.paper(kit, out, not no_previews)
    if opts.json:
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


@app.command()
@shared("params", "set", "tin", "kit", "out", "quiet", "json", out=Path("out/tolerance"))
def tolerance(
    opts: Shared,
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
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=0, metavar="N", help="Parallel jobs (0 = one per core)."),
    ] = 0,
    no_previews: Annotated[
        bool, typer.Option("--no-previews", help="Skip the picture of the plate.")
    ] = False,
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

    interrupts.checkpoint()

    params = opts.parameters()
    game = kit_of(params)
    coupons.coupons_of(game)  # a kit without any says so first
    steps = coupons.Ladder.parse(ladder or coupons.DEFAULT_LADDER)
    if picks and not choose:
        raise InputError(f"{picks[0]}: FIT=MM words are for --choose (--choose {picks[0]})")
    if choose:
        layers = (opts.params, opts.overrides, opts.tin)
        lines = coupons.write_choice(params, game, steps, picks or (), out_params, layers)
    else:
        safe_output_folder(opts.out, coupons.KIND)  # said before the work is announced
        opts.note(f"rendering, measuring and slicing the {game.name} coupons into {opts.out} ...")
        cores = jobs or os.cpu_count() or 1
        _watch_output(Path(opts.out), "tolerance plate")
        lines = coupons.build_lines(params, opts.out, steps, cores, not no_previews)
    for line in lines:
        if opts.json:
            console.emit_json({"event": "tolerance", "message": line})
        else:
            opts.show(line, markup=False)


def _interrupt(signum: int, _frame: Any) -> None:
    """Ctrl-C or SIGTERM: remembered, so that a library that swallows the KeyboardInterrupt
    (trimesh's loaders catch everything) still ends the run as an interruption."""
    _STATE["interrupted"] = True
    interrupts.note_stop()
    raise KeyboardInterrupt(f"signal {signum}")


INTERRUPTED = "interrupted before anything was written"  # each command watches its folder first


def main(argv: list[str] | None = None) -> None:
    """Entry point: one line per error, exit 2 for bad input and 1 for tool failures."""
    previous = {signum: signal.signal(signum, _interrupt) for signum in STOP_SIGNALS}
    if "--debug" not in (sys.argv[1:] if argv is None else argv):
        warnings.simplefilter("ignore")  # numpy's notes on a broken mesh: the finding says it
    args = sys.argv[1:] if argv is None else argv
    # this run's; --json known before parsing, so that a usage error is a JSON line too
    _STATE.update(debug=False, json="--json" in args, interrupted=False, output=None)
    interrupts.forget()
    try:
        with lifeline.run_temporaries():  # removed at the end; a killed run's, by the next
            _run(args)
    except KeyboardInterrupt:  # a second Ctrl-C while the first one's line was being said
        sys.exit(130)
    finally:
        # The run is over and said: a late Ctrl-C must not kill the exit (a process killed
        # by SIGINT, no message). In-process callers get their handlers back.
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if argv is None else handler)


def _run(args: list[str]) -> None:
    click = _click()
    try:
        # Not standalone: click's usage errors reach here, to be said in one line as ours.
        code = app(args=args, prog_name="squadron-cad", standalone_mode=False)
    except click.exceptions.ClickException as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # no command given: the help
            error.show()
            sys.exit(error.exit_code)
        _fail(error, _usage_line(error), error.exit_code)
    except typer.Abort as error:
        _fail(error, _interrupted_line(), 130)
    except KeyboardInterrupt as error:
        _fail(error, _interrupted_line(), 130)
    except SquadronError as error:
        if _STATE["interrupted"] and not isinstance(error, Interrupted):
            _fail(error, _interrupted_line(), 130)
        _fail(error, str(error), error.exit_code)
    except Exception as error:  # never a raw traceback for a maker; --debug shows it
        if _STATE["interrupted"]:
            _fail(error, _interrupted_line(), 130)
        _fail(error, f"internal error: {type(error).__name__}: {error} (rerun with --debug)", 1)
    sys.exit(code if isinstance(code, int) else 0)  # --help and the like return theirs


def _click() -> Any:
    """The click typer runs on: its own copy since typer 0.2x, the click package before."""
    try:
        from typer import _click as vendored  # type: ignore[attr-defined]
    except ImportError:
        import click

        return click
    return vendored


def _usage_line(error: Any) -> str:
    """A click usage error in one line, with where to read the command's options."""
    context = getattr(error, "ctx", None)
    where = f" (see {context.command_path} --help)" if context is not None else ""
    return f"{error.format_message()}{where}"


def _fail(error: BaseException | None, line: str, code: int) -> None:
    if _STATE["debug"] and error is not None:
        raise error
    if _STATE["json"]:  # scripts read stdout: the error is the last JSON line there too
        console.emit_json({"event": "error", "message": line, "exit_code": code})
    print(f"squadron-cad: error: {line}", file=sys.stderr)
    sys.exit(code)

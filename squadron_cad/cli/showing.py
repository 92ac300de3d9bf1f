"""How a build's report is shown: findings and notes on stderr, the summary line, or JSON
Lines for scripts (fields in docs/json-output.md)."""

from __future__ import annotations

from pathlib import Path

from squadron_cad import console
from squadron_cad.cli.session import Session
from squadron_cad.pipeline.report import BuildReport


def show_build(report: BuildReport, *, quiet: bool, verbose: bool, as_json: bool) -> None:
    if as_json:
        _build_as_json(report)
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


def _build_as_json(report: BuildReport) -> None:
    """JSON Lines: a `finding` line per warning or failure, a `notice` line per note, then
    the `built` summary last."""
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


def failed_build_left(report: BuildReport, out: Path, session: Session) -> str:
    """What a failed build left in the output folder (said after its failures)."""
    if report.committed:
        return f"; the kit is in {out} to look at (--keep-failed)"
    watched = session.watched
    if watched is not None and watched.before is not None:  # the folder held a kit before
        return f"; nothing written: {out} keeps the previous kit"
    return f"; nothing written to {out} (--keep-failed puts the kit there to look at)"

"""What a build refuses to do to a folder or a kit before it starts: replace another game's
kit, carry a file changed since the build into the kit's record as if it were built, or
render a box that no bed holds. Each refusal is one line a maker can act on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from squadron_cad.checks.findings import Finding
from squadron_cad.errors import InputError
from squadron_cad.outfolder import PREVIEWS_NAME, refused_replacing
from squadron_cad.outputs import bom
from squadron_cad.render.cache import file_sha256


def refuse_another_game(out: Path, existing: dict[str, Any] | None, game: str) -> None:
    """Another game's kit is not replaced by a slip of --out or --kit (new parameters for
    the same game replace its kit, as they must)."""
    held = (existing or {}).get("kit") or {}
    name = held.get("name") if isinstance(held, dict) else None
    if name and name != game:
        example = f" (e.g. --out out-{game})"
        raise refused_replacing(f"--out {out}", f"the {name} kit", f"the {game} kit", example)


def refuse_changed_files(
    out: Path,
    data: dict[str, Any],
    written_anew: Callable[[str], bool],
    advice: Callable[[str], str],
) -> None:
    """Refuse work that would carry a kit file changed since the build (other than one it
    writes anew) into the kit's record as if it were built; advice(that file) ends the
    line."""
    changed = changed_files(out, data)
    kept = [rel for rel in changed if not written_anew(rel)]
    if kept:
        more = f" (+{len(kept) - 1} more)" if len(kept) > 1 else ""
        raise InputError(
            f"{kept[0]} is {changed[kept[0]][0]} since the build{more}: {advice(kept[0])}"
        )


def rebuild_it_too(rel: str) -> str:
    """--only keeps the rest of the kit as built: what to rebuild instead."""
    part = part_of(rel)
    also = f"rebuild it too (--only {part}) or the whole kit" if part else "rebuild the kit"
    return f"--only keeps it as it is; {also}"


def written_anew(rel: str, rebuilt: Sequence[str]) -> bool:
    """Whether an --only build writes rel again: the rebuilt parts' files, the BOM, the
    pictures."""
    return is_picture(rel) or rel in bom.FILES or part_of(rel) in rebuilt


def is_picture(rel: str) -> bool:
    return rel.startswith(f"{PREVIEWS_NAME}/")


def part_of(rel: str) -> str | None:
    """The part whose STL or SCAD rel is (a player's copy included), or None."""
    return Path(rel).name.split(".")[0] if rel.split("/", 1)[0] in ("stl", "scad") else None


def redraw_advice(out: Path) -> str:
    """Pictures are drawn from the kit's files as built."""
    return (
        f"rebuild the kit (squadron-cad build --out {out}) before redrawing its pictures; "
        "`squadron-cad check` lists every change"
    )


def changed_files(out_dir: Path, data: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """Each file the manifest names that is missing or changed since the build: its state
    ("missing" or "changed"), its SHA-256 now and the manifest's."""
    found = {}
    for rel, expected in data.get("files", {}).items():
        path = out_dir / rel
        actual = file_sha256(path) if path.is_file() else "missing"
        if actual != expected:
            found[rel] = ("missing" if actual == "missing" else "changed", actual, expected)
    return found


def integrity_findings(out_dir: Path, data: dict[str, Any]) -> list[Finding]:
    """Each file the manifest names, present and unchanged since the build."""
    return [
        Finding(
            Path(rel).stem if rel.startswith("stl/") else "kit",
            "sha256",
            actual[:16],
            expected[:16],
            "error",
            f"{rel} is {state} since the build",
        )
        for rel, (state, actual, expected) in changed_files(out_dir, data).items()
    ]

"""Several parts in one PrusaSlicer process, where that costs less than one process each.

PrusaSlicer given several STLs (without --merge) slices each on its own, with the same
settings, into <stem>.gcode in the output folder: the per-part figures are those of a
part sliced alone (measured on the default kit, 2.5.0: filament equal to 0.01 mm, print
time within the slicer's own run-to-run scatter), and the start-up a process costs
(0.1 CPU-s, most of a small part's slicing) is paid once. 14 parts: 5.3 CPU-s one per
process, 4.1 in one.

The parts are dealt into at most `jobs` batches, heaviest first into the lightest batch,
so the workers end together; a batch holds parts of one turn on the bed (--rotate is for
all its inputs). Isolation is kept: a part the bed model says does not fit is never
batched, and a batch the slicer fails is sliced again one part per process, so each part's
own refusal is reported and the others' figures are kept.
"""

from __future__ import annotations

import math
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from squadron_cad.bed import Bed, place_mesh
from squadron_cad.checks.mesh import load_mesh, mesh_volume
from squadron_cad.checks.slicer import (
    SlicerError,
    SliceResult,
    SlicerRuns,
    SliceSettings,
    parse_gcode,
)


@dataclass(frozen=True)
class Planned:
    """A part to slice: its name, STL, its turn on the bed and its weight (the work its
    slicing takes, roughly: its volume)."""

    name: str
    stl: Path
    turn_deg: float
    weight: float


@dataclass
class Batch:
    turn_deg: float
    parts: list[Planned] = field(default_factory=list)

    @property
    def weight(self) -> float:
        return sum(part.weight for part in self.parts)


def deal(parts: Sequence[Planned], jobs: int) -> list[Batch]:
    """At most `jobs` batches per turn (usually every part lies unturned), heaviest part
    first into the lightest batch."""
    batches: list[Batch] = []
    for turn in dict.fromkeys(part.turn_deg for part in parts):
        group = sorted((p for p in parts if p.turn_deg == turn), key=lambda p: -p.weight)
        bins = [Batch(turn) for _ in range(max(1, min(jobs, len(group))))]
        for part in group:
            min(bins, key=lambda batch: batch.weight).parts.append(part)
        batches += bins
    return sorted(batches, key=lambda batch: -batch.weight)


def batch_command(
    path: str, parts: Sequence[Planned], settings: SliceSettings, turn_deg: float, folder: Path
) -> list[str]:
    """One slicer for several parts, each centred on the bed and written to folder."""
    turn = ["--rotate", f"{turn_deg:g}"] if turn_deg else []
    sources = [str(part.stl.resolve()) for part in parts]
    return [path, "--loglevel", "1", *settings.arguments(), *turn, "-o", f"{folder}/", *sources]


def slice_batch(
    path: str, batch: Batch, settings: SliceSettings, runs: SlicerRuns
) -> dict[str, SliceResult]:
    """Each part's figures, from one slicer process; SlicerError if it fails at all."""
    with tempfile.TemporaryDirectory(prefix="squadron-slice-") as folder:
        home = Path(folder)
        command = batch_command(path, batch.parts, settings, batch.turn_deg, home)
        _run(command, home, settings.timeout_s * len(batch.parts), runs)
        results = {}
        for part in batch.parts:
            gcode = home / f"{part.stl.stem}.gcode"
            if not gcode.is_file():
                raise SlicerError(f"the slicer wrote no G-code for {part.name}")
            results[part.name] = parse_gcode(gcode.read_text(errors="replace"))
        return results


def _run(command: list[str], home: Path, timeout_s: float, runs: SlicerRuns) -> None:
    env = {**os.environ, "HOME": str(home)}  # not the user's own settings
    try:
        process = runs.start(command, env, home)
    except OSError as error:
        raise SlicerError(f"cannot run {command[0]}: {error}") from error
    try:
        process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        process.kill()
        process.communicate()
        raise SlicerError(f"a batch took over {timeout_s:g} s") from error
    finally:
        runs.finished(process)
    if process.returncode != 0:
        raise SlicerError(f"a batch failed (exit {process.returncode})")


def plan(name: str, stl: Path, settings: SliceSettings) -> Planned | None:
    """How a part is sliced: its turn and weight, or None when the bed model says it fits
    at no turn (it is sliced alone, where its refusal is its own)."""
    mesh = load_mesh(stl)
    bed = Bed(settings.bed_length_mm, settings.bed_width_mm, math.inf)
    placed = place_mesh(mesh, bed)
    if not placed.fits:
        return None
    return Planned(name, stl, placed.turn_deg, abs(mesh_volume(mesh)))


def run_batch(
    path: str,
    batch: Batch,
    settings: SliceSettings,
    runs: SlicerRuns,
    keep: Callable[[str, SliceResult], None],
    alone: Callable[[str], None],
) -> None:
    """Slice a batch: each result to keep(name, result); a batch of one part, or one the
    slicer failed, part by part through alone(name)."""
    if runs.stopped:
        return
    if len(batch.parts) == 1:
        alone(batch.parts[0].name)
        return
    try:
        results = slice_batch(path, batch, settings, runs)
    except SlicerError:
        if runs.stopped:
            return
        for part in batch.parts:  # isolated: each part's own outcome
            alone(part.name)
        return
    for name, result in results.items():
        keep(name, result)

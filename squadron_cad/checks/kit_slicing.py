"""A kit's slicing: its parts sliced in parallel (in batches, from the cache where they
were sliced before), the per-player figures and the findings the BOM and the build print.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from squadron_cad.checks import slicer_batch
from squadron_cad.checks.findings import Finding, Severity
from squadron_cad.checks.slicer import (
    SOLID_INFILL_BELOW_AREA_MM2,
    SliceCache,
    SlicerError,
    SliceResult,
    SlicerRuns,
    SliceSettings,
    find_slicer,
    slice_part,
    slicer_version,
)
from squadron_cad.kit import Part, kit_of
from squadron_cad.params import KitParamsBase


@dataclass
class KitSlice:
    settings: SliceSettings
    results: dict[str, SliceResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    unplaced: dict[str, str] = field(default_factory=dict)  # optional parts not sliced
    cached: list[str] = field(default_factory=list)
    skipped: str | None = None  # why nothing was sliced
    version: str = ""
    seconds: float = 0.0


def _wanted(params: KitParamsBase, stl_dir: Path, parts: Iterable[str] | None) -> list[Part]:
    """The parts to slice: those named, in the order named (the longest first keeps the
    workers busy to the end), else those the kit prints, in its order."""
    names = list(parts) if parts is not None else None
    chosen = []
    for spec in kit_of(params).parts:
        if names is not None and spec.name not in names:
            continue
        if names is None and spec.count(params) == 0:
            continue  # alternatives nobody prints by default
        if (stl_dir / spec.file_name).is_file():
            chosen.append(spec)
    if names is not None:
        chosen.sort(key=lambda spec: names.index(spec.name))
    return chosen


def slice_kit(
    params: KitParamsBase,
    stl_dir: Path,
    *,
    cache_dir: Path | None = None,
    jobs: int | None = None,
    parts: Iterable[str] | None = None,
    executable: str | None = None,
    runs: SlicerRuns | None = None,
) -> KitSlice:
    """Slice the kit's parts (those it prints, or `parts`) in parallel, using the cache;
    `runs.cancel()` from another thread stops it."""
    started = time.perf_counter()
    settings = SliceSettings.from_params(params)
    outcome = KitSlice(settings)
    if not params.slicer.enabled:
        outcome.skipped = "slicer.enabled is false"
        return outcome
    path, reason = find_slicer(executable)
    if path is None:
        outcome.skipped = reason
        return outcome
    outcome.version = slicer_version(path)
    cache = SliceCache(cache_dir)
    runs = runs or SlicerRuns()
    workers = max(1, jobs or os.cpu_count() or 1)
    wanted = _wanted(params, stl_dir, parts)
    # each STL read and hashed once: the lookup, a batch's store and a lone slice share it
    keys = {
        spec.name: SliceCache.key(stl_dir / spec.file_name, settings, outcome.version)
        for spec in wanted
    }
    pending = [spec for spec in wanted if not _cached(spec, keys[spec.name], cache, outcome)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(work)
            for work in _batched(
                pending, params, stl_dir, path, cache, outcome, runs, workers, keys
            )
        ]
        for future in futures:
            future.result()  # anything but a SlicerError is a bug: let it surface
    outcome.seconds = time.perf_counter() - started
    return outcome


def _cached(spec: Part, key: str, cache: SliceCache, outcome: KitSlice) -> bool:
    result = cache.get(key)
    if result is not None:
        outcome.results[spec.name] = result
        outcome.cached.append(spec.name)
    return result is not None


def _batched(
    specs: list[Part],
    params: KitParamsBase,
    stl_dir: Path,
    path: str,
    cache: SliceCache,
    outcome: KitSlice,
    runs: SlicerRuns,
    workers: int,
    keys: dict[str, str],
) -> list[Callable[[], None]]:
    """The work, one task per batch of parts sliced in one process (slicer_batch); a part
    the bed model refuses, one alone (a part not printed with these parameters: `optional`)."""

    by_name = {spec.name: spec for spec in specs}

    def alone(name: str) -> None:
        spec = by_name[name]
        optional = spec.count(params) == 0
        stl = stl_dir / spec.file_name
        _one(spec, stl, keys[name], path, cache, outcome, runs, optional=optional)

    def keep(name: str, result: SliceResult) -> None:
        outcome.results[name] = cache.put(keys[name], result)

    plans = {
        spec.name: slicer_batch.plan(spec.name, stl_dir / spec.file_name, outcome.settings)
        for spec in specs
    }
    tasks: list[Callable[[], None]] = [
        partial(alone, name) for name, plan in plans.items() if plan is None
    ]
    batches = slicer_batch.deal([plan for plan in plans.values() if plan is not None], workers)
    run = slicer_batch.run_batch
    tasks += [partial(run, path, batch, outcome.settings, runs, keep, alone) for batch in batches]
    return tasks


def _one(
    spec: Part,
    stl: Path,
    key: str,
    path: str,
    cache: SliceCache,
    outcome: KitSlice,
    runs: SlicerRuns,
    optional: bool = False,
) -> None:
    """Slice one part into `outcome`. A part the kit does not print by default (an
    alternative, or none to print with these parameters) that fails is only a warning."""
    if runs.stopped:
        return
    result = cache.get(key)
    if result is not None:
        outcome.results[spec.name] = result
        outcome.cached.append(spec.name)
        return
    try:
        result = slice_part(stl, outcome.settings, executable=path, name=spec.name, runs=runs)
    except SlicerError as error:  # too big for the bed, refused, timed out
        if spec.replaces:  # optional: the parts it stands in for are printed instead
            outcome.unplaced[spec.name] = f"{error}; print {', '.join(spec.replaces)} instead"
        elif optional:
            outcome.unplaced[spec.name] = f"{error}; not printed with these parameters"
        else:
            outcome.errors[spec.name] = str(error)
        return
    if result is not None:
        outcome.results[spec.name] = cache.put(key, result)


def player_set(params: KitParamsBase) -> dict[str, int]:
    """One player's parts and how many of each (the kit's parts of the player group)."""
    return {
        spec.name: spec.count(params) // params.players
        for spec in kit_of(params).parts
        if spec.group == "player" and spec.count(params) > 0
    }


def _totals(results: dict[str, SliceResult], counts: dict[str, int]) -> dict[str, Any]:
    missing = sorted(name for name in counts if name not in results)
    pick = {name: n for name, n in counts.items() if name in results}
    return {
        "filament_mm": round(sum(results[n].filament_mm * k for n, k in pick.items()), 1),
        "filament_g": round(sum(results[n].filament_g * k for n, k in pick.items()), 2),
        "print_seconds": round(sum(results[n].print_seconds * k for n, k in pick.items())),
        "parts": pick,
        "missing": missing,
    }


def slicer_summary(params: KitParamsBase, kit: KitSlice) -> dict[str, Any]:
    """What the manifest records under "slicer"."""
    settings = asdict(kit.settings)
    settings["solid_infill_below_area_mm2"] = SOLID_INFILL_BELOW_AREA_MM2
    if kit.skipped:
        return {"skipped": kit.skipped, "settings": settings}
    parts = kit_of(params).parts
    counts = {spec.name: spec.count(params) for spec in parts if spec.count(params) > 0}
    player = _totals(kit.results, player_set(params))
    budget = params.slicer.player_budget_mm
    player["budget_mm"] = budget
    player["within_budget"] = not player["missing"] and player["filament_mm"] <= budget
    return {
        "slicer": kit.version,
        "settings": settings,
        "parts": {
            name: {
                **result.as_dict(),
                "print_time": format_duration(result.print_seconds),
                "count": counts.get(name, 0),
            }
            for name, result in sorted(kit.results.items())
        },
        "per_player": player,
        "kit": _totals(kit.results, counts),
        "errors": dict(sorted(kit.errors.items())),
        "cached": sorted(kit.cached),
        "seconds": round(kit.seconds, 2),
    }


def format_duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m {secs}s" if hours else f"{minutes}m {secs}s"


def slicer_findings(params: KitParamsBase, kit: KitSlice) -> list[Finding]:
    """A part the slicer refused is an error; a set over the filament budget a warning."""
    findings = [
        Finding(name, "slices", "failed", "sliced by PrusaSlicer", "error", message)
        for name, message in sorted(kit.errors.items())
    ]
    findings += [
        Finding(name, "slices", "not sliced", "sliced by PrusaSlicer", "warning", message)
        for name, message in sorted(kit.unplaced.items())
    ]
    if kit.skipped:
        return [*findings, Finding("kit", "filament_budget", "not sliced", "", "info", kit.skipped)]
    summary = _totals(kit.results, player_set(params))
    budget = params.slicer.player_budget_mm
    measured = summary["filament_mm"]
    ok = not summary["missing"] and measured <= budget
    message = (
        ""
        if ok
        else (
            f"one player's set needs {measured:g} mm of filament, over slicer.player_budget_mm "
            f"({budget:g})"
            if not summary["missing"]
            else f"not sliced: {summary['missing']}"
        )
    )
    severity: Severity = "ok" if ok else "warning"
    return [
        *findings,
        Finding("player_set", "filament_budget", measured, f"<= {budget:g} mm", severity, message),
    ]

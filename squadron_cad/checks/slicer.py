"""Filament and print time from a real slicer: PrusaSlicer's command line, headless.

Each part is sliced alone, centred on the configured bed, with the settings of the
`slicer` parameter section; the G-code's closing comments give the estimated time and the
filament used. Results are cached by the STL's sha256, the settings and the slicer's
version, so an unchanged part is never sliced twice.

Settings left out keep PrusaSlicer's own defaults (3 top and 3 bottom solid layers, one
skirt loop, 0.4 mm nozzle) except two that would otherwise misstate a 0.2 mm, 15 % print:
the first layer (PrusaSlicer's bare default is 0.35 mm) and `solid_infill_below_area`
(bare default 70 mm2, which fills small parts such as our tokens solid regardless of the
infill density). Both take the values of Prusa's own 0.20 mm print profiles.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

from squadron_cad import bed as bed_model
from squadron_cad import lifeline
from squadron_cad.bed import Bed, Placement, place_mesh
from squadron_cad.checks.findings import Finding, Severity
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.errors import ToolError
from squadron_cad.kit import Part, kit_of
from squadron_cad.locks import folder_lock
from squadron_cad.params import KitParamsBase
from squadron_cad.versions import code_version

EXECUTABLE = "prusa-slicer"
SOLID_INFILL_BELOW_AREA_MM2 = 0  # Prusa's 0.20 mm profiles (PrusaResearch.ini, *common*)
# Seams at the rear: the aligned placer's visibility raycast was half of the box's slice
# (14.6 s -> 7.3 s), and filament and print time moved under 0.01 % (measured, 2.5.0).
SEAM_POSITION = "rear"
ABORTED = 134  # PrusaSlicer aborts (SIGABRT) on some impossible jobs
CACHE_FILE = "slicer.json"
CACHE_VERSION = code_version(sys.modules[__name__])  # its settings and parsing: this source
BED_MODEL_VERSION = code_version(bed_model)  # the turn a part is sliced at comes from it
_TIME = re.compile(r"^; estimated printing time \(normal mode\) = (.+)$", re.MULTILINE)
_FILAMENT_MM = re.compile(r"^; filament used \[mm\] = ([\d.]+)", re.MULTILINE)
_FILAMENT_G = re.compile(r"^; filament used \[g\] = ([\d.]+)", re.MULTILINE)
_DURATION = re.compile(r"(\d+)\s*([dhms])")
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_LOG_LINE = re.compile(r"^\[[\d-]+ [\d:.]+\] \[\w+\] \[(trace|debug|info)\]")  # not its reason


class SlicerError(ToolError):
    """The slicer ran but gave no usable result (too big, timed out, crashed, no figures)."""


class TooBig(SlicerError):
    """The part fits the bed at no turn."""


@dataclass(frozen=True)
class SliceSettings:
    layer_height_mm: float
    first_layer_height_mm: float
    infill_percent: int
    perimeters: int
    filament_diameter_mm: float
    filament_density_g_cm3: float
    bed_length_mm: float
    bed_width_mm: float
    timeout_s: float = 120.0

    @classmethod
    def from_params(cls, params: KitParamsBase) -> SliceSettings:
        s, printer = params.slicer, params.printer
        return cls(
            layer_height_mm=s.layer_height_mm,
            first_layer_height_mm=s.first_layer_height_mm,
            infill_percent=s.infill_percent,
            perimeters=s.perimeters,
            filament_diameter_mm=s.filament_diameter_mm,
            filament_density_g_cm3=s.filament_density_g_cm3,
            bed_length_mm=printer.bed_length_mm,
            bed_width_mm=printer.bed_width_mm,
            timeout_s=s.timeout_s,
        )

    def arguments(self) -> list[str]:
        x, y = self.bed_length_mm, self.bed_width_mm
        return [
            "--export-gcode",
            "--layer-height", f"{self.layer_height_mm:g}",
            "--first-layer-height", f"{self.first_layer_height_mm:g}",
            "--fill-density", f"{self.infill_percent}%",
            "--perimeters", str(self.perimeters),
            "--solid-infill-below-area", f"{SOLID_INFILL_BELOW_AREA_MM2:g}",
            "--filament-diameter", f"{self.filament_diameter_mm:g}",
            "--filament-density", f"{self.filament_density_g_cm3:g}",
            "--seam-position", SEAM_POSITION,
            "--bed-shape", f"0x0,{x:g}x0,{x:g}x{y:g},0x{y:g}",
            "--center", f"{x / 2:g},{y / 2:g}",
        ]  # fmt: skip

    def key(self) -> str:
        """What changes a result: every argument and the bed model that turns the part (the
        timeout does not)."""
        return " ".join([f"v{CACHE_VERSION}", f"bed {BED_MODEL_VERSION}", *self.arguments()])


@dataclass(frozen=True)
class SliceResult:
    print_seconds: float
    filament_mm: float
    filament_g: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


# ---- one part ------------------------------------------------------------------------------


def find_slicer(executable: str | None = None) -> tuple[str | None, str]:
    """The slicer's path, or None and why not."""
    name = executable or os.environ.get("SQUADRON_CAD_SLICER") or EXECUTABLE
    path = shutil.which(name)
    if path is None:
        return None, f"{name} is not installed (sudo apt-get install prusa-slicer)"
    return path, ""


@cache
def slicer_version(path: str) -> str:
    """e.g. 'PrusaSlicer-2.5.0+UNKNOWN'; part of the cache key."""
    try:
        run = subprocess.run(
            [path, "--help"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SlicerError(f"{path} --help failed: {error}") from error
    for line in run.stdout.splitlines():
        if line.startswith("PrusaSlicer") or "based on Slic3r" in line:
            return line.split(" based on")[0].strip()
    return "unknown"


def parse_duration(text: str) -> float:
    """'1h 2m 7s' -> 3727 seconds."""
    parts = _DURATION.findall(text)
    if not parts:
        raise SlicerError(f"cannot read the print time {text!r}")
    return float(sum(int(value) * _SECONDS[unit] for value, unit in parts))


def parse_gcode(text: str) -> SliceResult:
    """The figures PrusaSlicer writes in the G-code's closing comments."""
    found = [pattern.search(text) for pattern in (_TIME, _FILAMENT_MM, _FILAMENT_G)]
    figures = [match.group(1) for match in found if match is not None]
    if len(figures) < len(found):
        raise SlicerError("the G-code lacks PrusaSlicer's time and filament comments")
    duration, length, weight = figures
    return SliceResult(parse_duration(duration), float(length), float(weight))


def placement(stl: Path, settings: SliceSettings) -> Placement:
    """How the part lies on the configured bed (the one bed model: any turn about z)."""
    bed = Bed(settings.bed_length_mm, settings.bed_width_mm, math.inf)
    return place_mesh(load_mesh(stl), bed)


def too_big(name: str, size: tuple[float, float], settings: SliceSettings) -> str:
    return (
        f"part {name} ({size[0]:.1f} x {size[1]:.1f} mm) does not fit the "
        f"{settings.bed_length_mm:g} x {settings.bed_width_mm:g} mm bed at any turn "
        "(printer.bed_length_mm, printer.bed_width_mm)"
    )


def slice_command(
    path: str, stl: Path, settings: SliceSettings, placed: Placement, gcode: Path
) -> list[str]:
    """The slicer's command line: the part turned as the bed model lays it (as on the
    plates) and centred on the bed."""
    turn = ["--rotate", f"{placed.turn_deg:g}"] if placed.turn_deg else []
    source = str(stl.resolve())  # the slicer runs in a temporary folder
    return [path, "--loglevel", "1", *settings.arguments(), *turn, "-o", str(gcode), source]


def slice_part(
    stl: Path,
    settings: SliceSettings,
    *,
    executable: str | None = None,
    name: str | None = None,
    runs: SlicerRuns | None = None,
) -> SliceResult | None:
    """Slice one STL. None when PrusaSlicer is not installed (`find_slicer` says why);
    SlicerError when it cannot be sliced (too big for the bed, timeout, crash)."""
    path, _reason = find_slicer(executable)
    if path is None:
        return None
    name = name or stl.stem
    placed = placement(stl, settings)
    size = placed.size_mm
    if not placed.fits:
        raise TooBig(too_big(name, size, settings))
    with tempfile.TemporaryDirectory(prefix="squadron-slice-") as folder:
        gcode = Path(folder) / f"{name}.gcode"
        command = slice_command(path, stl, settings, placed, gcode)
        _run(command, name, size, settings, Path(folder), runs or SlicerRuns())
        return parse_gcode(gcode.read_text(errors="replace"))


def _run(
    command: list[str],
    name: str,
    size: tuple[float, float],
    settings: SliceSettings,
    home: Path,
    runs: SlicerRuns,
) -> None:
    # A private HOME keeps the slicer from reading or writing the user's own settings.
    env = {**os.environ, "HOME": str(home)}
    try:
        process = runs.start(command, env, home)
    except OSError as error:
        raise SlicerError(f"cannot run {command[0]}: {error}") from error
    try:
        stdout, stderr = process.communicate(timeout=settings.timeout_s)
    except subprocess.TimeoutExpired as error:
        process.kill()
        process.communicate()
        raise SlicerError(
            f"slicing {name} took over {settings.timeout_s:g} s (slicer.timeout_s)"
        ) from error
    finally:
        runs.finished(process)
    if process.returncode != 0:  # in PrusaSlicer's own words: ours would be a guess
        aborted = process.returncode in (ABORTED, -6)  # 134 from a shell, -6 from Python
        how = "it aborted" if aborted else f"exit {process.returncode}"
        raise SlicerError(
            f"PrusaSlicer refused {name} ({size[0]:.1f} x {size[1]:.1f} mm): "
            f"{its_words(stderr + stdout)} ({how})"
        )


def its_words(output: str) -> str:
    """What PrusaSlicer said when it gave up: the error it aborted with (its `what():`
    line, e.g. 'Objects could not fit on the bed'), else its last lines but the log's."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    thrown = [line.split("what():", 1)[1].strip() for line in lines if "what():" in line]
    if thrown:
        return "; ".join(thrown)
    said = [line for line in lines if not _LOG_LINE.match(line)]
    return " / ".join(said[-3:]) or "no message"


@dataclass
class SlicerRuns:
    """The slicers of one slice_kit call, so that a build interrupted while it slices in the
    background stops them at once instead of waiting for them at exit. With `slots`, each
    slicer holds one while it runs: the build shares them with the pictures' OpenSCAD."""

    slots: threading.Semaphore | None = None
    stopped: bool = False
    live: set[subprocess.Popen[str]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, command: list[str], env: dict[str, str], home: Path) -> subprocess.Popen[str]:
        if self.slots is not None:
            self.slots.acquire()
        try:
            with self.lock:  # checked and registered at once: a cancel cannot slip in between
                if self.stopped:
                    raise SlicerError("slicing cancelled")
                process = subprocess.Popen(
                    lifeline.tied(command),  # dies with a build killed outright
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=env,
                    cwd=home,
                )
                self.live.add(process)
        except BaseException:
            self._release()
            raise
        return process

    def finished(self, process: subprocess.Popen[str]) -> None:
        with self.lock:
            self.live.discard(process)
        self._release()

    def _release(self) -> None:
        if self.slots is not None:
            self.slots.release()

    def cancel(self) -> None:
        """Kill every slicer under way and start no other."""
        with self.lock:
            self.stopped = True
            running = list(self.live)
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.kill()


# ---- the cache -----------------------------------------------------------------------------


class SliceCache:
    """Results by STL sha256 + settings + slicer version, in one small JSON file."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / CACHE_FILE if folder is not None else None
        self.lock = threading.Lock()
        self.entries: dict[str, dict[str, float]] = self._load()

    def _load(self) -> dict[str, dict[str, float]]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}  # a damaged cache is only a slower build
        return data if isinstance(data, dict) else {}

    @staticmethod
    def key(stl: Path, settings: SliceSettings, version: str) -> str:
        digest = hashlib.sha256(stl.read_bytes()).hexdigest()
        return hashlib.sha256(f"{digest}|{settings.key()}|{version}".encode()).hexdigest()

    def get(self, key: str) -> SliceResult | None:
        return _result_of(self.entries.get(key))

    def put(self, key: str, result: SliceResult) -> SliceResult:
        """Store a part's result and return the one the cache keeps: another build's for
        the same part, stored first, wins. PrusaSlicer's figures for the same STL vary
        from run to run (a second of print time), so builds sharing a --cache-dir that
        slice a part at once would otherwise each report their own."""
        with self.lock:
            self.entries[key] = result.as_dict()
            if self.path is None:
                return result
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with folder_lock(self.path.parent):  # builds sharing a --cache-dir: merge, lose none
                stored = {k: v for k, v in self._load().items() if _result_of(v) is not None}
                self.entries = {**self.entries, **stored}
                temporary = self.path.with_suffix(f".tmp{os.getpid()}.{threading.get_ident()}")
                temporary.write_text(json.dumps(self.entries, indent=1, sort_keys=True))
                temporary.replace(self.path)  # atomic: a reader never sees half a file
            kept = _result_of(self.entries[key])
            return kept if kept is not None else result


def _result_of(entry: Any) -> SliceResult | None:
    """A cached entry as a result, or None when it is missing or damaged."""
    try:
        return SliceResult(**entry) if isinstance(entry, dict) and entry else None
    except TypeError:
        return None


# ---- the kit -------------------------------------------------------------------------------


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
    pending = [
        spec
        for spec in _wanted(params, stl_dir, parts)
        if not _cached(spec, stl_dir, cache, outcome)
    ]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(work)
            for work in _batched(pending, params, stl_dir, path, cache, outcome, runs, workers)
        ]
        for future in futures:
            future.result()  # anything but a SlicerError is a bug: let it surface
    outcome.seconds = time.perf_counter() - started
    return outcome


def _cached(spec: Part, stl_dir: Path, cache: SliceCache, outcome: KitSlice) -> bool:
    result = cache.get(SliceCache.key(stl_dir / spec.file_name, outcome.settings, outcome.version))
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
) -> list[Callable[[], None]]:
    """The work, one task per batch of parts sliced in one process (slicer_batch); a part
    the bed model refuses, one alone (a part not printed with these parameters: `optional`)."""
    from squadron_cad.checks import slicer_batch  # it builds on this module

    by_name = {spec.name: spec for spec in specs}

    def alone(name: str) -> None:
        spec = by_name[name]
        optional = spec.count(params) == 0
        _one(spec, stl_dir / spec.file_name, path, cache, outcome, runs, optional=optional)

    def keep(name: str, result: SliceResult) -> None:
        key = SliceCache.key(stl_dir / by_name[name].file_name, outcome.settings, outcome.version)
        outcome.results[name] = cache.put(key, result)

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
    key = SliceCache.key(stl, outcome.settings, outcome.version)
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

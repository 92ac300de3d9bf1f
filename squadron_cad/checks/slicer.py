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
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from squadron_cad import bed as bed_model
from squadron_cad import lifeline
from squadron_cad.bed import Bed, Placement, place_mesh
from squadron_cad.checks.mesh import load_mesh
from squadron_cad.errors import ToolError
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

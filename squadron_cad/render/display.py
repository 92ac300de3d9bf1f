"""A display for OpenSCAD's PNG export: a private Xvfb on Linux, else $DISPLAY.

OpenSCAD draws previews with OpenGL, which needs an X display even headless. One Xvfb per
batch (not `xvfb-run -a` per picture: parallel xvfb-run calls race for display numbers).
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

from squadron_cad.errors import ToolError

DISPLAY_TIMEOUT_S = 15.0


def needs_virtual_display() -> bool:
    """OpenSCAD opens an X display for OpenGL on Linux; macOS and Windows need none."""
    return sys.platform.startswith("linux")


@contextlib.contextmanager
def display_environment() -> Iterator[dict[str, str]]:
    """An environment in which OpenSCAD can draw: a private Xvfb, else $DISPLAY."""
    env = dict(os.environ)
    if not needs_virtual_display():
        yield env
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        if env.get("DISPLAY"):
            yield env
            return
        raise ToolError(
            "previews need a display for OpenSCAD: install xvfb (sudo apt-get install xvfb, "
            "or `make system`) or run where $DISPLAY is set"
        )
    with _xvfb(xvfb) as display:
        yield {**env, "DISPLAY": display}


@contextlib.contextmanager
def _xvfb(executable: str) -> Iterator[str]:
    # -displayfd: Xvfb picks a free display itself and reports it once it accepts clients.
    read_end, write_end = os.pipe()
    try:
        server = subprocess.Popen(
            [
                *_dies_with_us(),
                executable,
                "-displayfd",
                str(write_end),
                "-screen",
                "0",
                "640x480x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_end,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        os.close(read_end)
        os.close(write_end)
        raise ToolError(f"cannot start Xvfb for previews: {error.strerror}") from error
    os.close(write_end)
    try:
        yield f":{_read_display(read_end, server)}"
    finally:
        os.close(read_end)
        _stop_group(server)


@functools.cache
def _dies_with_us() -> list[str]:
    """Xvfb runs in a session of its own (a Ctrl-C to the build's group must not reach it
    before OpenSCAD is done with it), so a build killed outright (SIGKILL) left it running:
    util-linux's setpriv makes the kernel stop it when the thread that started it ends.
    A setpriv without --pdeathsig (busybox, util-linux before 2.33) is not used."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    wrapper = [setpriv, "--pdeathsig", "TERM", "--"]
    try:
        works = subprocess.run([*wrapper, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        works = False
    return wrapper if works else []


def _read_display(read_end: int, server: subprocess.Popen[bytes]) -> str:
    text = b""
    deadline = time.monotonic() + DISPLAY_TIMEOUT_S
    while not text.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([read_end], [], [], max(0.0, remaining))
        chunk = os.read(read_end, 32) if ready else b""
        if not chunk:
            code = server.poll()
            why = f"exited with code {code}" if code is not None else "did not start in time"
            raise ToolError(f"Xvfb {why}: previews need a virtual display")
        text += chunk
    return text.decode().strip()


def _stop_group(process: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

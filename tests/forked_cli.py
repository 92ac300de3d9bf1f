"""`squadron-cad` in a process of its own, forked from one that has imported the command and
a build's machinery once (multiprocessing's forkserver, one for each test worker).

Each run is a real process: its own signals, exit code, stdout and stderr (pipes), its
environment and its folder, its own children; it runs `squadron_cad.cli.main` as the
installed command does. What it skips is the interpreter's start and the imports: a
cached rebuild took 1.5 CPU-s in a fresh interpreter, 0.45 forked (measured 2026-11-28).
Tests about a fresh process (what it imports, a stop while it imports) start one:
`helpers.cli_process`, `kit_files.cli(..., fresh=True)`.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping, Sequence
from multiprocessing import reduction
from pathlib import Path
from typing import IO, Any

from squadron_cad import prestarted
from squadron_cad.pipeline import machinery

# What a build imports, in the order it does: the command's, then the machinery's.
PRELOAD = [*prestarted.BEFORE_START, *prestarted.MACHINERY, *machinery.AFTER_EMITTING]

_forks: Any = None


def _context() -> Any:
    global _forks
    if _forks is None:
        _forks = multiprocessing.get_context("forkserver")
        _forks.set_forkserver_preload(PRELOAD)
    return _forks


def stop() -> None:
    """End the forkserver and the resource tracker multiprocessing started beside it, and
    reap them: left to end with the worker, they stayed zombies under an init that does not
    reap (a container's first process). Their `_stop` is what CPython's own tests call."""
    global _forks
    if _forks is None:
        return
    from multiprocessing import forkserver, resource_tracker

    for helper in (forkserver._forkserver, resource_tracker._resource_tracker):
        stopping = getattr(helper, "_stop", None)
        if stopping is not None:
            stopping()
    _forks = None


class _PassedFd:
    """A file descriptor sent to the forked process (SCM_RIGHTS, as multiprocessing sends
    a socket), where it arrives as a descriptor of its own."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return (_received, (reduction.DupFd(self.fd),))


def _received(passed: Any) -> int:
    return int(passed.detach())


def _run(args: list[str], env: dict[str, str], cwd: str, out: int, err: int) -> None:
    """The forked process: the command with these arguments, then its end as the
    interpreter's (exit handlers, streams flushed, the exit code)."""
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.close(out)
    os.close(err)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    tempfile.tempdir = None  # $TMPDIR as this run's environment says
    sys.argv = ["squadron-cad", *args]
    code = 0
    try:
        from squadron_cad.cli import main

        main()
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            code = done.code or 0
        else:  # sys.exit("message"): said on stderr, exit 1, as the interpreter does
            print(done.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # the interpreter's own end runs them: the warm renderers'
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


class ForkedRun:
    """What the tests use of subprocess.Popen (text mode, stdout and stderr piped)."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], cwd: Path | None = None):
        self.args = list(args)
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        where = str(cwd or Path.cwd())
        passed = (_PassedFd(out_write), _PassedFd(err_write))
        self._process = _context().Process(
            target=_run, args=(self.args, dict(env), where, *passed), daemon=False
        )
        try:
            self._process.start()
        finally:
            os.close(out_write)
            os.close(err_write)
        self.stdout: IO[str] = open(out_read, encoding="utf-8", errors="replace")  # noqa: SIM115
        self.stderr: IO[str] = open(err_read, encoding="utf-8", errors="replace")  # noqa: SIM115
        self.pid: int = self._process.pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._process.exitcode
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        code = self.poll()
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """The rest of its stdout and stderr, once it has ended (both read at once: a
        full pipe would hold it up)."""
        read: dict[str, str] = {}
        readers = [
            threading.Thread(target=_read_all, args=(stream, name, read), daemon=True)
            for name, stream in (("out", self.stdout), ("err", self.stderr))
        ]
        for reader in readers:
            reader.start()
        self.wait(timeout)
        for reader in readers:
            reader.join(timeout)
        return read.get("out", ""), read.get("err", "")


def _read_all(stream: IO[str], name: str, into: dict[str, str]) -> None:
    with stream:
        into[name] = stream.read()

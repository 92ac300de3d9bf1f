"""The page's builds: the CLI's own commands run as a child process, one at a time.

A build is `squadron-cad build --json` (or `paper`, `tolerance`) in a process group of its
own: its JSON Lines are the progress events; Cancel, a tab closed, the server stopped or
the time limit sends the group SIGINT, which the CLI takes as a Ctrl-C (the transaction
leaves the previous kit byte-identical), then SIGKILL if it has not ended in time. Every
process of the group is gone when cancel() returns.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIME_LIMIT_S = 600.0  # a build that runs longer is stopped
GRACE_S = 20.0  # after SIGINT: the CLI removes its staging folder and says what OUT holds
HEARTBEAT_S = 1.0  # an idle stream still writes, so a closed tab is noticed
WHAT = ("kit", "paper", "tolerance")


class Busy(Exception):
    """Another build is running: the page says so, nothing is queued."""


@dataclass(frozen=True)
class Job:
    what: str  # kit | paper | tolerance
    kit: str
    tin: str | None
    params_file: Path  # the page's params.yaml, as downloaded
    out: Path  # the kit's folder; paper and tolerance go into folders inside it
    cache_dir: Path | None = None
    keep_failed: bool = False  # a kit whose checks fail replaces the folder's, to look at

    @property
    def folder(self) -> Path:
        return self.out if self.what == "kit" else self.out / self.what

    def arguments(self) -> list[str]:
        """The `squadron-cad` arguments of this build."""
        verb = "build" if self.what == "kit" else self.what
        args = [verb, "--kit", self.kit]
        args += ["--tin", self.tin] if self.tin else []
        args += ["--params", str(self.params_file), "--out", str(self.folder), "--json"]
        if self.what == "kit" and self.cache_dir is not None:
            args += ["--cache-dir", str(self.cache_dir)]
        if self.what == "kit" and self.keep_failed:
            args += ["--keep-failed"]
        return args


@dataclass
class Running:
    """One build's child process and its events, read by a thread as they come."""

    job: Job
    process: subprocess.Popen[bytes]
    started: float = field(default_factory=time.monotonic)
    events: queue.Queue[dict[str, Any] | None] = field(default_factory=queue.Queue)
    stopped: str = ""  # why it was stopped (cancelled, time limit, ...), else ""
    stderr: list[str] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if isinstance(event, dict):
                self.events.put(event)
        self.process.wait()
        self.events.put(None)

    def read_errors(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip())
            del self.stderr[:-20]


RUNNER = [sys.executable, "-m", "squadron_cad.prestarted"]


def _spawn() -> subprocess.Popen[bytes]:
    """A runner in a process group of its own: a signal reaches its renders too."""
    return subprocess.Popen(
        RUNNER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


class Builds:
    """At most one build at a time; start(), stream(), cancel(), shutdown(). A runner is
    kept ready (its imports done) for the next build: prepare()."""

    def __init__(self, time_limit_s: float = TIME_LIMIT_S) -> None:
        self.time_limit_s = time_limit_s
        self._lock = threading.Lock()
        self._running: Running | None = None
        self._spare: subprocess.Popen[bytes] | None = None

    def prepare(self) -> None:
        """Start the next build's runner now, unless one is waiting or a build runs."""
        with self._lock:
            idle = self._running is None or self._running.process.poll() is not None
            if idle and (self._spare is None or self._spare.poll() is not None):
                self._spare = _spawn()

    @property
    def spare(self) -> subprocess.Popen[bytes] | None:
        return self._spare

    @property
    def running(self) -> Running | None:
        return self._running

    def start(self, job: Job) -> Running:
        with self._lock:
            if self._running is not None and self._running.process.poll() is None:
                what = self._running.job
                raise Busy(
                    f"busy: a {what.what} build of {what.kit} is running; wait for it or cancel it"
                )
            job.folder.parent.mkdir(parents=True, exist_ok=True)
            spare, self._spare = self._spare, None
            process = spare if spare is not None and spare.poll() is None else _spawn()
            assert process.stdin is not None
            process.stdin.write((json.dumps(job.arguments()) + "\n").encode())
            process.stdin.close()
            running = Running(job, process)
            threading.Thread(target=running.read, daemon=True).start()
            threading.Thread(target=running.read_errors, daemon=True).start()
            self._running = running
            return running

    def stream(self, running: Running) -> Iterator[dict[str, Any]]:
        """The build's events, a heartbeat each idle second, then its end; stopped at the
        time limit. The caller cancels the build if it cannot deliver an event."""
        while True:
            left = self.time_limit_s - (time.monotonic() - running.started)
            if left <= 0 and not running.stopped:
                self.cancel(f"stopped after {_duration(self.time_limit_s)}, the page's time limit")
            try:
                event = running.events.get(timeout=max(min(HEARTBEAT_S, left), 0.05))
            except queue.Empty:
                yield {"event": "heartbeat"}
                continue
            if event is None:
                yield self._ended(running)
                return
            yield event

    def _ended(self, running: Running) -> dict[str, Any]:
        code = running.process.wait()
        return {
            "event": "ended",
            "pid": running.process.pid,
            "exit_code": code,
            "stopped": running.stopped,
            "stderr": running.stderr[-5:],
        }

    def cancel(self, reason: str = "cancelled") -> bool:
        """Stop the running build (if any) and wait until its whole group has ended."""
        running = self._running
        if running is None or running.process.poll() is not None:
            return False
        running.stopped = reason
        _signal_group(running.process.pid, signal.SIGINT)
        try:
            running.process.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(running.process.pid, signal.SIGKILL)
            running.process.wait()
        _wait_group_gone(running.process.pid)
        return True

    def shutdown(self) -> None:
        self.cancel("the server was stopped")
        spare, self._spare = self._spare, None
        if spare is not None and spare.poll() is None:
            _signal_group(spare.pid, signal.SIGKILL)  # idle: nothing of it to save
            spare.wait()


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} s"


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def group_alive(pgid: int) -> bool:
    """Is any process of the group still there (zombies of ours are reaped already)?"""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_group_gone(pgid: int, timeout_s: float = 5.0) -> None:
    """The leader has ended; its renders (OpenSCAD, node, the slicer) end too, or die."""
    deadline = time.monotonic() + timeout_s
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if group_alive(pgid):
        _signal_group(pgid, signal.SIGKILL)
        while group_alive(pgid) and time.monotonic() < deadline + 2:
            time.sleep(0.05)

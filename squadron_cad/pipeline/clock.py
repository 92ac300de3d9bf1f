"""The build's stage clock, and work that runs in a thread beside the build's stages."""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from squadron_cad import interrupts
from squadron_cad.render import openscad

T = TypeVar("T")

Progress = Callable[[str, str], None]  # (part or stage, status), as console.build_progress reads


def no_progress(_part: str, _status: str) -> None:
    """Progress is optional: library callers need not show any."""


def cpu_seconds() -> float:
    """CPU time of this process (all threads) and of its finished children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class StageClock:
    """Wall and CPU seconds of each stage, read off the stage events the build reports
    (status "running" from the main thread opens a stage and closes the one before)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.stages: dict[str, dict[str, Any]] = {}
        self._open: tuple[str, float, float] | None = None

    def __call__(self, name: str, status: str) -> None:
        if (
            status in ("running", "finished")
            and threading.current_thread() is threading.main_thread()
        ):
            interrupts.checkpoint()  # each stage: a Ctrl-C a library swallowed ends the build
            self.close()
            if status == "running":
                self._open = (name, time.perf_counter(), cpu_seconds())
        self.progress(name, status)

    def beside(self, name: str, wall_s: float) -> None:
        """A stage that ran in a thread beside the others: its own wall time, not part of
        their sum; its subprocesses' CPU time falls in the stages it overlapped."""
        self.stages[name] = {"wall_s": round(wall_s, 3), "cpu_s": None, "beside": True}

    def close(self) -> None:
        if self._open is None:
            return
        name, wall, cpu = self._open
        spent = self.stages.setdefault(name, {"wall_s": 0.0, "cpu_s": 0.0})
        spent["wall_s"] = round(spent["wall_s"] + time.perf_counter() - wall, 3)
        spent["cpu_s"] = round(spent["cpu_s"] + cpu_seconds() - cpu, 3)
        self._open = None


class BackgroundWork(Generic[T]):
    """Work whose subprocesses run in a thread beside the build's Python stages; its result
    (or its error) is taken on the main thread, and `stop` ends it early on an interrupt."""

    def __init__(self, name: str, work: Callable[[], T], stop: Callable[[], None]) -> None:
        self.name = name
        self.work = work
        self.stop = stop
        self.value: T | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        # Waited on instead of Thread.join: Python 3.11 marks a thread ended when a Ctrl-C
        # interrupts a join, and cancel() would then stop waiting for work still running.
        self.finished = threading.Event()

    def start(self) -> None:
        """Start the thread. A stop landing inside Thread.start, before the thread had its
        ident, made cancel() take it for never started: the work then wrote into a staging
        folder already removed, and the folder stayed (seen once at the previews stage). A
        stop is now held to the start's end and raised from here: call start() where an
        interruption leads to cancel()."""
        with interrupts.interrupts_deferred():
            self.thread.start()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self.value = self.work()
        except BaseException as error:  # raised again on the main thread by result()
            self.error = error
        finally:
            self.seconds = time.perf_counter() - started
            self.finished.set()

    def result(self) -> T:
        self.finished.wait()
        if self.error is not None:
            raise self.error
        assert self.value is not None
        return self.value

    def cancel(self) -> None:
        """Stop it and wait for the thread, stopping again while it runs: a subprocess it
        started just after a stop is ended too, not waited for (as openscad.stop_until_done
        does for the renders)."""
        openscad.keep_stopping(self.stop, self._ended)

    def _ended(self, seconds: float) -> bool:
        never_started = self.thread.ident is None
        return never_started or self.finished.wait(seconds)

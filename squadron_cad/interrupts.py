"""A Ctrl-C that a library swallowed still ends the run.

Some imports (trimesh's optional loaders) catch every exception, KeyboardInterrupt too: a
Ctrl-C that lands in them is lost, and the build ran to the end. The signal handler notes
each stop signal here; the main thread asks at its checkpoints (after a heavy import, at
each stage of a build) and raises the interruption that was swallowed.

And a step that a stop must not split (a swap, a thread's start) runs with the stop
signals held until its end: interrupts_deferred.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

_STOPPED = threading.Event()


def note_stop() -> None:
    """Called by the signal handler before it raises KeyboardInterrupt."""
    _STOPPED.set()


def forget() -> None:
    """A new run: no stop signal yet."""
    _STOPPED.clear()


def checkpoint() -> None:
    """Raise the KeyboardInterrupt a library swallowed (in the main thread only: the
    others end when the main thread stops waiting for them)."""
    if _STOPPED.is_set() and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt("a stop signal a library swallowed")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and a polite kill: both end a run


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then act on the first one as its
    handler would have. Only the main thread can set handlers: elsewhere, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda n, _f: caught.append(n)) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            _deliver(caught[0], previous[signal.Signals(caught[0])])


def _deliver(signum: int, handler: Any) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # SIGINT's default handler is Python's, a callable

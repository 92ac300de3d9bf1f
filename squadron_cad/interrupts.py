"""A Ctrl-C that a library swallowed still ends the run.

Some imports (trimesh's optional loaders) catch every exception, KeyboardInterrupt too: a
Ctrl-C that lands in them is lost, and the build ran to the end. The signal handler notes
each stop signal here; the main thread asks at its checkpoints (after a heavy import, at
each stage of a build) and raises the interruption that was swallowed.
"""

from __future__ import annotations

import threading

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

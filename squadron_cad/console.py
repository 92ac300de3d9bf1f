"""What the CLI shows a maker: a per-part progress display and one-line summaries."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

STATUS_WORDS = {
    "rendering": "rendering",
    "checking": "checking",
    "cached": "unchanged (cache)",
    "done": "rendered",
    "running": "running",
    "finished": "done",
}
FINAL_STATUSES = {"cached", "done"}

stderr = Console(stderr=True, highlight=False, soft_wrap=True)
stdout = Console(highlight=False, soft_wrap=True)


class JsonEvents:
    """--json: one JSON object per event on stdout, for scripts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, part: str, status: str) -> None:
        with self._lock:
            sys.stdout.write(json.dumps({"event": "part", "part": part, "status": status}) + "\n")
            sys.stdout.flush()


@contextmanager
def build_progress(total: int, *, quiet: bool, as_json: bool) -> Iterator[Any]:
    """A progress callback (part, status) shown as a bar with the latest part's status."""
    if as_json:
        emit_json({"event": "start", "parts": total})  # what the progress counts to
        yield JsonEvents()
        return
    if quiet or not stderr.is_terminal:
        yield _plain_progress(quiet)
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"),
    )
    with Progress(*columns, console=stderr, transient=False) as bar:
        task = bar.add_task("building", total=total, status="")
        lock = threading.Lock()

        def update(part: str, status: str) -> None:
            with lock:
                advance = 1 if status in FINAL_STATUSES else 0
                bar.update(task, advance=advance, status=f"{part}: {STATUS_WORDS[status]}")

        yield update


def _plain_progress(quiet: bool) -> Any:
    lock = threading.Lock()

    def update(part: str, status: str) -> None:
        if quiet or status not in FINAL_STATUSES:
            return
        with lock:
            stderr.print(f"  {part}: {STATUS_WORDS[status]}")

    return update


def emit_json(data: Any) -> None:
    """One JSON value on one line (JSON Lines: a script reads stdout line by line)."""
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()

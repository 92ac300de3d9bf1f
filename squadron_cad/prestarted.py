"""A build process started before the maker clicks Build: `python -m squadron_cad.prestarted`.

The customizer starts one as it starts listening. It imports what a build does before it
says it has started (the CLI, the resolver, the kits: a quarter of a second of CPU), then
the rest of the build's machinery (meshes, renders: most of a second) one module at a
time, each only while no build is waiting. The build comes as one line on standard
input, the CLI's arguments as a JSON list, run as `squadron-cad` would, in this process;
then it ends. So a click's first progress event comes in a fraction of a second, and the
build itself is the CLI's, signalled and stopped as a child in its own process group
(squadron_cad.web.builds).

It lives outside squadron_cad.cli: `-m squadron_cad.cli.prestarted` imported the whole
CLI (typer, pydantic, the kits) as its package, before main() could note a stop, and a
stop landing in a library that catches every exception there was lost: the page's time
limit then found the kit written (twice under the suite's load).
"""

from __future__ import annotations

import importlib
import json
import select
import signal
import sys

from squadron_cad import interrupts

BEFORE_START = (  # what `build` imports before its first progress event
    "squadron_cad.cli",
    "squadron_cad.resolve",
    "squadron_cad.uptodate",
    "squadron_cad.cli.showing",
    "squadron_cad.pipeline.parts",
)
MACHINERY = (  # the rest, the largest first-needed pieces one by one (0.25 s of CPU at most)
    "numpy",
    "shapely",
    "scipy.spatial",
    "trimesh",
    "squadron_cad.pipeline.transaction",
)


# A stop that lands while the runner imports may be swallowed by a library that catches
# every exception: the build then ran to its end and wrote the kit (seen twice under the
# suite's load, the page's time limit at 0.5 s). So the stop is noted, as the CLI's own
# handler notes it (squadron_cad.interrupts), and the build is not begun once one was.
def _on_stop(signum: int, _frame: object) -> None:
    interrupts.note_stop()
    raise KeyboardInterrupt(f"signal {signum}")


def _build_waiting() -> bool:
    return bool(select.select([sys.stdin], [], [], 0)[0])


def load() -> None:
    for name in BEFORE_START:
        importlib.import_module(name)
    for name in MACHINERY:
        if _build_waiting():
            return  # the build imports the rest after it has said it started
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # the build itself imports what it needs, and says what is wrong


def main() -> None:
    for signum in interrupts.STOP_SIGNALS:  # the CLI's own take over in its main
        signal.signal(signum, _on_stop)
    load()
    line = sys.stdin.readline()
    if not line.strip():
        return  # the server stopped before it needed this build
    interrupts.checkpoint()  # stopped before the build began
    arguments = json.loads(line)
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        sys.exit("squadron_cad.prestarted: expected a JSON list of arguments")
    from squadron_cad.cli import main as run

    run(arguments)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # stopped while it waited
        sys.exit(130)

"""The libraries a build needs once its parts land, imported in a thread beside the renders.

trimesh and the checks, the slicer's, plates' and pictures' modules take about half a
second to import. OpenSCAD renders in processes of its own while the build's Python waits,
and a new tin renders two parts (one core of two idle): imported then, they cost a build
nothing it waits for. Each module is imported again where it is used, so a failed import
is raised there, and one still being imported is waited for (Python's import lock).
"""

from __future__ import annotations

import importlib
import threading

# In the order the build needs them: the layout's writer (the layout picture, drawn from
# the start), each rendered part's mesh checks, then every stage after the renders.
AFTER_EMITTING = (
    "squadron_cad.fit.layout_io",
    "squadron_cad.checks.mesh",
    "squadron_cad.pipeline.stages",
)


def import_beside() -> threading.Thread:
    """Start importing AFTER_EMITTING in a thread (nothing waits for it)."""
    thread = threading.Thread(target=_import_all, name="machinery imports", daemon=True)
    thread.start()
    return thread


def _import_all() -> None:
    for name in AFTER_EMITTING:
        try:
            importlib.import_module(name)
        except Exception:  # raised again, on the main thread, where the build imports it
            return

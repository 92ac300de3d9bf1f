"""A digest of code, so results cached by that code are recomputed when it changes."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType


def code_version(*modules: ModuleType) -> str:
    """A digest of the source of modules (a package: every .py file in it), so results
    cached by that code are recomputed whenever it changes: no hand-bumped numbers."""
    digest = hashlib.sha256()
    for module in modules:
        origin = Path(module.__file__ or "")
        files = sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]
        for path in files:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]

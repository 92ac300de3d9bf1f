"""The package type checks (mypy, configured in pyproject.toml). `make lint` runs it on
its own; under `make test` it runs here, in a worker beside the other tests, instead of
for 11 s before them while both cores wait."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_no_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout

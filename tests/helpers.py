"""Small helpers several test files share (tests/ is on the path: see tests/conftest.py)."""

from __future__ import annotations

import csv
import hashlib
import io
import subprocess
import sys
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from squadron_cad import kit as kit_module
from squadron_cad.kit import Kit, kit_of, variant_name
from squadron_cad.params import KitParamsBase

# Render batches for a build inside a test. The suite's two workers already keep both cores
# busy: a kit's second batch only costs a node start and shares a core with the checks
# (a cold draft kit in one process, paired, one batch against two: 0.90 x the CPU, 13.2
# against 14.8 s, and 0.95 x the wall). CLI builds in the tests keep the default.
TEST_JOBS = 1
# A build's options for tests that read only its meshes: no slicer, plates or pictures.
MESHES_ONLY = {"slice": False, "plates": False, "previews": False}
# `squadron-cad` as a process of its own runs it: this interpreter, the package as a module.
CLI_COMMAND = (sys.executable, "-m", "squadron_cad")

if TYPE_CHECKING:
    import numpy as np


@contextmanager
def registered(*kits: Kit) -> Iterator[None]:
    """These kits known to this process inside the block only: a test kit left registered
    would lend its part names to the engine-boundary test and show in every kit listing."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kit_module, "_REGISTERED", dict(kit_module._REGISTERED))
        for kit in kits:
            kit_module.register(kit)
        yield


Key = str | tuple[str | int, ...]  # "tray.lid.lip_mm", or its steps when a name holds a dot


def _steps(key: Key) -> tuple[str | int, ...]:
    return tuple(key.split(".")) if isinstance(key, str) else key


def _step(data: Any, step: str | int) -> Any:
    if isinstance(data, Mapping):
        return data[step]
    if isinstance(data, list):
        return data[int(step)]
    return getattr(data, str(step))  # a parameter model's section or field


def get_at(data: Any, key: Key) -> Any:
    """The value at a key of nested mappings, lists and models: ("parts", 0, "count")."""
    for step in _steps(key):
        data = _step(data, step)
    return data


def set_at(data: Any, key: Key, value: Any) -> None:
    """Set the value at a key of nested mappings and lists (its parents must exist)."""
    *parents, last = _steps(key)
    inner = get_at(data, tuple(parents))
    inner[int(last) if isinstance(inner, list) else last] = value


def drop_at(data: Any, key: Key) -> None:
    """Remove the entry at a key of nested mappings and lists."""
    *parents, last = _steps(key)
    inner = get_at(data, tuple(parents))
    del inner[int(last) if isinstance(inner, list) else last]


def bom_manifest(params: KitParamsBase, slicer: Any = None) -> dict[str, Any]:
    """A manifest as build writes it, with the fields the bill of materials reads."""
    kit = kit_of(params)
    data: dict[str, Any] = {
        "generator": "squadron_cad test",
        "players": params.players,
        "parts": [
            {
                "name": spec.name,
                "title": spec.title,
                "file": f"stl/{spec.name}.stl",
                "count": spec.count(params),
                "alternative_to": spec.alternative_to,
                "replaces": list(spec.replaces),
            }
            for spec in kit.parts
        ],
        "params": params.model_dump(mode="json"),
        "purchases": [item.as_dict() for item in kit.purchases(params)],
    }
    if slicer is not None:
        data["slicer"] = slicer
    return data


def sliced(data: dict[str, Any]) -> dict[str, Any]:
    """Made-up slicer figures for every part of a manifest: 10 min, 1 m and 3 g each."""
    figures = {
        part["name"]: {"print_seconds": 600.0, "filament_mm": 1000.0, "filament_g": 3.0}
        for part in data["parts"]
    }
    return {"slicer": "PrusaSlicer-2.5.0", "parts": figures}


def kit_file_hashes(out: Path) -> dict[str, str]:
    """Every file of a kit folder with its SHA-256, hidden ones too (the render cache aside,
    which is not the kit): measured here, not by the tool's own record."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not p.relative_to(out).as_posix().startswith(".cache/")
    }


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def cli_process(
    args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m squadron_cad ARGS` in a process of its own (its exit, its imports)."""
    return subprocess.run(
        [*CLI_COMMAND, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        env=env,
    )


def set_env(monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str]) -> None:
    """These environment variables for the rest of the test."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`squadron-cad ARGS` in this process: exit code, stdout, stderr (its own only)."""
    from squadron_cad.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(args)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out, captured.err


def cli_in_worker(
    args: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`squadron-cad ARGS` through its entry point in this worker, in `cwd` and with `env`
    added, answered as `cli_process` answers: without the interpreter start and imports a
    process costs (0.5-1.5 CPU-s), where the test is not about the process."""
    if cwd is not None:
        monkeypatch.chdir(cwd)
    set_env(monkeypatch, env or {})
    code, out, err = run_cli(args, capsys)
    return subprocess.CompletedProcess(args, code, out, err)


def fake_stls(
    folder: Path, sizes: dict[str, tuple[float, float, float]], by_player: Collection[str] = ()
) -> Path:
    """Box stand-ins for every part in `folder`/stl, and for each player's own copy of the
    parts `by_player` (up to 8 players)."""
    import trimesh  # here: the CLI's tests import this module without the meshing stack

    (folder / "stl").mkdir(parents=True, exist_ok=True)
    for name, size in sizes.items():
        mesh = trimesh.creation.box(extents=size)
        mesh.apply_translation([5.0, -3.0, size[2] / 2 + 2.0])  # off-centre and off the bed
        stems = [name] + ([variant_name(name, i) for i in range(8)] if name in by_player else [])
        for stem in stems:
            mesh.export(folder / "stl" / f"{stem}.stl")
    return folder


def placed(path: Path) -> dict[str, np.ndarray]:
    """Each object's vertices, placed on the bed, by its name in a plate's 3MF."""
    import trimesh

    scene: Any = trimesh.load(path)  # a 3MF loads as a scene
    objects = {}
    for node in scene.graph.nodes_geometry:
        transform, geometry = scene.graph[node]
        objects[node] = trimesh.transform_points(scene.geometry[geometry].vertices, transform)
    return objects


def bounds_of(points: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.array([points.min(axis=0), points.max(axis=0)])


# Each engine limit a kit may leave at its default, and the norm it comes from
# (squadron_cad.constants.NORMS).
ENGINE_NORMS = {
    "slicer.layer_height_mm": "layer_height",
    "checks.min_wall_mm": "min_wall",
    "checks.overhang_limit_deg": "max_overhang",
    "checks.max_bridge_mm": "max_bridge",
    "checks.min_text_stroke_mm": "min_text_stroke",
    "checks.min_text_depth_mm": "min_text_depth",
    "checks.min_text_height_mm": "min_text_height",
    "checks.min_text_gap_mm": "min_text_gap",
    "checks.min_text_counter_mm": "min_text_counter",
    "checks.min_mark_clearance_mm": "min_mark_clearance",
    "checks.lid_fit.min_mm": "sliding_fit_min",
    "checks.lid_fit.max_mm": "sliding_fit_max",
}


def off_the_norms(params: KitParamsBase, norms: Mapping[str, str] = ENGINE_NORMS) -> dict:
    """Each key whose value is not its norm's: {key: (value, norm)} (empty: all kept)."""
    from squadron_cad.constants import NORMS

    found = {key: (get_at(params, key), NORMS[norm].value) for key, norm in norms.items()}
    return {key: pair for key, pair in found.items() if pair[0] != pair[1]}

"""docs/ARCHITECTURE.md's walkthroughs, followed literally: the code blocks are written
into files as the text says, then the kit is built with the real tools. If the text and
the engine drift apart, this fails."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest
import trimesh
from helpers import CLI_COMMAND

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
BLOCK = re.compile(r"^```(\w+)\n# (file|add to): (\S+)(?: (\w+))?\n(.*?)^```", re.S | re.M)


def blocks(section: str) -> list[tuple[str, str, str, str]]:
    """(kind, path, anchor, text) of each tagged block in one `## Walkthrough` section."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## Walkthrough: {section}")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end > 0 else len(text)]
    return [(m[1], m[3], m[4] or "", m[5]) for m in BLOCK.finditer(body)]


def install_entry_point(site: Path, dist: str, points: dict[str, str]) -> None:
    """What `pip install .` leaves for importlib.metadata: a dist-info with entry points."""
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in points.items())
    (info / "entry_points.txt").write_text(f"[squadron_cad.kits]\n{lines}")


def cli(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [*CLI_COMMAND, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=900,
    )


def test_add_a_part_is_one_module_and_one_entry(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "toykit", site / "toykit")
    found = blocks("add a part")
    assert [(kind, path) for kind, path, _, _ in found] == [
        ("python", "toykit/marker.py"),
        ("python", "toykit/__init__.py"),
    ]
    (site / "toykit" / "marker.py").write_text(found[0][3])
    package = site / "toykit" / "__init__.py"
    source = package.read_text()
    assert found[1][2] == "PARTS"
    source = source.replace("PARTS = (\n", "PARTS = (\n" + found[1][3], 1)
    source = source.replace("\nHERE = ", "\nfrom toykit import marker  # noqa: E402\n\nHERE = ", 1)
    package.write_text(source)
    install_entry_point(site, "toykit", {"toy": "toykit:TOY_KIT"})
    out = tmp_path / "kit"
    built = cli(site, "build", "--kit", "toy", "--out", str(out), "--no-slice", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    counts = {part["name"]: part["count"] for part in manifest["parts"]}
    assert counts == {"marker": 2, "tile": 6, "tray": 1, "tile_plain": 0}  # an alternative
    marker = trimesh.load_mesh(out / "stl" / "marker.stl")
    assert marker.is_watertight
    assert marker.extents == pytest.approx([10, 10, 3], abs=0.05)  # half the 20 mm tile
    assert "marker" in (out / "bom.md").read_text()
    layout = json.loads((out / "layout.json").read_text())
    stowed = [entry["name"] for entry in layout["contents"] if entry["stl"] == "stl/marker.stl"]
    assert stowed == ["player1_marker_1", "player2_marker_1"]
    proof = [f for f in manifest["kit_checks"] if "marker" in f["part"]]
    assert proof, "the marker's pocket was not checked"
    assert all(f["severity"] == "ok" for f in proof), proof
    assert (out / "previews" / "marker.png").stat().st_size > 1000
    with zipfile.ZipFile(out / "plates" / "player1.3mf") as plate:
        model = plate.read("3D/3dmodel.model").decode()
    assert 'name="marker"' in model


def test_add_a_kit_is_a_package_and_an_entry_point(tmp_path: Path) -> None:
    site = tmp_path / "site"
    found = blocks("add a kit")
    files = {path: text for kind, path, _, text in found}
    assert sorted(files) == ["coasters/__init__.py", "coasters/default.yaml", "pyproject.toml"]
    for path in ("coasters/__init__.py", "coasters/default.yaml"):
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[path])
    points = tomllib.loads(files["pyproject.toml"])["project"]["entry-points"]
    install_entry_point(site, "coasters", points["squadron_cad.kits"])
    listed = cli(site, "kits", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "coasters" in listed.stdout
    out = tmp_path / "kit"
    built = cli(
        site,
        "build",
        "--kit",
        "coasters",
        "--out",
        str(out),
        "--no-slice",
        "--no-previews",
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr
    coaster = trimesh.load_mesh(out / "stl" / "coaster.stl")
    assert coaster.is_watertight
    assert coaster.extents == pytest.approx([90, 90, 3], abs=0.1)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kit"]["name"] == "coasters"
    assert [part["count"] for part in manifest["parts"]] == [2]
    assert not (out / "layout.json").exists()  # no box, no layout

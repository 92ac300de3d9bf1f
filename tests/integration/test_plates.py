"""Print plates and the bill of materials for a really built kit."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trimesh

from squadron_cad.build import BuildOptions, BuildReport, build
from squadron_cad.outputs.bom import write_bom
from squadron_cad.outputs.plates import write_plates
from squadron_cad.outputs.threemf import read_strict
from squadron_cad.resolve import resolve

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> BuildReport:
    params = resolve(overrides=["quality=draft"])
    return build(params, BuildOptions(out_dir=tmp_path_factory.mktemp("plates"), jobs=2))


@pytest.fixture(scope="module")
def manifest(kit: BuildReport) -> dict[str, Any]:
    return json.loads((kit.out_dir / "manifest.json").read_text())


@pytest.fixture(scope="module")
def plates(kit: BuildReport, manifest) -> list[Path]:
    counts = {part["name"]: part["count"] for part in manifest["parts"]}
    return write_plates(kit.out_dir, kit.params, counts)


def world_bounds(scene: trimesh.Scene, node: str) -> np.ndarray:
    transform, geometry = scene.graph[node]
    points = trimesh.transform_points(scene.geometry[geometry].vertices, transform)
    return np.array([points.min(axis=0), points.max(axis=0)])


def test_plates_hold_the_manifest_counts(plates: list[Path], manifest) -> None:
    names = sorted(path.name for path in plates if path.suffix == ".3mf")
    assert names == ["player1_red.3mf", "player2_blue.3mf", "shared.3mf"]
    printed: dict[str, int] = {}
    for path in plates:
        if path.suffix == ".3mf":
            for node in trimesh.load(path).graph.nodes_geometry:
                part = node.rsplit(" ", 1)[0]
                printed[part] = printed.get(part, 0) + 1
    expected = {p["name"]: p["count"] for p in manifest["parts"] if p["count"] > 0}
    assert printed == expected


def test_each_player_plate_has_one_players_pieces(plates: list[Path]) -> None:
    scene = trimesh.load(next(p for p in plates if p.name == "player2_blue.3mf"))
    parts = [node.rsplit(" ", 1)[0] for node in scene.graph.nodes_geometry]
    assert sorted(set(parts)) == [
        "altitude_token",
        "plane_token",
        "stat_dial_card",
        "stat_dial_clip",
    ]
    assert parts.count("altitude_token") == 4
    assert parts.count("stat_dial_clip") == 4


def test_plates_fit_the_bed_in_print_orientation(kit: BuildReport, plates, manifest) -> None:
    bed = kit.params.printer
    margin = kit.params.plates.margin_mm
    heights = {p["name"]: p["size_mm"][2] for p in manifest["parts"]}
    for path in plates:
        if path.suffix != ".3mf":
            continue
        scene = trimesh.load(path)
        for node in scene.graph.nodes_geometry:
            low, high = world_bounds(scene, node)
            assert low[0] >= margin - 1e-3, (path.name, node)
            assert low[1] >= margin - 1e-3, (path.name, node)
            assert high[0] <= bed.bed_length_mm - margin + 1e-3, (path.name, node)
            assert high[1] <= bed.bed_width_mm - margin + 1e-3, (path.name, node)
            assert low[2] == pytest.approx(0, abs=1e-4), "flat on the bed"
            height = heights[node.rsplit(" ", 1)[0]]
            assert high[2] == pytest.approx(height, abs=1e-3), "turned only about z"


def test_the_stl_plate_matches_the_3mf(plates: list[Path]) -> None:
    three_mf = next(p for p in plates if p.name == "shared.3mf")
    stl = trimesh.load(three_mf.with_suffix(".stl"))
    assert np.allclose(stl.bounds, trimesh.load(three_mf).bounds, atol=1e-3)


def test_bill_of_materials_counts_match_the_manifest(kit: BuildReport, manifest) -> None:
    md, table = write_bom(kit.out_dir, manifest)
    rows = {row["item"]: row for row in csv.DictReader(io.StringIO(table.read_text()))}
    for part in manifest["parts"]:
        assert int(rows[part["name"]]["count"]) == part["count"]
    total = sum(part["count"] for part in manifest["parts"])
    assert f"**{total} pieces**" in md.read_text()


def test_plate_objects_are_closed_solids(plates: list[Path]) -> None:
    """Shared vertices: a slicer reads a triangle soup as loose faces, not a solid."""
    for path in plates:
        if path.suffix == ".3mf":
            scene = trimesh.load(path, process=False)
            for name, geometry in scene.geometry.items():
                assert geometry.is_watertight, f"{path.name}: {name}"


def test_every_plate_passes_lib3mf_strict_and_prusaslicer_opens_it(plates: list[Path]) -> None:
    slicer = shutil.which("prusa-slicer")
    for path in (p for p in plates if p.suffix == ".3mf"):
        names = read_strict(str(path))
        assert names, path.name
        if slicer is None:
            continue
        info = subprocess.run(
            [slicer, "--info", str(path)], capture_output=True, text=True, check=False, timeout=120
        )
        assert info.returncode == 0, info.stderr
        assert info.stdout.count("number_of_parts") == len(names), path.name  # one per object
        assert info.stdout.count("manifold = yes") == len(names), path.name

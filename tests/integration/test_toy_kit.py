"""A kit defined only under tests/ (tests/toykit: tiles and a tray) goes through the whole
pipeline with no engine edit: build, fit, checks, plates, BOM, previews; and an outside
package adds a kit through the `squadron_cad.kits` entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import lib3mf
import numpy as np
import pytest
import trimesh
from helpers import CLI_COMMAND, TEST_JOBS, registered
from PIL import Image
from toykit import TOY_KIT

from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.transaction import build
from squadron_cad.pipeline.verify import check_outputs
from squadron_cad.resolve import resolve

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def toy_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BuildReport]:
    """Built once; known to this process only while the module runs (a kit left
    registered lent its words, tray and tile, to test_engine_boundary's engine check)."""
    with registered(TOY_KIT):
        out = tmp_path_factory.mktemp("toy") / "kit"
        yield build(resolve(kit="toy"), BuildOptions(out_dir=out, jobs=TEST_JOBS))


def test_the_toy_kit_builds_whole_and_passes(toy_build: BuildReport) -> None:
    assert toy_build.committed
    assert not toy_build.failures
    assert sorted(r.spec.name for r in toy_build.parts) == ["tile", "tile_plain", "tray"]
    tile = trimesh.load_mesh(toy_build.out_dir / "stl" / "tile.stl")
    assert tile.is_watertight
    # A 20 x 20 x 3 tile less its groove, 20 long (it runs past both edges), 2 wide, 0.6 deep.
    assert tile.volume == pytest.approx(20 * 20 * 3 - 20 * 2 * 0.6, abs=0.01)
    counts = {r.spec.name: r.count for r in toy_build.parts}
    assert counts == {"tile": 6, "tray": 1, "tile_plain": 0}  # 3 tiles for each of 2 players
    plain = trimesh.load_mesh(toy_build.out_dir / "stl" / "tile_plain.stl")  # no groove
    assert plain.is_watertight
    assert plain.volume == pytest.approx(20 * 20 * 3, abs=0.01)


def test_the_manifest_names_the_kit_and_its_credit(toy_build: BuildReport) -> None:
    data = json.loads((toy_build.out_dir / "manifest.json").read_text())
    assert data["kit"]["name"] == "toy"
    assert data["kit"]["credit"].startswith("Toy tiles")
    assert [item["name"] for item in data["invariants"]] == ["tile thickness"]
    assert all(item["ok"] for item in data["invariants"])


def test_every_tile_lies_in_a_tray_pocket(toy_build: BuildReport) -> None:
    layout = json.loads((toy_build.out_dir / "layout.json").read_text())
    assert layout["box"]["stl"] == "stl/tray.stl"
    assert layout["lid"] is None
    assert len(layout["contents"]) == 6
    tray = trimesh.load_mesh(toy_build.out_dir / "stl" / "tray.stl")
    for entry in layout["contents"]:
        tile = trimesh.load_mesh(toy_build.out_dir / entry["stl"])
        tile.apply_transform(entry["transform"])
        clash = trimesh.boolean.intersection([tray, tile], engine="manifold")
        assert clash.is_empty or clash.volume < 1e-6, entry["name"]


def test_bom_plates_and_previews_come_from_the_declarations(toy_build: BuildReport) -> None:
    out = toy_build.out_dir
    bom = (out / "bom.md").read_text()
    assert "pencil" in bom
    assert "tile" in bom
    plates = sorted(path.name for path in (out / "plates").glob("*.3mf"))
    assert plates == ["player1.3mf", "player2.3mf", "shared.3mf"]
    model = lib3mf.get_wrapper().CreateModel()
    model.QueryReader("3mf").ReadFromFile(str(out / "plates" / plates[0]))
    objects = model.GetObjects()
    count = 0
    while objects.MoveNext():
        count += 1
    assert count == 3  # one player's three tiles
    pictures = sorted(path.stem for path in (out / "previews").glob("*.png"))
    assert {"tile", "tray", "packed_box"} <= set(pictures)
    # The tray declares a camera straight above: its picture is the 79 x 59 mm outline.
    with Image.open(out / "previews" / "tray.png") as picture:
        pixels = np.asarray(picture.convert("RGB"), dtype=int)
    rows, cols = np.nonzero(np.abs(pixels - pixels[0, 0]).sum(axis=2) > 18)  # not background
    assert (np.ptp(cols) + 1) / (np.ptp(rows) + 1) == pytest.approx(79 / 59, rel=0.03)


def test_check_reads_the_kit_back(toy_build: BuildReport) -> None:
    checked = check_outputs(toy_build.out_dir)
    assert not checked.failures
    assert checked.parts == ["tile", "tray", "tile_plain"]


def test_an_outside_package_adds_a_kit_by_entry_point(tmp_path: Path) -> None:
    """A distribution on the path naming toykit:TOY_KIT in the squadron_cad.kits group."""
    site = tmp_path / "site"
    shutil.copytree(TESTS / "toykit", site / "toykit")
    info = site / "toykit-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toykit\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[squadron_cad.kits]\ntoy = toykit:TOY_KIT\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    listed = subprocess.run([*CLI_COMMAND, "kits"], capture_output=True, text=True, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "toy" in listed.stdout
    assert "squadron-leader" in listed.stdout
    fit = subprocess.run(
        [*CLI_COMMAND, "fit", "--kit", "toy"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert fit.returncode == 0, fit.stderr
    assert "pocket" in fit.stdout


def test_cached_kit_checks_follow_the_kits_own_source() -> None:
    """The cache key of a kit's checks is its own package's source, not the engine's."""
    import toykit

    from squadron_cad.pipeline.kit_checks import kit_version
    from squadron_cad.versions import code_version

    assert kit_version(TOY_KIT) == code_version(toykit)
    assert kit_version(TOY_KIT) != code_version(sys.modules["squadron_cad"])

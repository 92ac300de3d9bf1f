"""Print plates and the bill of materials for a really built kit."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trimesh
from plate_layers import assert_one_change_colours_marks_only

from squadron_cad.checks import slicer
from squadron_cad.outputs.bom import write_bom
from squadron_cad.outputs.plates import write_plates
from squadron_cad.outputs.threemf import read_objects, read_strict
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve


@pytest.fixture(scope="module")
def kit(draft_kit: BuildReport, tmp_path_factory) -> BuildReport:
    """The session's draft kit, copied: this module writes plates and a BOM into it."""
    out = tmp_path_factory.mktemp("plates") / "out"
    shutil.copytree(draft_kit.out_dir, out)
    return dataclasses.replace(draft_kit, out_dir=out)


@pytest.fixture(scope="module")
def manifest(kit: BuildReport) -> dict[str, Any]:
    return json.loads((kit.out_dir / "manifest.json").read_text())


@pytest.fixture(scope="module")
def plates(kit: BuildReport, manifest) -> list[Path]:
    counts = {part["name"]: part["count"] for part in manifest["parts"]}
    return write_plates(kit.out_dir, kit.params, counts)


MARKED = {"plane_token", "altitude_token", "stat_dial_card"}  # raised marks: two volumes


def test_each_marked_piece_is_one_object_of_two_coloured_volumes(plates: list[Path]) -> None:
    """lib3mf (strict) reads body and marks as one object whose triangles carry two base
    materials; the marks' colour contrasts with the player's."""
    for path in (p for p in plates if p.suffix == ".3mf" and p.name.startswith("player")):
        for item in read_objects(str(path)):
            part = item.name.rsplit(" ", 1)[0] if item.name[-1].isdigit() else item.name
            colours = [volume.colour_hex for volume in item.volumes]
            if part not in MARKED:
                assert len(colours) == 1, item.name
                continue
            assert len(colours) == 2, item.name
            assert colours[0] == item.colour_hex, item.name
            assert colours[1] in ("#1C1C1C", "#F2F2F2"), item.name
            body, marks = item.volumes
            assert marks.vertices[:, 2].min() >= body.vertices[:, 2].min() + 0.5, item.name


def without_colour_changes(plate: Path, folder: Path) -> Path:
    """A copy of the plate without its colour changes: PrusaSlicer 2.5's --export-3mf
    crashes (SIGSEGV) on any 3MF that has some (its issue 12770; slicing and the GUI read
    them), and this test reads the volumes only."""
    copy = folder / f"plain_{plate.name}"
    with zipfile.ZipFile(plate) as source, zipfile.ZipFile(copy, "w") as target:
        for entry in source.infolist():
            if not entry.filename.endswith("custom_gcode_per_print_z.xml"):
                target.writestr(entry, source.read(entry.filename))
    return copy


def test_prusaslicer_reads_the_marks_as_a_second_volume_on_extruder_2(plates, tmp_path) -> None:
    slicer_exe = shutil.which("prusa-slicer")
    if slicer_exe is None:
        pytest.skip("prusa-slicer is not installed")
    two = []
    marked = [p for p in plates if p.name.startswith("player1_red_marks_") and p.suffix == ".3mf"]
    for plate in marked:
        again = tmp_path / f"again_{plate.name}"
        env = {**os.environ, "HOME": str(tmp_path)}
        run = subprocess.run(
            [slicer_exe, "--export-3mf", "--output", str(again),
             str(without_colour_changes(plate, tmp_path))],
            capture_output=True, text=True, check=False, timeout=300, env=env,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        with zipfile.ZipFile(again) as archive:
            config = archive.read("Metadata/Slic3r_PE_model.config").decode()
        objects = config.split("<object ")[1:]
        assert len(objects) == len(read_objects(str(plate)))
        two += [o for o in objects if o.count("<volume ") == 2]
    assert len(two) == 6  # plane token, 4 altitude tokens, stat card
    for block in two:
        assert 'key="extruder" value="2"' in block
        assert re.search(r'value="[^"]* marks"', block)


def test_the_bom_lists_each_plates_colours_and_filament_change(kit: BuildReport) -> None:
    plates = {plate["plate"]: plate for plate in kit.extras["plates"]}
    p = kit.params
    layer = p.slicer.layer_height_mm
    player = [plate for name, plate in plates.items() if name.startswith("player1_red")]
    rows = {row["part"]: (row, plate) for plate in player for row in plate["parts"]}
    for part, begins in (
        ("plane_token", p.token.height_mm),
        ("altitude_token", p.token.height_mm - p.text.depth_mm),
        ("stat_dial_card", p.stat_dial.card_thickness_mm - p.text.depth_mm),
    ):
        row, plate = rows[part]
        change = row["change_at_mm"]
        assert row["marks_from_mm"] == pytest.approx(begins)
        # the first layer cut (at its middle) above the marks' base
        assert begins < change - layer / 2 <= begins + layer + 1e-6, part
        assert round(change / layer, 6).is_integer(), part
        assert plate["filament_change_mm"] == change, part  # the plate's one change
        assert plate["change_layer"] == round(change / layer), part
    assert plates["player1_red"]["filament_change_mm"] is None  # the clips: one colour
    assert plates["shared"]["filament_change_mm"] is None
    bom = (kit.out_dir / "bom.md").read_text()
    assert "## Colours per plate" in bom
    for name, plate in plates.items():
        assert f"`plates/{name}.3mf`" in bom
        if plate["filament_change_mm"] is not None:
            assert f"**{plate['filament_change_mm']:g} mm**" in bom


def world_bounds(scene: trimesh.Scene, node: str) -> np.ndarray:
    transform, geometry = scene.graph[node]
    points = trimesh.transform_points(scene.geometry[geometry].vertices, transform)
    return np.array([points.min(axis=0), points.max(axis=0)])


def test_plates_hold_the_manifest_counts(plates: list[Path], manifest) -> None:
    names = sorted(path.name for path in plates if path.suffix == ".3mf")
    changes = ("", "_marks_1.2mm", "_marks_3.8mm", "_marks_4.2mm")
    players = [f"{player}{change}.3mf" for player in ("player1_red", "player2_blue")
               for change in changes]  # fmt: skip
    assert names == sorted([*players, "shared.3mf"])
    printed: dict[str, int] = {}
    for path in plates:
        if path.suffix == ".3mf":
            for node in trimesh.load(path).graph.nodes_geometry:
                part = node.rsplit(" ", 1)[0]
                printed[part] = printed.get(part, 0) + 1
    expected = {p["name"]: p["count"] for p in manifest["parts"] if p["count"] > 0}
    assert printed == expected


def test_each_player_plate_has_one_players_pieces(plates: list[Path]) -> None:
    parts = []
    for path in (p for p in plates if p.name.startswith("player2_blue") and p.suffix == ".3mf"):
        parts += [node.rsplit(" ", 1)[0] for node in trimesh.load(path).graph.nodes_geometry]
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


def slicer_info(path: Path) -> list[dict[str, float]]:
    """PrusaSlicer's --info figures, one dict per object, in the file's order."""
    slicer = shutil.which("prusa-slicer")
    if slicer is None:
        pytest.skip("prusa-slicer is not installed")
    run = subprocess.run(
        [slicer, "--info", str(path)], capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.split(f"[{path.name}]")[1:]
    pairs = (re.findall(r"^(\w+) = +([-\d.]+)$", block, re.MULTILINE) for block in blocks)
    return [{key: float(value) for key, value in found} for found in pairs]


def test_prusaslicer_reads_each_object_where_and_as_large_as_it_was_written(plates) -> None:
    for path in (p for p in plates if p.suffix == ".3mf"):
        written = read_objects(str(path))
        info = slicer_info(path)
        assert len(info) == len(written), path.name
        for item, figures in zip(written, info, strict=True):
            low, high = item.vertices.min(axis=0), item.vertices.max(axis=0)
            for axis, (a, b) in zip("xyz", zip(low, high, strict=True), strict=True):
                assert figures[f"min_{axis}"] == pytest.approx(a, abs=1e-3), (path.name, item.name)
                assert figures[f"size_{axis}"] == pytest.approx(b - a, abs=1e-3), item.name


def test_writing_the_plates_again_gives_the_same_bytes(kit: BuildReport, plates, tmp_path) -> None:
    again = tmp_path / "again"
    shutil.copytree(kit.out_dir / "stl", again / "stl")
    counts = {p.spec.name: p.count for p in kit.parts}
    rewritten = write_plates(again, kit.params, counts)
    assert [p.name for p in rewritten] == [p.name for p in plates]
    for first, second in zip(plates, rewritten, strict=True):
        assert first.read_bytes() == second.read_bytes(), first.name


# ---- a width-30 kit in a 170 x 130 x 45 mm tin: its one-piece ruler is 270 mm long ----------

WIDE_TOKENS = [
    "quality=draft",
    "token.width_mm=30",
    "tin.inner_length_mm=170",
    "tin.inner_width_mm=130",
    "tin.inner_depth_mm=45",
]


@pytest.fixture(scope="module")
def wide_ruler(tmp_path_factory, shared_cache: Path) -> BuildReport:
    options = BuildOptions(
        out_dir=tmp_path_factory.mktemp("wide"),
        only=("range_ruler",),
        previews=False,
        jobs=1,
        cache_dir=shared_cache,
    )
    return build(resolve(overrides=WIDE_TOKENS), options)


def test_the_270_mm_ruler_fits_the_bed_turned_and_is_sliced_so(wide_ruler: BuildReport) -> None:
    (ruler,) = (r for r in wide_ruler.parts if r.spec.name == "range_ruler")
    length = ruler.bounds[1][0] - ruler.bounds[0][0]
    assert length > 250  # longer than the bed, shorter than its 326 mm diagonal
    fits = next(f for f in ruler.findings if f.check == "fits_bed")
    assert fits.severity == "ok"
    assert "turned" in str(fits.measured)
    assert not [f for f in wide_ruler.kit_findings if f.part == "range_ruler"]
    sliced = wide_ruler.extras["slicer"]
    if "skipped" not in sliced:
        assert "range_ruler" in sliced["parts"], sliced["errors"]


def test_the_270_mm_ruler_lies_diagonally_inside_the_bed_on_a_plate(wide_ruler) -> None:
    out, params = wide_ruler.out_dir, wide_ruler.params
    written = write_plates(out, params, {"range_ruler": 1})  # printed instead of the sections
    (plate,) = (p for p in written if p.suffix == ".3mf")
    (ruler,) = read_objects(str(plate))
    assert ruler.name == "range_ruler"
    margin = params.plates.margin_mm
    far = np.array([params.printer.bed_length_mm, params.printer.bed_width_mm]) - margin
    xy = ruler.vertices[:, :2]
    assert np.all(xy >= margin - 1e-3), "every vertex inside the bed's margin"
    assert np.all(xy <= far + 1e-3), "every vertex inside the bed's margin"
    spread = xy.max(axis=0) - xy.min(axis=0)
    assert min(spread) > 50, "turned: 270 x 7.5 mm fits the bed neither way square on"
    (figures,) = slicer_info(plate)
    assert figures["size_x"] == pytest.approx(spread[0], abs=1e-3)


def extrusion_extent(gcode: str) -> np.ndarray:
    """[[x min, y min], [x max, y max]] of the moves that extrude (skirt included)."""
    points = [
        (float(x), float(y))
        for x, y in re.findall(r"^G1 X([-\d.]+) Y([-\d.]+) E", gcode, re.MULTILINE)
    ]
    assert points, "no extruding moves"
    return np.array([np.min(points, axis=0), np.max(points, axis=0)])


def test_the_slicer_prints_the_270_mm_ruler_diagonally_on_the_bed(wide_ruler, tmp_path) -> None:
    executable, reason = slicer.find_slicer()
    if executable is None:
        pytest.skip(reason)
    settings = slicer.SliceSettings.from_params(wide_ruler.params)
    stl = wide_ruler.out_dir / "stl" / "range_ruler.stl"
    placed = slicer.placement(stl, settings)
    gcode = tmp_path / "range_ruler.gcode"
    command = slicer.slice_command(executable, stl, settings, placed, gcode)
    env = {**os.environ, "HOME": str(tmp_path)}  # not the user's slicer settings
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)
    assert run.returncode == 0, run.stderr
    low, high = extrusion_extent(gcode.read_text())
    assert np.all(low >= 0), f"extrudes off the bed at {low}"
    assert np.all(high <= [settings.bed_length_mm, settings.bed_width_mm]), f"off the bed: {high}"
    assert min(high - low) > 100, "turned: square on it would be a 270 x 7.5 mm strip"


def test_a_remembered_plate_is_the_plate_written(
    kit: BuildReport, manifest, plates: list[Path], tmp_path: Path, monkeypatch
) -> None:
    """Kept between builds by what is written into it: the same bytes, not written again."""
    from squadron_cad.checks import memo
    from squadron_cad.outputs import plates as plate_module
    from squadron_cad.render.cache import RenderCache

    counts = {part["name"]: part["count"] for part in manifest["parts"]}
    written = {path.name: path.read_bytes() for path in plates if path.suffix == ".3mf"}
    copy = tmp_path / "kit"
    shutil.copytree(kit.out_dir, copy)
    store = RenderCache(tmp_path / "cache")
    with memo.remembering_in(store, "v1"):
        write_plates(copy, kit.params, counts)

        def written_again(*_args: object) -> bytes:
            raise AssertionError("a plate written again although nothing in it changed")

        monkeypatch.setattr(plate_module, "plate_bytes", written_again)
        again = write_plates(copy, kit.params, counts)
    assert {path.name: path.read_bytes() for path in again if path.suffix == ".3mf"} == written


def test_one_filament_change_colours_every_part_on_each_plate(
    kit: BuildReport, plates, tmp_path: Path
) -> None:
    """Each of player 1's plates sliced by PrusaSlicer as a single-extruder printer: the
    3MF's own colour change (M600) comes before the layer the BOM names, and on every
    layer (cut at its middle) no piece's body prints in the marks' colour and no mark in
    the body's. Before, one plate per player changed filament at the stat card's 1 mm: the
    4 mm tokens' bodies printed in the marks' colour from there up (and the 3MF carried
    no change at all)."""
    if shutil.which("prusa-slicer") is None:
        pytest.skip("prusa-slicer is not installed")
    summaries = {plate["plate"]: plate for plate in kit.extras["plates"]}
    chosen = [p for p in plates if p.suffix == ".3mf" and p.name.startswith("player1_red")]
    assert len(chosen) == 4
    for plate in chosen:
        assert_one_change_colours_marks_only(plate, summaries[plate.stem], kit.params, tmp_path)

"""Print plates on synthetic parts: the packer never overlaps, plates fit the bed, counts hold."""

from __future__ import annotations

import itertools
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.errors import InputError
from squadron_cad.kit import kit_of, variant_name
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.outputs.plates import (
    Skyline,
    accent_material,
    by_change,
    change_height,
    one_change_height,
    plate_groups,
    plate_material,
    split_at,
    write_plates,
)
from squadron_cad.outputs.threemf import read_objects, read_strict
from squadron_cad.resolve import resolve

# Stand-in footprints (x, y, z) close to the real parts', so packing is realistic.
SIZES = {
    "plane_token": (24, 24, 5),
    "altitude_token": (24, 24, 5.5),
    "stat_dial_card": (36.6, 32.8, 1.6),
    "stat_dial_clip": (7.7, 3.4, 5.6),
    "template_all": (78, 52, 4),
    "range_ruler_1": (83, 6.5, 4),
    "range_ruler_2": (83, 6.5, 4),
    "range_ruler_3": (78, 6.5, 4),
    "box": (107, 82, 25),
    "box_lid": (105, 80, 1.6),
}


BY_PLAYER = {spec.name for spec in PARTS if spec.player_builder is not None}


def fake_out(folder: Path, sizes: dict[str, tuple[float, float, float]] = SIZES) -> Path:
    """Box stand-ins for every part, and for each player's own copy (up to 8 players)."""
    (folder / "stl").mkdir(parents=True, exist_ok=True)
    for name, size in sizes.items():
        mesh = trimesh.creation.box(extents=size)
        mesh.apply_translation([5.0, -3.0, size[2] / 2 + 2.0])  # off-centre and off the bed
        stems = [name] + ([variant_name(name, i) for i in range(8)] if name in BY_PLAYER else [])
        for stem in stems:
            mesh.export(folder / "stl" / f"{stem}.stl")
    return folder


def counts_for(players: int) -> dict[str, int]:
    params = resolve(overrides=[f"players={players}"])
    return {spec.name: spec.count(params) for spec in PARTS}


def placed(path: Path) -> dict[str, np.ndarray]:
    """Each object's vertices, placed on the bed, by its name in a plate's 3MF."""
    scene = trimesh.load(path)
    objects = {}
    for node in scene.graph.nodes_geometry:
        transform, geometry = scene.graph[node]
        objects[node] = trimesh.transform_points(scene.geometry[geometry].vertices, transform)
    return objects


def bounds_of(points: np.ndarray) -> np.ndarray:
    return np.array([points.min(axis=0), points.max(axis=0)])


def test_skyline_places_without_overlap() -> None:
    sky = Skyline(100, 60)
    rects = []
    for w, h in [(40, 20), (30, 30), (50, 10), (20, 20), (60, 15), (10, 40)]:
        spots = sky.spots(w, h)
        if not spots:
            continue
        x, y = min(spots, key=lambda s: (s[1] + h, s[0]))
        sky.place(x, y, w, h)
        rects.append((x, y, x + w, y + h))
    assert len(rects) >= 5
    for a, b in itertools.combinations(rects, 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert all(r[2] <= 100 and r[3] <= 60 for r in rects)


@pytest.mark.parametrize("players", [1, 2, 5])
def test_plates_hold_each_players_parts_and_fit_the_bed(tmp_path: Path, players: int) -> None:
    params = resolve(overrides=[f"players={players}"])
    counts = counts_for(players)
    out = fake_out(tmp_path)
    written = write_plates(out, params, counts)
    three_mfs = [p for p in written if p.suffix == ".3mf"]
    assert {p.with_suffix(".stl") for p in three_mfs} <= set(written)
    total: dict[str, int] = {}
    for path in three_mfs:
        objects = placed(path)
        for label, points in objects.items():
            total[label.rsplit(" ", 1)[0]] = total.get(label.rsplit(" ", 1)[0], 0) + 1
            low, high = bounds_of(points)
            assert low[0] >= params.plates.margin_mm - 1e-6
            assert low[1] >= params.plates.margin_mm - 1e-6
            assert high[0] <= params.printer.bed_length_mm - params.plates.margin_mm + 1e-6
            assert high[1] <= params.printer.bed_width_mm - params.plates.margin_mm + 1e-6
            assert abs(low[2]) < 1e-6, f"{label} must stand on the bed"
        assert_spaced(objects, params.plates.spacing_mm)
    assert total == {name: n for name, n in counts.items() if n > 0}


def assert_spaced(objects: dict[str, np.ndarray], spacing: float) -> None:
    boxes = {label: bounds_of(points) for label, points in objects.items()}
    for (a, ba), (b, bb) in itertools.combinations(boxes.items(), 2):
        gap_x = max(bb[0][0] - ba[1][0], ba[0][0] - bb[1][0])
        gap_y = max(bb[0][1] - ba[1][1], ba[0][1] - bb[1][1])
        assert max(gap_x, gap_y) >= spacing - 1e-6, f"{a} and {b} closer than {spacing} mm"


PLAYER1 = ("player1_red", "player1_red_marks_1.2mm", "player1_red_marks_3.8mm",
           "player1_red_marks_4.2mm")  # clips; card; altitude tokens; plane token  # fmt: skip


def player1_labels(folder: Path) -> list[str]:
    labels = []
    for name in PLAYER1:
        labels += trimesh.load(folder / f"{name}.3mf").geometry
    return sorted(labels)


def test_player_plates_are_named_after_the_colours(tmp_path: Path) -> None:
    params = resolve(overrides=["players=2"])
    names = {p.name for p in write_plates(fake_out(tmp_path), params, counts_for(2))}
    assert {"player1_red.3mf", "player2_blue.3mf", "shared.3mf", "shared.stl"} <= names
    assert {f"{name}.3mf" for name in PLAYER1} <= names
    labels = player1_labels(tmp_path / "plates")
    assert labels.count("plane_token") == 1  # one copy: no number
    assert sum(label.startswith("altitude_token ") for label in labels) == 4
    assert sum(label.startswith("stat_dial_clip ") for label in labels) == 4


def test_parts_are_grouped_by_their_filament_change() -> None:
    """Each player's parts go on plates by the height of their one filament change, so
    one change (or none) colours every part on a plate right: before, the stat card's
    1.0 mm change coloured the 4 mm tokens' bodies from there up."""
    params = resolve()
    kit = kit_of(params)
    wanted = plate_groups(params, counts_for(2))["player1_red"]
    groups = by_change(wanted, params)
    assert {change: sorted(n for n, _ in parts) for change, parts in groups.items()} == {
        None: ["stat_dial_clip"],
        1.2: ["stat_dial_card"],
        3.8: ["altitude_token"],
        4.2: ["plane_token"],
    }
    for change, parts in groups.items():
        for name, _count in parts:
            assert one_change_height(kit.part(name), params) == change


def test_a_plate_with_a_change_tells_prusaslicer_where(tmp_path: Path) -> None:
    """The change is in the 3MF, as PrusaSlicer's colour changes by height (M600 before
    the layer ending at print_z), in the marks' colour; a one-colour plate has none."""
    params = resolve(overrides=["players=2"])
    write_plates(fake_out(tmp_path), params, counts_for(2))
    changes = "Metadata/Prusa_Slicer_custom_gcode_per_print_z.xml"
    with zipfile.ZipFile(tmp_path / "plates" / "player1_red_marks_3.8mm.3mf") as archive:
        text = archive.read(changes).decode()
    assert '<code print_z="3.8" type="0" extruder="1" color="#f2f2f2"' in text
    assert '<mode value="SingleExtruder"/>' in text
    for plain in ("player1_red.3mf", "shared.3mf"):
        with zipfile.ZipFile(tmp_path / "plates" / plain) as archive:
            assert changes not in archive.namelist()


def test_alternatives_are_not_on_any_plate() -> None:
    params = resolve()
    groups = plate_groups(params, counts_for(2))
    on_plates = {name for wanted in groups.values() for name, _ in wanted}
    alternatives = {spec.name for spec in PARTS if spec.alternative_to}
    assert not on_plates & alternatives
    assert {name for name, _ in groups["shared"]} == {
        "template_all",
        "range_ruler_1",
        "range_ruler_2",
        "range_ruler_3",
        "box",
        "box_lid",
    }


def test_a_small_bed_takes_more_plates_and_a_too_small_one_is_refused(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    small = resolve(overrides=["printer.bed_length_mm=120", "printer.bed_width_mm=100"])
    written = write_plates(out, small, counts_for(2))
    assert any(p.name == "shared_2.3mf" for p in written)
    tiny = resolve(overrides=["printer.bed_length_mm=90", "printer.bed_width_mm=90"])
    with pytest.raises(InputError) as error:
        write_plates(out, tiny, counts_for(2))
    message = str(error.value)
    for words in ("box", "printer.bed_length_mm", "printer.bed_width_mm", "plates.margin_mm"):
        assert words in message
    assert "template_all" not in message  # 78 x 52 fits a 90 x 90 bed


def test_plates_of_an_earlier_build_are_removed(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    write_plates(out, resolve(overrides=["players=3"]), counts_for(3))
    assert (out / "plates" / "player3_green.3mf").is_file()
    write_plates(out, resolve(overrides=["players=2"]), counts_for(2))
    assert not (out / "plates" / "player3_green.3mf").exists()


def test_a_missing_stl_is_named(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    (out / "stl" / "box_lid.stl").unlink()
    with pytest.raises(InputError, match="box_lid"):
        write_plates(out, resolve(), counts_for(2))


def test_plates_pass_lib3mf_strict_and_are_byte_identical(tmp_path: Path) -> None:
    params = resolve(overrides=["players=2"])
    first = write_plates(fake_out(tmp_path / "a"), params, counts_for(2))
    second = write_plates(fake_out(tmp_path / "b"), params, counts_for(2))
    for one, other in zip(first, second, strict=True):
        assert one.read_bytes() == other.read_bytes(), one.name
    names = []
    for name in PLAYER1:
        names += read_strict(str(tmp_path / "a" / "plates" / f"{name}.3mf"))
    assert "plane_token" in names
    assert sum(name.startswith("altitude_token ") for name in names) == 4


def test_each_player_plate_carries_the_players_colour(tmp_path: Path) -> None:
    params = resolve(overrides=["players=2"])
    write_plates(fake_out(tmp_path), params, counts_for(2))
    seen = set()
    for plate in ("player1_red", "player2_blue", "shared"):
        with zipfile.ZipFile(tmp_path / "plates" / f"{plate}.3mf") as archive:
            model = archive.read("3D/3dmodel.model").decode()
        colour = plate_material(plate, params)[1].upper()
        assert f'displaycolor="{colour}FF"' in model
        seen.add(colour)
    assert len(seen) == 3


def test_a_part_longer_than_the_bed_lies_on_the_diagonal_inside_it(tmp_path: Path) -> None:
    sizes = {**SIZES, "range_ruler_1": (240, 7.5, 4)}  # longer than the 210 mm side
    out = fake_out(tmp_path, sizes)
    params = resolve(overrides=["printer.bed_length_mm=220", "printer.bed_width_mm=210"])
    write_plates(out, params, counts_for(2))
    found = False
    for plate in (out / "plates").glob("shared*.3mf"):
        for label, points in placed(plate).items():
            low, high = bounds_of(points)
            assert min(low[0], low[1]) >= -1e-6, label
            assert high[0] <= 220 + 1e-6, label
            assert high[1] <= 210 + 1e-6, label
            found |= label.startswith("range_ruler_1")
    assert found


def test_object_uuids_are_unique_and_follow_the_content(tmp_path: Path) -> None:
    params = resolve(overrides=["players=2"])
    write_plates(fake_out(tmp_path), params, counts_for(2))
    uuids = []
    for name in PLAYER1:
        with zipfile.ZipFile(tmp_path / "plates" / f"{name}.3mf") as archive:
            model = archive.read("3D/3dmodel.model").decode()
            dates = {info.date_time for info in archive.infolist()}
        uuids += re.findall(r'p:UUID="([0-9a-f-]+)"', model)
    # each plate's build, and the 10 objects and their items
    assert len(uuids) == len(set(uuids)) == len(PLAYER1) + 2 * 10
    assert dates == {(1980, 0, 0, 0, 0, 0)}  # no clock in the archive


def one_piece_ruler_counts() -> dict[str, int]:
    """A kit printing the one-piece ruler instead of its three sections."""
    sections = {"range_ruler_1": 0, "range_ruler_2": 0, "range_ruler_3": 0}
    return {**counts_for(2), **sections, "range_ruler": 1}


def test_a_one_piece_ruler_longer_than_the_bed_lies_diagonally_inside_it(tmp_path: Path) -> None:
    out = fake_out(tmp_path, {**SIZES, "range_ruler": (270, 7.5, 4)})
    written = write_plates(out, resolve(), one_piece_ruler_counts())  # a 250 x 210 bed, 5 mm margin
    rulers = [
        item
        for path in written
        if path.suffix == ".3mf"
        for item in read_objects(str(path))
        if item.name == "range_ruler"
    ]
    assert len(rulers) == 1
    points = rulers[0].vertices
    assert np.all(points[:, :2] >= 5 - 1e-6), "inside the 5 mm margin"
    assert np.all(points[:, :2] <= np.array([245, 205]) + 1e-6), "inside the 5 mm margin"
    ends = points[:, :2].max(axis=0) - points[:, :2].min(axis=0)
    assert min(ends) > 50  # turned: neither axis-aligned way (270 x 7.5) fits


def test_an_optional_part_that_fits_no_way_is_left_off_the_plates(tmp_path: Path) -> None:
    out = fake_out(tmp_path, {**SIZES, "range_ruler": (330, 7.5, 4)})
    written = write_plates(out, resolve(), one_piece_ruler_counts())  # no exception
    three_mfs = [str(path) for path in written if path.suffix == ".3mf"]
    names = {item.name for path in three_mfs for item in read_objects(path)}
    assert "range_ruler" not in names
    assert "box" in names


def test_marks_part_from_the_body_above_their_base_without_a_flat_sheet() -> None:
    """A 2 mm block standing on a 4 mm slab, split at the slab's top: the marks' half is
    the block alone (the slab's top face, in the cutting plane, stays with the body)."""
    slab = trimesh.creation.box(extents=(20, 20, 4))
    slab.apply_translation([0, 0, 2])
    block = trimesh.creation.box(extents=(5, 5, 2))
    block.apply_translation([0, 0, 4.99])  # overlaps the slab by 0.01 mm, as our parts do
    solid = slab.union(block)
    body, marks = split_at(solid, 4.0)
    assert marks is not None
    assert body.is_watertight
    assert marks.is_watertight
    assert marks.bounds[:, :2].tolist() == [[-2.5, -2.5], [2.5, 2.5]]
    assert marks.volume == pytest.approx(25 * (5.99 - 4.0), rel=1e-3)
    assert body.volume + marks.volume == pytest.approx(solid.volume, rel=1e-6)
    assert split_at(slab, 4.0)[1] is None  # nothing above: one volume


@pytest.mark.parametrize(
    ("body", "marks"),
    [
        ("#ffff00", "#1c1c1c"),
        ("#ffffff", "#1c1c1c"),
        ("#0000ff", "#f2f2f2"),
        ("#000000", "#f2f2f2"),
    ],
)
def test_the_marks_colour_contrasts_with_the_body(body: str, marks: str) -> None:
    assert accent_material(body)[1] == marks


def test_the_filament_change_is_the_first_layer_cut_above_the_marks_base() -> None:
    """The slicer cuts each layer at its middle: the layer [3.4, 3.6] is cut at 3.5, at the
    recess floor, and prints the body there; the marks' colour starts with [3.6, 3.8]
    (before: 3.6, the layer whose cut holds the body's top)."""
    params = resolve()  # 0.2 mm layers, 0.2 mm first layer
    assert change_height(4.0, params) == pytest.approx(4.2)
    assert change_height(3.5, params) == pytest.approx(3.8)
    assert change_height(0.9, params) == pytest.approx(1.2)
    first = resolve(overrides=["slicer.first_layer_height_mm=0.3"])
    assert change_height(4.0, first) == pytest.approx(4.3)  # [3.9, 4.1] is cut at 4.0


def test_a_flush_marks_volume_keeps_to_its_outline() -> None:
    """A mark standing in a recess, flush with the top: above the recess floor only the
    region inside the outline is the marks' volume; the top around it stays body."""
    slab = trimesh.creation.box(extents=(20, 20, 4))
    slab.apply_translation([0, 0, 2])
    channel = trimesh.creation.box(extents=(6, 6, 1))
    channel.apply_translation([0, 0, 4])  # 0.5 deep into the top
    block = trimesh.creation.box(extents=(4, 4, 0.5))
    block.apply_translation([0, 0, 3.75])
    solid = slab.difference(channel).union(block)
    outline = [[(-2.5, -2.5), (2.5, -2.5), (2.5, 2.5), (-2.5, 2.5)]]
    body, marks = split_at(solid, 3.5, outline)
    assert marks is not None
    assert marks.volume == pytest.approx(16 * (4.0 - 3.501), rel=1e-3)  # the 4 x 4 block alone
    assert body.bounds[1][2] == pytest.approx(4.0)  # the top around it stays with the body
    assert body.volume + marks.volume == pytest.approx(solid.volume, rel=1e-6)

"""Print plates on synthetic parts (the toy kit's, as boxes): the packer never overlaps,
plates fit the bed, counts hold. Plates with marks of a second colour: Squadron Leader's,
tests/unit/kits/squadron_leader/test_leader_plates.py."""

from __future__ import annotations

import itertools
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import trimesh
from helpers import bounds_of, fake_stls, placed

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, kit_of
from squadron_cad.outputs.plate_colours import (
    accent_material,
    change_height,
    plate_material,
    split_at,
)
from squadron_cad.outputs.plates import Skyline, write_plates
from squadron_cad.outputs.threemf import read_objects, read_strict
from squadron_cad.params import KitParamsBase
from squadron_cad.resolve import resolve

# Stand-in footprints (x, y, z) of the toy kit's parts, so packing is realistic.
SIZES = {"tile": (20, 20, 3), "tile_plain": (20, 20, 3), "tray": (79, 59, 19.5)}


@pytest.fixture(autouse=True, scope="module")
def _toy(toy_kit: Kit) -> None:
    """Every plate here holds the toy kit's parts."""


def fake_out(folder: Path, sizes: dict[str, tuple[float, float, float]] = SIZES) -> Path:
    return fake_stls(folder, sizes)


def counts_for(params: KitParamsBase) -> dict[str, int]:
    return {spec.name: spec.count(params) for spec in kit_of(params).parts}


COLOURS = (
    "player_colours=["
    + ", ".join(f"{{name: {name}, colour: {name}}}" for name in ("red", "blue", "green"))
    + "]"
)


def toy(*overrides: str) -> KitParamsBase:
    """The toy kit's parameters with three players' colours (its defaults name none)."""
    return resolve(overrides=[COLOURS, *overrides], kit="toy")


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
    params = resolve(overrides=[f"players={players}"], kit="toy")
    counts = counts_for(params)
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


def test_player_plates_are_named_after_the_colours(tmp_path: Path) -> None:
    params = toy("players=2")
    names = {p.name for p in write_plates(fake_out(tmp_path), params, counts_for(params))}
    assert names == {"player1_red.3mf", "player1_red.stl", "player2_blue.3mf",
                     "player2_blue.stl", "shared.3mf", "shared.stl"}  # fmt: skip
    labels = sorted(trimesh.load(tmp_path / "plates" / "player1_red.3mf").geometry)
    assert labels == ["tile 1", "tile 2", "tile 3"]
    assert list(trimesh.load(tmp_path / "plates" / "shared.3mf").geometry) == ["tray"]  # one copy
    plain = resolve(overrides=["players=2"], kit="toy")  # no colours named: by number
    names = {p.name for p in write_plates(fake_out(tmp_path / "plain"), plain, counts_for(plain))}
    assert {"player1.3mf", "player2.3mf", "shared.3mf"} <= names


def test_alternatives_are_not_on_any_plate(tmp_path: Path) -> None:
    params = toy()
    written = write_plates(fake_out(tmp_path), params, counts_for(params))
    on_plates = {
        item.name.rsplit(" ", 1)[0]
        for path in written
        if path.suffix == ".3mf"
        for item in read_objects(str(path))
    }
    assert on_plates == {"tile", "tray"}  # not the plain tile, printed instead of a tile


def test_a_small_bed_takes_more_plates_and_a_too_small_one_is_refused(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    small = toy("players=1", "tile.per_player=12", "printer.bed_length_mm=90",
                "printer.bed_width_mm=70")  # fmt: skip
    written = {p.name for p in write_plates(out, small, counts_for(small))}
    assert {"player1_red.3mf", "player1_red_2.3mf", "shared.3mf"} <= written
    tiny = toy("printer.bed_length_mm=70", "printer.bed_width_mm=70")
    with pytest.raises(InputError) as error:
        write_plates(out, tiny, counts_for(tiny))
    message = str(error.value)
    for words in ("tray", "printer.bed_length_mm", "printer.bed_width_mm", "plates.margin_mm"):
        assert words in message
    assert "tile" not in message  # 20 x 20 fits a 70 x 70 bed


def test_plates_of_an_earlier_build_are_removed(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    three = toy("players=3")
    write_plates(out, three, counts_for(three))
    assert (out / "plates" / "player3_green.3mf").is_file()
    two = toy("players=2")
    write_plates(out, two, counts_for(two))
    assert not (out / "plates" / "player3_green.3mf").exists()


def test_a_missing_stl_is_named(tmp_path: Path) -> None:
    out = fake_out(tmp_path)
    (out / "stl" / "tray.stl").unlink()
    params = toy()
    with pytest.raises(InputError, match="tray"):
        write_plates(out, params, counts_for(params))


def test_plates_pass_lib3mf_strict_and_are_byte_identical(tmp_path: Path) -> None:
    params = toy("players=2")
    first = write_plates(fake_out(tmp_path / "a"), params, counts_for(params))
    second = write_plates(fake_out(tmp_path / "b"), params, counts_for(params))
    for one, other in zip(first, second, strict=True):
        assert one.read_bytes() == other.read_bytes(), one.name
    names = read_strict(str(tmp_path / "a" / "plates" / "player1_red.3mf"))
    assert sorted(names) == ["tile 1", "tile 2", "tile 3"]
    assert read_strict(str(tmp_path / "a" / "plates" / "shared.3mf")) == ["tray"]


def test_each_player_plate_carries_the_players_colour(tmp_path: Path) -> None:
    params = toy("players=2")
    write_plates(fake_out(tmp_path), params, counts_for(params))
    seen = set()
    for plate in ("player1_red", "player2_blue", "shared"):
        with zipfile.ZipFile(tmp_path / "plates" / f"{plate}.3mf") as archive:
            model = archive.read("3D/3dmodel.model").decode()
        colour = plate_material(plate, params)[1].upper()
        assert f'displaycolor="{colour}FF"' in model
        seen.add(colour)
    assert len(seen) == 3


def test_a_part_longer_than_the_bed_lies_on_the_diagonal_inside_it(tmp_path: Path) -> None:
    out = fake_out(tmp_path, {**SIZES, "tray": (240, 7.5, 4)})  # longer than the 210 mm side
    params = toy("printer.bed_length_mm=220", "printer.bed_width_mm=210")
    write_plates(out, params, counts_for(params))
    found = False
    for plate in (out / "plates").glob("shared*.3mf"):
        for label, points in placed(plate).items():
            low, high = bounds_of(points)
            assert min(low[0], low[1]) >= -1e-6, label
            assert high[0] <= 220 + 1e-6, label
            assert high[1] <= 210 + 1e-6, label
            found |= label.startswith("tray")
    assert found


def test_object_uuids_are_unique_and_follow_the_content(tmp_path: Path) -> None:
    params = toy("players=2")
    write_plates(fake_out(tmp_path), params, counts_for(params))
    uuids = []
    for name in ("player1_red", "player2_blue", "shared"):
        with zipfile.ZipFile(tmp_path / "plates" / f"{name}.3mf") as archive:
            model = archive.read("3D/3dmodel.model").decode()
            dates = {info.date_time for info in archive.infolist()}
        uuids += re.findall(r'p:UUID="([0-9a-f-]+)"', model)
    # each plate's build, and the 7 objects (3 + 3 tiles, the tray) and their items
    assert len(uuids) == len(set(uuids)) == 3 + 2 * 7
    assert dates == {(1980, 0, 0, 0, 0, 0)}  # no clock in the archive


def plain_tile_counts(params: KitParamsBase) -> dict[str, int]:
    """A kit printing one plain tile (an alternative) and no grooved ones."""
    return {**counts_for(params), "tile": 0, "tile_plain": 1}


def test_an_optional_part_longer_than_the_bed_lies_diagonally_inside_it(tmp_path: Path) -> None:
    out = fake_out(tmp_path, {**SIZES, "tile_plain": (270, 7.5, 4)})
    params = toy()  # a 250 x 210 bed, 5 mm margin
    written = write_plates(out, params, plain_tile_counts(params))
    plain = [
        item
        for path in written
        if path.suffix == ".3mf"
        for item in read_objects(str(path))
        if item.name == "tile_plain"
    ]
    assert len(plain) == 1
    points = plain[0].vertices
    assert np.all(points[:, :2] >= 5 - 1e-6), "inside the 5 mm margin"
    assert np.all(points[:, :2] <= np.array([245, 205]) + 1e-6), "inside the 5 mm margin"
    ends = points[:, :2].max(axis=0) - points[:, :2].min(axis=0)
    assert min(ends) > 50  # turned: neither axis-aligned way (270 x 7.5) fits


def test_an_optional_part_that_fits_no_way_is_left_off_the_plates(tmp_path: Path) -> None:
    out = fake_out(tmp_path, {**SIZES, "tile_plain": (330, 7.5, 4)})
    params = toy()
    written = write_plates(out, params, plain_tile_counts(params))  # no exception
    three_mfs = [str(path) for path in written if path.suffix == ".3mf"]
    names = {item.name for path in three_mfs for item in read_objects(path)}
    assert "tile_plain" not in names
    assert "tray" in names


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
    params = resolve(kit="toy")  # 0.2 mm layers, 0.2 mm first layer
    assert change_height(4.0, params) == pytest.approx(4.2)
    assert change_height(3.5, params) == pytest.approx(3.8)
    assert change_height(0.9, params) == pytest.approx(1.2)
    first = resolve(overrides=["slicer.first_layer_height_mm=0.3"], kit="toy")
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

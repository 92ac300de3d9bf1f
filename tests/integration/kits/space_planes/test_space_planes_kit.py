"""The Space Planes kit really rendered, once per session: the build passes with no failing
check, every invariant holds, every piece fits its box pocket and stays put in the closed
box, each player's cubes carry their mark as a second-colour volume, the footprint sheet
cuts what the cube's recess holds, and the tolerance coupons measure their labels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh
from shapely import affinity
from shapely.geometry import Polygon
from svg_layers import layer_rings

from squadron_cad.checks import meshgeo
from squadron_cad.checks.printability import bridge_finding, overhang_finding
from squadron_cad.checks.tin import box_in_tin_findings, tin_proof
from squadron_cad.geometry.marks import mark_shape, player_mark
from squadron_cad.kit import design_of, load_kit
from squadron_cad.kits.space_planes.parts.cubeship import key_offset
from squadron_cad.outputs.plates import write_plates
from squadron_cad.outputs.threemf import read_objects
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.verify import check_outputs
from squadron_cad.resolve import resolve
from squadron_cad.tolerance import COUPON_FOLDER, DEFAULT_LADDER, Ladder, build_plate

LABEL_TOLERANCE_MM = 0.02


@pytest.fixture(scope="module")
def kit(built_kit) -> BuildReport:
    return built_kit("space-planes")


@pytest.fixture(scope="module")
def invariants(kit: BuildReport) -> dict[str, dict]:
    data = json.loads((kit.out_dir / "manifest.json").read_text())
    return {item["name"]: item for item in data["invariants"]}


def test_the_kit_builds_with_no_failing_check(kit: BuildReport) -> None:
    assert kit.committed
    assert [f.line() for f in kit.failures] == []
    counts = {r.spec.name: r.count for r in kit.parts}
    assert counts == {"joker_gauge": 1, "cubeship": 6, "die_holder": 6, "box": 1, "box_lid": 1}


def test_every_part_is_one_closed_body_flat_on_the_bed(kit: BuildReport) -> None:
    for result in kit.parts:
        mesh = trimesh.load_mesh(result.stl)
        assert mesh.is_watertight, result.spec.name
        assert len(mesh.split(only_watertight=False)) == 1, result.spec.name
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-6), result.spec.name
        checks = {f.check: f for f in result.findings}
        for check in ("overhangs", "bridges", "thin_walls", "orientation"):
            assert checks[check].severity == "ok", (result.spec.name, checks[check].line())


def test_every_invariant_holds(invariants: dict[str, dict]) -> None:
    assert len(invariants) > 20, "the kit measured too few invariants"
    assert [name for name, item in invariants.items() if not item["ok"]] == []


C = resolve(kit="space-planes").cube


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("joker gauge: long move, gauge edge minus cube side (mm)", 88.9 - 16),
        ("joker gauge: short move, gauge edge minus cube side (mm)", 63.5 - 16),
        ("joker gauge: long-move end marks found", 2),
        ("joker gauge: short-move end marks found", 2),
        ("joker gauge: pivot corner angle (deg)", 90),
        ("cubeship: side (mm), worst axis", 16),
        ("cubeship: faces off 90 degrees (deg), worst pair", 0),
        ("cubeship: top recess side (mm)", 16 - 2 * (0.5 + 0.8)),
        ("cubeship: bed recess side (mm)", 16 - 2 * (0.5 + 0.8)),
        ("cubeship: side recesses width (mm), mean of 4", 16 - 2 * (0.5 + 0.8)),
        ("cubeship: top recess covers the face, side over the cube's side", 13.4 / 16),
        ("cubeship: top recess depth (mm)", 0.5),
        ("cubeship: bed recess depth (mm)", 0.5),
        ("cubeship: side recesses depth (mm), mean of 4", 0.5),
        ("cubeship: top mark from the key corner's x wall (mm)", C.key_centre_mm),
        ("cubeship: bed key from the key corner's y wall (mm)", C.key_centre_mm),
        ("cubeship: top mark clear of the footprint's cut corner (mm)", 0.4),
        ("die holder: clearance around the die, per side (mm)", 0.3),
    ],
)
def test_measured_values(invariants: dict[str, dict], name: str, expected: float) -> None:
    item = invariants[name]
    assert item["measured"] == pytest.approx(expected, abs=item["tolerance"] + 1e-9)


def test_slide_distances_within_a_tenth(invariants: dict[str, dict]) -> None:
    for name in ("long", "short"):
        item = invariants[f"joker gauge: {name} move, gauge edge minus cube side (mm)"]
        assert abs(item["measured"] - item["expected"]) <= 0.1


def test_every_piece_fits_its_pocket(kit: BuildReport) -> None:
    out: Path = kit.out_dir
    layout = json.loads((out / "layout.json").read_text())
    assert len(layout["contents"]) == 20  # deck, gauge, 6 cubes, 6 holders, 6 dice
    box = trimesh.load_mesh(out / "stl" / "box.stl")
    for entry in layout["contents"]:
        piece = trimesh.load_mesh(out / entry["stl"])
        piece.apply_transform(entry["transform"])
        clash = trimesh.boolean.intersection([box, piece], engine="manifold")
        assert clash.is_empty or clash.volume < 1e-3, entry["name"]
    pockets = [f for f in kit.kit_findings if f.check in ("in_pocket", "pocket_gap")]
    assert len(pockets) == 3
    assert all(f.severity == "ok" for f in pockets)


def test_the_closed_box_holds_everything_still_and_its_lid_on(kit: BuildReport) -> None:
    """The box had no lid: under the tin's lid the cubes could rise 8.3 mm, the dice 11.1."""
    p = kit.params
    every = kit.kit_findings + [f for r in kit.parts for f in r.findings]
    found = [f for f in every if f.check in ("rattle", "lid_gap", "lid_stays_on")]
    rattles = {f.part: f for f in found if f.check == "rattle"}
    assert set(rattles) == {"deck_and_gauge", "cubeships", "plane_dice", "box_lid"}
    assert all(f.severity == "ok" for f in found), [f.line() for f in found]
    for unit in ("deck_and_gauge", "cubeships", "plane_dice"):
        up = float(rattles[unit].measured.split(",")[0].split()[1])
        assert up == pytest.approx(p.box.lid.headroom_mm, abs=0.02)
    gap = next(f for f in found if f.check == "lid_gap")
    assert gap.measured == pytest.approx(p.box.lid.clearance_mm, abs=p.checks.fit_tolerance_mm)


def test_every_pocket_has_a_finger_notch_open_in_the_box(kit: BuildReport) -> None:
    """A cube flush with its pocket's walls cannot be gripped from above: each pocket
    shares a notch through a divider, and the rendered box is open there."""
    layout = design_of(resolve(kit="space-planes")).layout
    served = {name for notch in layout.notches for name in notch.pockets}
    assert served == {pocket.name for pocket in layout.pockets}
    box = trimesh.load_mesh(kit.out_dir / "stl" / "box.stl")
    for notch in layout.notches:
        x, y = notch.centre
        low = notch.z_bottom + 0.5  # just above the round bottom
        probes = [[x, y, low], [x, y, (low + notch.z_top) / 2]]
        assert not box.contains(probes).any(), notch.pockets
        beside = (
            [x, y + notch.radius + 1, low] if notch.axis == "x" else [x + notch.radius + 1, y, low]
        )
        assert box.contains([beside]).all(), notch.pockets


# ---- each player's cubes ---------------------------------------------------------------------


def island(mesh: trimesh.Trimesh, p) -> Polygon:
    """The key standing in the top recess, in the section through the recess."""
    c = p.cube
    cut = meshgeo.section(mesh, c.side_mm - c.recess_depth_mm / 2)
    at = c.side_mm / 2 + key_offset(c)
    window = mark_shape("circle", c.mark_mm, (at, at)).buffer(0.3)
    return cut.intersection(window)


def test_each_players_cubes_carry_their_own_mark(kit: BuildReport) -> None:
    p = kit.params
    c = p.cube
    at = c.side_mm / 2 + key_offset(c)
    shapes = []
    for player in range(p.players):
        mesh = trimesh.load_mesh(kit.out_dir / "stl" / f"cubeship.p{player + 1}.stl")
        measured = island(mesh, p)
        wanted = mark_shape(player_mark(p, player), c.mark_mm, (at, at))
        overlap = measured.intersection(wanted).area / measured.union(wanted).area
        assert overlap > 0.85, player
        shapes.append(measured)
    first, second = shapes
    assert first.intersection(second).area / first.union(second).area < 0.75


def test_each_players_plate_has_their_cubes_marks_as_a_second_volume(kit: BuildReport) -> None:
    counts = {r.spec.name: r.count for r in kit.parts}
    plates = write_plates(kit.out_dir, kit.params, counts)
    players = [path for path in plates if path.suffix == ".3mf" and path.name.startswith("player")]
    assert len(players) == kit.params.players
    top = kit.params.cube.side_mm - kit.params.cube.recess_depth_mm
    for path in players:
        cubes = [item for item in read_objects(str(path)) if item.name.startswith("cubeship")]
        assert len(cubes) == kit.params.ships_per_player
        for item in cubes:
            body, marks = item.volumes
            assert body.colour_hex == item.colour_hex
            assert marks.vertices[:, 2].min() >= top - 1e-3
            assert np.ptp(marks.vertices[:, 0]) <= kit.params.cube.mark_mm + 0.7


# ---- the footprint sheet ---------------------------------------------------------------------


def cut_layer(svg_file: Path) -> Polygon:
    """The sheet's largest cut: the footprint."""
    return max((Polygon(ring) for ring in layer_rings(svg_file, "cut")), key=lambda s: s.area)


def test_the_footprint_sheet_cuts_what_the_cubes_recess_holds(kit: BuildReport, tmp_path) -> None:
    """The laser file's footprint, laid in the rendered top recess corner to corner: it
    fills the recess but for the cut-off key corner, and clears the mark."""
    params = kit.params
    report = load_kit("space-planes").paper(params, tmp_path / "paper", False)
    assert report.pdf.read_bytes().startswith(b"%PDF")
    paper = cut_layer(tmp_path / "paper" / "laser" / "footprint.svg")
    mesh = trimesh.load_mesh(kit.out_dir / "stl" / "cubeship.p1.stl")
    c = params.cube
    cut = meshgeo.section(mesh, c.side_mm - c.recess_depth_mm / 2)
    recess = Polygon(max((ring for p in meshgeo.polygons(cut) for ring in p.interiors),
                         key=lambda ring: Polygon(ring).area))  # fmt: skip
    # parse_path_data turns the page's y up: put the footprint's corner on the recess's
    px0, py0, _, _ = paper.bounds
    rx0, ry0, _, _ = recess.bounds
    laid = affinity.translate(paper, rx0 - px0, ry0 - py0)
    assert laid.buffer(-0.05).within(recess)
    assert laid.area == pytest.approx(recess.area - c.key_cut_mm**2 / 2, rel=0.01)
    assert laid.area / c.side_mm**2 > 0.6  # the old 10 mm panel less its key: 0.37
    assert laid.distance(island(mesh, params)) >= 0.35


def test_check_with_a_tin_too_small_fails_the_box(kit: BuildReport) -> None:
    """check --set tin 60 x 60 once said '0 failing check(s)' of a box that cannot go in."""
    small = resolve(
        kit="space-planes", overrides=["tin.inner_length_mm=60", "tin.inner_width_mm=60"]
    )
    built = design_of(kit.params)
    meshes = {"box": trimesh.load_mesh(kit.out_dir / "stl" / "box.stl")}
    found = {f.check: f for f in tin_proof(built, meshes, small.tin)}
    assert found["in_tin_outline"].failed
    assert "too long" in found["in_tin_outline"].message
    assert not [f for f in tin_proof(built, meshes, kit.params.tin) if f.failed]
    checked = check_outputs(kit.out_dir, small)  # the command's own path, end to end
    assert ("box", "in_tin_outline") in {(f.part, f.check) for f in checked.failures}


ROUND_TIN = ["tin.inner_length_mm=150", "tin.inner_width_mm=150", "tin.corner_radius_mm=75"]


def test_a_round_tins_box_renders_with_its_wall_whole(render_parts, tmp_path: Path) -> None:
    """In a 150 mm round tin the box once rendered as nothing (its outline offset a
    zero-size square) and its pockets cut 4.2 mm through its wall."""
    params = resolve(kit="space-planes", overrides=ROUND_TIN)
    stl = render_parts(params, ["box"], tmp_path / "kit")  # no failing check, the tin's too
    box = trimesh.load_mesh(stl / "box.stl")
    assert box.is_watertight
    assert len(box.split(only_watertight=False)) == 1
    radius = 75 - params.box.tin_clearance_mm
    top = meshgeo.section(box, float(box.bounds[1][2]) - 0.5)
    rim = np.asarray(max(top.geoms, key=lambda shape: shape.area).exterior.coords)
    reach = np.hypot(rim[:, 0], rim[:, 1])
    assert reach.max() <= radius + 1e-3
    found = box_in_tin_findings(design_of(params).layout, {"box": box}, params.tin)
    assert [f.severity for f in found] == ["ok", "ok", "ok"]


# ---- the tolerance test print ----------------------------------------------------------------


@pytest.fixture(scope="module")
def plate(tmp_path_factory, shared_cache):
    params = resolve(kit="space-planes")
    out = tmp_path_factory.mktemp("tol") / "t"
    return build_plate(
        params, out, Ladder.parse(DEFAULT_LADDER), picture=False, cache_dir=shared_cache
    )


def test_each_coupon_measures_its_label(plate) -> None:
    """`tolerance --kit space-planes` said 'the kit declares no fits'."""
    fits = {row["fit"] for row in plate.measures}
    assert fits == {"holder", "lid"}
    assert len(plate.measures) == 2 * len(Ladder.parse(DEFAULT_LADDER).values)
    for row in plate.measures:
        assert abs(row["measured_mm"] - row["label_mm"]) <= LABEL_TOLERANCE_MM, row
    names = [item.name for item in read_objects(str(plate.out / "tolerance_plate.3mf"))]
    assert "holder mate" in names
    assert "lid 0.25" in names


def test_each_coupon_is_one_printable_body_and_the_plate_a_quick_print(plate) -> None:
    limits = resolve(kit="space-planes").checks
    for stl in sorted((plate.out / COUPON_FOLDER).glob("*.stl")):
        mesh = trimesh.load_mesh(stl)
        assert mesh.is_watertight, stl.name
        assert len(mesh.split(only_watertight=False)) == 1, stl.name
        for finding in (
            overhang_finding(stl.stem, mesh, limits),
            bridge_finding(stl.stem, mesh, limits),
        ):
            assert finding.severity == "ok", finding.line()
    if plate.slice is not None:
        assert plate.slice.print_seconds < 15 * 60
        assert plate.slice.filament_g < 5.0

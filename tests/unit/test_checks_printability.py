"""Each kind of defect, built on purpose, is caught by the check meant for it."""

from __future__ import annotations

import manifold3d
import numpy as np
import pytest
import trimesh
from shapely.geometry import MultiPolygon, Point, Polygon

from squadron_cad.checks import engraved_text, narrow
from squadron_cad.checks import printability as P
from squadron_cad.checks.mesh import BedSize, mesh_findings
from squadron_cad.checks.meshgeo import to_trimesh
from squadron_cad.params import KitParamsBase

BED = BedSize(250, 210, 220)
M = manifold3d.Manifold


@pytest.fixture(scope="module")
def params(toy_params: KitParamsBase) -> KitParamsBase:
    """The engine's limits (params.checks), as any kit gets them: the toy kit's."""
    return toy_params


def cube(x: float, y: float, z: float, at: tuple[float, float, float] = (0, 0, 0)) -> M:
    return M.cube([x, y, z]).translate(list(at))


def by_check(findings: list, check: str):
    return next(f for f in findings if f.check == check)


def wedge_shelf(rise: float) -> trimesh.Trimesh:
    """A 10 mm block with a shelf whose underside rises `rise` mm over 10 mm outwards."""
    points = [
        [10, 0, 10 - rise], [10, 10, 10 - rise], [10, 0, 10], [10, 10, 10],
        [20, 0, 10], [20, 10, 10], [20, 0, 10.5], [20, 10, 10.5], [10, 0, 10.5], [10, 10, 10.5],
    ]  # fmt: skip
    shelf = M.hull_points(points)
    return to_trimesh(cube(10, 10, 10.5) + shelf)


# ---- mesh validity (mesh.py): a hole, a loose island -----------------------------------------


def test_a_hole_is_caught() -> None:
    mesh = trimesh.creation.box([10, 10, 4])
    mesh.apply_translation([0, 0, 2])
    holed = trimesh.Trimesh(mesh.vertices, mesh.faces[1:], process=False)
    finding = by_check(mesh_findings("part", holed, 1, BED), "watertight")
    assert finding.failed
    assert "open edges" in finding.message


def test_a_loose_island_is_caught() -> None:
    two = to_trimesh(cube(10, 10, 4) + cube(3, 3, 4, at=(20, 0, 0)))
    finding = by_check(mesh_findings("part", two, 1, BED), "bodies")
    assert finding.failed
    assert finding.measured == 2


# ---- overhangs and bridges -----------------------------------------------------------------


def test_an_overhang_steeper_than_the_limit_is_caught(params: KitParamsBase) -> None:
    finding = P.overhang_finding("shelf", wedge_shelf(rise=5), params.checks)  # 63 deg
    assert finding.failed
    assert "mm2" in finding.measured
    assert "z 5.00" in finding.measured


def test_a_45_degree_chamfer_is_fine(params: KitParamsBase) -> None:
    assert not P.overhang_finding("shelf", wedge_shelf(rise=10), params.checks).failed


def test_tiny_overhangs_are_ignored(params: KitParamsBase) -> None:
    # A 0.5 x 0.5 mm ledge: sags less than a layer, below checks.overhang_min_area_mm2.
    ledge = to_trimesh(cube(10, 10, 10) + cube(0.5, 0.5, 0.5, at=(10, 0, 9.5)))
    angles_only = P.overhang_finding("ledge", ledge, params.checks)
    assert not angles_only.failed


def bridge(span: float) -> trimesh.Trimesh:
    pillars = cube(5, 10, 10) + cube(5, 10, 10, at=(5 + span, 0, 0))
    return to_trimesh(pillars + cube(10 + span, 10, 2, at=(0, 0, 10)))


def test_a_bridge_longer_than_the_limit_is_caught(params: KitParamsBase) -> None:
    finding = P.bridge_finding("deck", bridge(20), params.checks)
    assert finding.failed
    assert "spans 20.0 mm" in finding.message


def test_a_short_bridge_is_fine(params: KitParamsBase) -> None:
    finding = P.bridge_finding("deck", bridge(8), params.checks)
    assert not finding.failed
    assert "8.0 mm" in finding.measured


def test_a_ceiling_held_all_round_spans_its_width() -> None:
    # A 6 mm square pocket under a roof: the bridge spans 6 mm, not the diagonal.
    roofed = to_trimesh(cube(20, 20, 6) - cube(6, 6, 3, at=(7, 7, -1)))
    span = max(P.bridge_span(roofed, region) for region in P.ceilings(roofed))
    assert span == pytest.approx(6.0, abs=0.15)


def test_a_cantilevered_shelf_is_caught(params: KitParamsBase) -> None:
    shelf = to_trimesh(cube(4, 10, 10) + cube(14, 10, 2, at=(0, 0, 10)))
    assert P.bridge_finding("shelf", shelf, params.checks).failed


# ---- thin walls ----------------------------------------------------------------------------


def tube(wall: float) -> trimesh.Trimesh:
    return to_trimesh(
        cube(20, 20, 10) - cube(20 - 2 * wall, 20 - 2 * wall, 12, at=(wall, wall, -1))
    )


def test_a_too_thin_wall_is_caught(params: KitParamsBase) -> None:
    finding = P.thin_wall_finding("tube", tube(0.5), params.checks, P.PartInfo("tube"))
    assert finding.failed
    assert finding.measured.startswith("0.50 mm wide")


def test_a_wall_of_the_minimum_passes(params: KitParamsBase) -> None:
    assert not P.thin_wall_finding("tube", tube(0.8), params.checks, P.PartInfo("tube")).failed


def test_corners_and_wedges_are_not_walls(params: KitParamsBase) -> None:
    # A 45 degree wedge and square corners: sharp, but not walls.
    wedge = to_trimesh(M.extrude(manifold3d.CrossSection([[[0, 0], [10, 0], [10, 10]]]), 4))
    assert P.find_thin_spots(wedge, params.checks.min_wall_mm, P.PartInfo("wedge")) == []
    block = to_trimesh(cube(10, 5, 4))
    assert P.find_thin_spots(block, params.checks.min_wall_mm, P.PartInfo("block")) == []


def test_a_long_thin_spike_is_a_thin_feature(params: KitParamsBase) -> None:
    # 15 degrees: the last 3 mm of the tip are thinner than the minimum wall.
    spike = to_trimesh(M.extrude(manifold3d.CrossSection([[[0, 0], [10, 0], [10, 2.7]]]), 4))
    spots = P.find_thin_spots(spike, params.checks.min_wall_mm, P.PartInfo("spike"))
    assert spots
    assert spots[0].x < 5


def test_a_corner_settled_from_one_point_is_one_the_whole_measure_finds(monkeypatch) -> None:
    # A star's 12 sharp tips (corners) and, inside it, a ring wall 0.5 mm thin (a wall).
    angles = np.radians(np.arange(0, 360, 15))
    radii = np.where(np.arange(len(angles)) % 2 == 0, 20.0, 12.0)
    star = Polygon(np.column_stack([radii * np.cos(angles), radii * np.sin(angles)]))
    section = MultiPolygon([star.difference(Point(0, 0).buffer(6.0)), ring(5.5, 5.0)])
    settled = []
    shortcut = narrow._surely_a_corner

    def watched(*args: object) -> bool:
        settled.append(shortcut(*args))
        return settled[-1]

    monkeypatch.setattr(narrow, "_surely_a_corner", watched)
    quick = narrow.thin_spots(section, 0.8)
    monkeypatch.setattr(narrow, "_surely_a_corner", lambda *_: False)
    measured = narrow.thin_spots(section, 0.8)
    assert [(w, n, r.wkb) for w, n, r in quick] == [(w, n, r.wkb) for w, n, r in measured]
    assert len(measured) == 1
    assert measured[0][0] == pytest.approx(0.5, abs=0.02)
    assert sum(settled) >= 12, settled  # the star's tips, each settled from one point


def ring(outer: float, inner: float) -> Polygon:
    centre = Point(0, 0)
    return centre.buffer(outer, quad_segs=32).difference(centre.buffer(inner, quad_segs=32))


def test_slivers_beside_an_engraving_are_cosmetic(params: KitParamsBase) -> None:
    # Two 1 mm deep grooves 0.5 mm apart in the top face: a cosmetic sliver.
    plate = cube(20, 20, 4) - cube(2, 18, 2, at=(8, 1, 3)) - cube(2, 18, 2, at=(10.5, 1, 3))
    info = P.PartInfo("plate", engraving_depth_mm=1.0)
    finding = P.thin_wall_finding("plate", to_trimesh(plate), params.checks, info)
    assert finding.severity == "cosmetic"
    assert finding.measured.startswith("0.50 mm wide")


# ---- engraved text and orientation ---------------------------------------------------------


def engraved_plate(stroke: float, depth: float, flipped: bool = False) -> trimesh.Trimesh:
    """A plate with an 'L' engraved into its top (or, flipped, its bottom) face."""
    letter = cube(stroke, 4, 2, at=(5, 5, 2 - depth)) + cube(3, stroke, 2, at=(5, 5, 2 - depth))
    mesh = to_trimesh(cube(20, 20, 2) - letter)
    if flipped:
        mesh.apply_transform(trimesh.transformations.rotation_matrix(np.pi, [1, 0, 0]))
        mesh.apply_translation([0, 0, -mesh.bounds[0][2]])
    return mesh


def test_engraved_text_is_measured_on_the_mesh() -> None:
    measured = engraved_text.measure_text(engraved_plate(0.7, 0.6), depth_hint=0.6)
    assert measured is not None
    assert measured.glyphs == 1
    assert measured.depth_mm == pytest.approx(0.6, abs=1e-3)
    assert measured.stroke_mm == pytest.approx(0.7, abs=0.05)
    assert measured.height_mm == pytest.approx(4.0, abs=1e-3)


def test_too_shallow_and_too_thin_text_fails(params: KitParamsBase) -> None:
    findings = engraved_text.text_mesh_findings("plate", engraved_plate(0.4, 0.3), params)
    failed = {f.check for f in findings if f.failed}
    assert failed == {"text_depth", "text_stroke"}


def test_text_underneath_means_upside_down(params: KitParamsBase) -> None:
    flipped = engraved_plate(0.7, 0.6, flipped=True)
    findings = engraved_text.text_mesh_findings("plate", flipped, params)
    assert by_check(findings, "text_on_top").failed


def test_a_part_standing_on_a_small_face_is_flagged() -> None:
    standing = to_trimesh(cube(2, 30, 20))
    assert P.orientation_finding("slab", standing, P.PartInfo("slab")).severity == "warning"
    lying = to_trimesh(cube(30, 20, 2))
    assert P.orientation_finding("slab", lying, P.PartInfo("slab")).severity == "ok"


def test_a_cube_recessed_on_every_face_lies_well_on_any_face() -> None:
    """Each face's recess floor (14 x 14) outgrows the rim the cube stands on (16 x 16 less
    the recess): laid on that floor's face it would stand on the same rim, so no other
    face is better. The check once warned of "a larger flat face" pointing sideways."""
    body = cube(16, 16, 16)
    for axis in range(3):
        for low in (True, False):
            size, at = [14.0, 14.0, 14.0], [1.0, 1.0, 1.0]
            size[axis], at[axis] = 0.5 + 1, (-1 if low else 15.5)
            body = body - cube(*size, at=tuple(at))
    recessed = to_trimesh(body)
    found = P.orientation_finding("cube", recessed, P.PartInfo("cube", "on a face"))
    assert found.severity == "ok", found.message
    standing = to_trimesh(cube(2, 30, 20))  # a face that would touch the bed whole is better
    assert P.orientation_finding("slab", standing, P.PartInfo("slab")).severity == "warning"


def test_stroke_width_of_a_rectangle() -> None:
    from shapely.geometry import box

    assert narrow.stroke_width(box(0, 0, 0.7, 5)) == pytest.approx(0.7)


def test_a_long_part_fits_the_bed_on_its_diagonal_only_when_it_can() -> None:
    ruler = trimesh.creation.box(extents=(270, 6.5, 4))  # 250 x 210 bed: 326 mm diagonal
    too_long = trimesh.creation.box(extents=(330, 6.5, 4))
    assert by_check(mesh_findings("ruler", ruler, 1, BED), "fits_bed").severity == "ok"
    missed = by_check(mesh_findings("ruler", too_long, 1, BED), "fits_bed")
    assert missed.severity == "error"


def test_an_optional_part_off_the_bed_is_a_warning_naming_what_to_print() -> None:
    too_long = trimesh.creation.box(extents=(330, 6.5, 4))
    finding = by_check(
        mesh_findings("range_ruler", too_long, 1, BED, instead="range_ruler_1.stl"), "fits_bed"
    )
    assert finding.severity == "warning"
    assert "print range_ruler_1.stl instead" in finding.message


def test_a_fit_range_changed_measures_no_part_again(toy_kit, toy_params) -> None:
    """The printability record is kept by what it reads: the fits between parts are not
    read (no module it runs names them), the parts' own limits are."""
    from pathlib import Path

    import squadron_cad.checks as checks_package

    part = toy_kit.parts[0]
    key = P.printability_inputs(toy_params, part)
    fits = toy_params.checks.model_copy(
        update={"fit_tolerance_mm": 0.5, "pocket_fit": toy_params.checks.lid_fit}
    )
    assert P.printability_inputs(toy_params.model_copy(update={"checks": fits}), part) == key
    walls = toy_params.checks.model_copy(update={"min_wall_mm": 2.0})
    assert P.printability_inputs(toy_params.model_copy(update={"checks": walls}), part) != key
    folder = Path(checks_package.__file__).parent
    read = ["printability", "narrow", "engraved_text", "text_spacing", "meshgeo", "mesh"]
    for name in read:  # printability.py names each once: in FITS_BETWEEN_PARTS
        text = (folder / f"{name}.py").read_text()
        named = [f for f in P.FITS_BETWEEN_PARTS if text.count(f) > (name == "printability")]
        assert named == [], f"checks/{name}.py reads {named}: take it out of FITS_BETWEEN_PARTS"

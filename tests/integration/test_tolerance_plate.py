"""The tolerance test print, rendered once per session: every coupon's clearance
measured on its mesh (placed on its mate's) equals its label, and PrusaSlicer prints the
plate in under 15 minutes and 5 g at 0.2 mm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trimesh
from helpers import TEST_JOBS

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.checks.printability import bridge_finding, overhang_finding
from squadron_cad.checks.slicer import find_slicer
from squadron_cad.kit import kit_of
from squadron_cad.outputs.threemf import read_objects
from squadron_cad.resolve import resolve
from squadron_cad.tolerance import (
    COUPON_FOLDER,
    DEFAULT_LADDER,
    PICTURE,
    PLATE,
    README,
    REPORT,
    Ladder,
    PlateReport,
    build_plate,
    with_value,
)

LADDER = Ladder.parse(DEFAULT_LADDER)
FAKE_OPENSCAD = Path(__file__).resolve().parent.parent / "fakes" / "fake_openscad.py"
LABEL_TOLERANCE_MM = 0.02


@pytest.fixture(scope="session")
def plate(tmp_path_factory, shared_cache) -> PlateReport:
    """The default kit's plate; its coupons in the session's cache (the customizer's
    test builds the same plate from the page)."""
    out = tmp_path_factory.mktemp("tol") / "tolerance"
    return build_plate(resolve(), out, LADDER, jobs=TEST_JOBS, cache_dir=shared_cache)


def test_the_folder_holds_the_plate_picture_and_steps(plate: PlateReport) -> None:
    for name in (f"{PLATE}.3mf", f"{PLATE}.stl", PICTURE, README, REPORT):
        assert (plate.out / name).is_file(), name
    coupons = kit_of(resolve()).coupons
    stls = sorted((plate.out / COUPON_FOLDER).glob("*.stl"))
    assert len(stls) == len(coupons) * (len(LADDER.values) + 1)
    text = (plate.out / README).read_text()
    assert "--choose" in text
    assert f"]({PICTURE})" in text


def test_each_coupon_measures_its_label(plate: PlateReport) -> None:
    """Measured again here from the STLs on disk, each step on its mate."""
    params = resolve()
    kit = kit_of(params)
    measured = 0
    for coupon in kit.coupons:
        mate = load_mesh(plate.out / COUPON_FOLDER / f"{coupon.fit}_mate.stl")
        for value in LADDER.values:
            name = f"{coupon.fit}_{value:.2f}".replace(".", "p")
            step = load_mesh(plate.out / COUPON_FOLDER / f"{name}.stl")
            design = kit.design(with_value(params, coupon.key, value))
            gap = coupon.measure(design, step, mate)
            assert gap == pytest.approx(value, abs=LABEL_TOLERANCE_MM), (coupon.fit, value, gap)
            measured += 1
    assert measured == len(plate.measures) == 28
    for row in plate.measures:
        assert abs(row["measured_mm"] - row["label_mm"]) <= LABEL_TOLERANCE_MM, row


def test_the_plate_is_one_3mf_object_per_piece(plate: PlateReport) -> None:
    objects = read_objects(str(plate.out / f"{PLATE}.3mf"))  # lib3mf, strict mode
    names = [item.name for item in objects]
    assert len(names) == len(set(names)) == 32
    # mates in one colour, the steps in another (two materials: the reader once failed there)
    colours = {item.name.endswith("mate"): item.colour_hex for item in objects}
    assert len({item.colour_hex for item in objects}) == 2
    assert colours[True] != colours[False]
    assert "peg mate" in names
    assert "lid 0.25" in names
    whole = trimesh.load(plate.out / f"{PLATE}.stl", file_type="stl", force="mesh")
    pieces = sum(load_mesh(p).volume for p in (plate.out / COUPON_FOLDER).glob("*.stl"))
    assert whole.volume == pytest.approx(pieces, rel=1e-3)
    assert whole.bounds[0][2] == pytest.approx(0.0, abs=1e-6)


def test_the_plate_is_a_quick_small_print(plate: PlateReport) -> None:
    if find_slicer()[0] is None:
        pytest.skip("PrusaSlicer is not installed")
    assert plate.slice is not None, plate.slice_note
    assert plate.slice.print_seconds < 15 * 60
    assert plate.slice.filament_g < 5.0
    report = json.loads((plate.out / REPORT).read_text())
    assert report["slicer"]["print_seconds"] == plate.slice.print_seconds


def test_each_coupon_is_one_printable_body(plate: PlateReport) -> None:
    limits = resolve().checks
    for stl in sorted((plate.out / COUPON_FOLDER).glob("*.stl")):
        mesh = load_mesh(stl)
        assert mesh.is_watertight, stl.name
        assert len(mesh.split(only_watertight=False)) == 1, stl.name
        assert mesh.bounds[0][2] == pytest.approx(0.0, abs=1e-6), stl.name  # on the bed
        for finding in (
            overhang_finding(stl.stem, mesh, limits),
            bridge_finding(stl.stem, mesh, limits),
        ):
            assert finding.severity == "ok", finding.line()


OTHER_SIZES = [
    "quality=draft",  # the coupons are cut at final quality all the same
    "token.width_mm=30",
    "tin.inner_length_mm=130",
    "tin.inner_width_mm=100",
    "tin.inner_depth_mm=30",
    "box.rim_mm=0.6",
    "stat_dial.card_thickness_mm=1.6",
    "ruler.tab_width_mm=3.0",
]


def test_coupons_follow_the_parts_sizes(tmp_path_factory) -> None:
    """Other sizes, other coupons: still each measures its label."""
    params = resolve(overrides=OTHER_SIZES)
    out = tmp_path_factory.mktemp("tol2") / "t"
    other = build_plate(params, out, LADDER, jobs=TEST_JOBS, picture=False)
    assert len(other.measures) == 28
    for row in other.measures:
        assert abs(row["measured_mm"] - row["label_mm"]) <= LABEL_TOLERANCE_MM, row
    card = load_mesh(other.out / COUPON_FOLDER / "clip_mate.stl")
    assert card.extents[2] == pytest.approx(1.6, abs=1e-4)  # the card's own thickness


def test_a_failed_first_plate_leaves_no_trace(tmp_path, monkeypatch) -> None:
    """A plate that fails (or is interrupted) in a folder it made leaves nothing, not even
    the render cache it put there: the CLI then says `nothing written`, truthfully."""
    from squadron_cad.errors import ToolError

    monkeypatch.setenv("SQUADRON_OPENSCAD", str(FAKE_OPENSCAD))  # the OpenSCAD auto renders with
    monkeypatch.setenv("FAKE_OPENSCAD_MODE", "crash")  # dies by SIGSEGV mid-file
    out = tmp_path / "tolerance"
    with pytest.raises(ToolError, match="SIGSEGV"):
        build_plate(resolve(), out, LADDER, jobs=2, picture=False)
    assert list(tmp_path.iterdir()) == []


def test_the_picture_draws_every_steps_numerals_darker(plate: PlateReport) -> None:
    """Each step's numerals stand on its top face: the picture's darker shade starts
    there (tolerance.label_base), so ".25" reads against the coupon's orange. Before, all
    of a step was one flat orange, and the clip steps' numerals stood on a tag below the
    coupon's top."""
    from squadron_cad.checks import meshgeo
    from squadron_cad.tolerance import label_base

    for stl in sorted((plate.out / COUPON_FOLDER).glob("*.stl")):
        if stl.stem.endswith("_mate"):
            continue
        mesh = load_mesh(stl)
        base = label_base(stl)
        under = meshgeo.section(mesh, base - 0.1).area
        numerals = meshgeo.section(mesh, base + 0.1).area
        assert 0 < numerals < 0.5 * under, (stl.name, base, numerals, under)

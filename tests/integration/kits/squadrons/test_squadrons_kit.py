"""The Squadrons kit really rendered, once for this module: the build passes with no
failing check, every invariant holds, and every piece fits its box pocket."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh
from shapely import affinity
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from squadron_cad.checks import meshgeo
from squadron_cad.checks.tin import box_in_tin_findings, tin_proof
from squadron_cad.fit.tray_lid import lid_levels
from squadron_cad.geometry.marks import mark_shape, player_mark
from squadron_cad.kit import design_of
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.checks import base_number, gauge_words, turned_iou, word_lines
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.resolve import resolve


@pytest.fixture(scope="module")
def kit(built_kit) -> BuildReport:
    return built_kit("squadrons")


@pytest.fixture(scope="module")
def invariants(kit: BuildReport) -> dict[str, dict]:
    data = json.loads((kit.out_dir / "manifest.json").read_text())
    return {item["name"]: item for item in data["invariants"]}


def test_the_kit_builds_with_no_failing_check(kit: BuildReport) -> None:
    assert kit.committed
    assert [f.line() for f in kit.failures] == []
    assert len(kit.parts) == 47
    counts = {r.spec.name: r.count for r in kit.parts}
    assert counts["ship_base_10"] == counts["tracker_card_10"] == 2
    assert counts["ship_base_11"] == counts["tracker_card_11"] == 0


def test_every_invariant_holds(invariants: dict[str, dict]) -> None:
    assert invariants, "the kit measured no invariant"
    assert [name for name, item in invariants.items() if not item["ok"]] == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("range ruler: inch ticks found", 15),
        ("range ruler: length (mm, 16 in)", 406.4),
        ("movement gauge: length (mm, 8 in)", 203.2),
        ("objective_scan: diameter (mm)", 40),
        ("objective_destroy: hit-point notches", 2),
        ("pivot guide: base overlap through a ±45° pivot (mm², worst)", 0),
        ("pivot guide: gap at the base's front corners (mm)", 0.3),
        ("pivot guide: ray at +45 (deg)", 45),
        ("pivot guide: ray at -45 (deg)", -45),
        ("pivot guide: centre mark on the forward axis (deg)", 0),
        ("tracker: values 0..6 held by a detent, both rows", 14),
        ("movement gauge: words found (ADV/EVA, BOOST +3)", 2),
        ("movement gauge: worst word's centre off its tick (mm; 2 in, 3 in)", 0),
    ],
)
def test_measured_values(invariants: dict[str, dict], name: str, expected: float) -> None:
    item = invariants[name]
    assert item["measured"] == pytest.approx(expected, abs=item["tolerance"] + 1e-9)


def test_ticks_and_lines_are_where_the_rules_put_them(invariants: dict[str, dict]) -> None:
    assert invariants["range ruler: worst tick off its 25.4 mm multiple (mm)"]["measured"] <= 0.1
    assert (
        invariants["ship bases: zone boundaries off 90 deg apart (deg, worst of 15 bases)"][
            "measured"
        ]
        <= 0.1
    )
    assert (
        invariants["ship bases: Fixed line off the forward axis (deg, worst of 15 bases)"][
            "measured"
        ]
        <= 0.1
    )


def test_every_piece_fits_its_pocket(kit: BuildReport) -> None:
    """Every piece of the table's box (layout.json) and of a ship box, placed by its
    layout: no overlap with its box, by an independent boolean."""
    out: Path = kit.out_dir
    layout = json.loads((out / "layout.json").read_text())
    assert len(layout["contents"]) == 22
    placed = [(entry["stl"], entry["transform"], "box") for entry in layout["contents"]]
    ships = design_of(kit.params).ship_layout
    assert len(ships.placements) == 43
    placed += [(f"stl/{p.part}.stl", p.transform, "ship_box") for p in ships.placements]
    boxes = {name: trimesh.load_mesh(out / "stl" / f"{name}.stl") for name in ("box", "ship_box")}
    for stl, transform, box in placed:
        piece = trimesh.load_mesh(out / stl)
        piece.apply_transform(transform)
        clash = trimesh.boolean.intersection([boxes[box], piece], engine="manifold")
        with np.errstate(divide="ignore", invalid="ignore"):  # faces touching: a flat clash
            assert clash.is_empty or clash.volume < 1e-3, (stl, box)
    pockets = [f for f in kit.kit_findings if f.check in ("in_pocket", "pocket_gap")]
    assert {f.part.split("+")[0] for f in pockets} == {"box", "ship_box"}
    assert len(pockets) == len(design_of(kit.params).layout.pockets) + len(ships.pockets)
    assert all(f.severity == "ok" for f in pockets)


def _stl(kit: BuildReport, stem: str) -> trimesh.Trimesh:
    return trimesh.load_mesh(kit.out_dir / "stl" / f"{stem}.stl")


def test_each_gauge_word_is_engraved_under_its_tick(kit: BuildReport) -> None:
    """Measured on the gauge's mesh: ADV/EVA spans the 2" tick, BOOST +3 the 3" tick,
    each centred on it (they spanned 17.3-33.5 and 105.2-123.4 mm, around 1" and 4.5"),
    each on its own line."""
    p = kit.params
    words = gauge_words(_stl(kit, "movement_gauge"), p.text.depth_mm, word_lines(p))
    assert len(words) == len(constants.GAUGE_WORDS)
    for word, (inch, _name) in zip(words, constants.GAUGE_WORDS, strict=True):
        x0, _, x1, _ = word.bounds
        tick = inch * constants.INCH_MM
        assert x0 < tick < x1
        assert (x0 + x1) / 2 == pytest.approx(tick, abs=0.2)
    assert words[0].bounds[3] < words[1].bounds[1]  # the lines apart


def test_ship_6_and_ship_9_differ_when_one_is_turned(kit: BuildReport) -> None:
    """The numbers engraved in bases 6 and 9, one turned 180 degrees: no longer the same
    shape (IoU 1.000 before the bar under them)."""
    p = kit.params
    six, nine = (
        base_number(_stl(kit, f"ship_base_{n}"), p.text.depth_mm, 40.0, p.base.line_width_mm)
        for n in (6, 9)
    )
    turned_six = affinity.rotate(six, 180, origin="centroid")
    assert turned_iou(six, turned_six) == pytest.approx(1.0)  # the measure finds a turned 6
    assert turned_iou(six, nine) < 0.5
    eight = base_number(_stl(kit, "ship_base_8"), p.text.depth_mm, 40.0, p.base.line_width_mm)
    assert eight.bounds[1] > six.bounds[1] + 1  # only 6 and 9 carry the bar


def _left_zone(kit: BuildReport, stem: str) -> BaseGeometry:
    """What stands alone in a base's left zone (+y) at the engraving's mid-depth, clear of
    its zone lines and the socket: its player's mark, flush in its recess."""
    p = kit.params
    section = meshgeo.section(_stl(kit, stem), float(p.base.thickness_mm - p.text.depth_mm / 2))
    half = float(p.base.size_mm) / 2
    zone = Polygon([(0, 0), (half, half), (-half, half)]).buffer(-1.0, join_style=2)
    islands = sorted(meshgeo.polygons(section), key=lambda g: g.area)[:-1]  # all but the body
    return unary_union([g for g in islands if g.within(zone)]).difference(Point(0, 0).buffer(4))


def test_the_two_players_bases_differ_by_their_mark(kit: BuildReport) -> None:
    """Each player's copy of a base carries their mark (circle, triangle) standing flush in
    a recess in the side zones, so the squadrons differ in shape as well as colour; the rest
    is the same."""
    p = kit.params
    first, second = (_stl(kit, f"ship_base_3.p{k}") for k in (1, 2))
    assert abs(first.volume - second.volume) > 1.0  # the plates were byte-identical
    centre = (0.0, float(p.mark_centre_mm))
    for k, mesh_stem in enumerate(("ship_base_3.p1", "ship_base_3.p2")):
        mark = _left_zone(kit, mesh_stem)
        expected = mark_shape(player_mark(p, k), float(p.base.mark_size_mm), centre)
        assert mark.symmetric_difference(expected).area < 0.05 * expected.area, mesh_stem
    marks = [_left_zone(kit, f"ship_base_3.p{k}") for k in (1, 2)]
    assert marks[0].intersection(marks[1]).area / marks[0].union(marks[1]).area < 0.75
    plates = sorted((kit.out_dir / "plates").glob("player*.stl"))
    assert len(plates) >= 2
    assert plates[0].read_bytes() != plates[-1].read_bytes()


def test_the_box_is_measured_against_another_tin(kit: BuildReport) -> None:
    """check --set tin 60 x 60 once said '0 failing check(s)' of a box that cannot go in."""
    small = resolve(kit="squadrons", overrides=["tin.inner_length_mm=60", "tin.inner_width_mm=60"])
    built = design_of(kit.params)
    meshes = {"box": _stl(kit, "box")}
    assert {f.check for f in tin_proof(built, meshes, small.tin) if f.failed} == {"in_tin_outline"}
    assert not [f for f in tin_proof(built, meshes, kit.params.tin) if f.failed]


ROUND_TIN = [  # the round tin that holds a squadron, and a bed that takes its box
    "tin.inner_length_mm=230",
    "tin.inner_width_mm=230",
    "tin.corner_radius_mm=115",
    "tin.inner_depth_mm=40",
    "printer.bed_length_mm=300",
    "printer.bed_width_mm=300",
]


def test_a_round_tins_box_renders_with_its_wall_whole(render_parts, tmp_path: Path) -> None:
    """A round tin's box once rendered as nothing (its outline offset a zero-size square)."""
    params = resolve(kit="squadrons", overrides=ROUND_TIN)
    stl = render_parts(params, ["box"], tmp_path / "kit")  # no failing check, the tin's too
    box = trimesh.load_mesh(stl / "box.stl")
    assert box.is_watertight
    assert len(box.split(only_watertight=False)) == 1
    radius = 115 - params.box.tin_clearance_mm
    layout = design_of(params).layout
    wall_top = lid_levels(layout.box, params.box.lid).wall_top  # the tongue above: inset
    top = meshgeo.section(box, wall_top - 0.5)
    rim = np.asarray(max(top.geoms, key=lambda shape: shape.area).exterior.coords)
    reach = np.hypot(rim[:, 0], rim[:, 1])
    assert reach.max() <= radius + 1e-3
    assert reach.min() >= radius - 0.5  # a pocket through the wall dips it by the wall
    found = box_in_tin_findings(layout, {"box": box}, params.tin)
    assert [f.severity for f in found] == ["ok", "ok", "ok"]

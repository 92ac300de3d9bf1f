"""The Squadrons kit at the table (issue 34), measured on the session's built kit: each
tracker card tied to its ship and player, the players' marks as second-colour volumes on
the plates, the tracker clip bent less than Squadron Leader's stat clip, and text that
prints (no sliver of card between two strokes under one extrusion line)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import trimesh
from helpers import TEST_JOBS
from shapely.geometry import box
from shapely.ops import unary_union

from squadron_cad.checks import meshgeo
from squadron_cad.checks.narrow import thin_spots
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.geometry.marks import mark_shape, player_mark
from squadron_cad.kits.squadrons.parts import tracker
from squadron_cad.outputs.threemf import read_objects
from squadron_cad.pipeline.report import BuildReport

TEXT_GAP_MM = 0.5  # a sliver of material between two engraved strokes: one 0.45 mm line
MIN_IOU = 0.85  # a measured mark against its polygon


@pytest.fixture(scope="module")
def kit(built_kit) -> BuildReport:
    return built_kit("squadrons")


def _stl(kit: BuildReport, stem: str) -> trimesh.Trimesh:
    return trimesh.load_mesh(kit.out_dir / "stl" / f"{stem}.stl")


def _tag(kit: BuildReport, stem: str, centre: tuple[float, float]) -> tuple:
    """What the card's tag column holds round `centre` at the engraving's mid-depth: the
    engraved strokes (holes) and the flush mark (an island)."""
    p = kit.params
    section = meshgeo.section(_stl(kit, stem), float(p.stat_dial.card_thickness_mm) - 0.25)
    half = float(p.tracker_tag_mm) / 2
    band = box(centre[0] - half, centre[1] - 4.4, centre[0] + half, centre[1] + 4.4)
    pieces = sorted(meshgeo.polygons(section), key=lambda g: g.area)
    islands = unary_union(pieces[:-1])  # all but the body
    return band.difference(section), islands.intersection(band)


def test_each_tracker_card_carries_its_ships_number(kit: BuildReport) -> None:
    """Engraved in the tag column: as wide as the number's ink, and two numbers differ
    (the cards were 20 alike)."""
    p = kit.params
    centre = tracker.number_centre(p)
    stroke, height = p.text.stroke_mm, p.stat_dial.numeral_height_mm
    cut = {}
    for number in (3, 8, 10):
        cut[number], _ = _tag(kit, f"tracker_card_{number}.p1", centre)
        xs = [x for line in layout_text(str(number))[0] for x, _y in line]
        ink = (max(xs) - min(xs)) * (height - stroke) + stroke  # a 1 stands off its box
        x0, y0, x1, y1 = cut[number].bounds
        assert x1 - x0 == pytest.approx(ink, abs=0.1), number
        assert y1 - y0 == pytest.approx(height, abs=0.1), number
    for a, b in itertools.combinations(cut.values(), 2):
        assert a.symmetric_difference(b).area > 0.3 * max(a.area, b.area)


def test_each_tracker_card_carries_its_players_mark(kit: BuildReport) -> None:
    """The mark stands flush in its recess in the tag's lower band, its own polygon, and
    differs between the players."""
    p = kit.params
    centre = tracker.mark_centre(p)
    found = []
    for player in range(p.players):
        _, mark = _tag(kit, f"tracker_card_4.p{player + 1}", centre)
        expected = mark_shape(player_mark(p, player), p.tracker_mark_mm, centre)
        iou = mark.intersection(expected).area / mark.union(expected).area
        assert iou >= MIN_IOU, (player, iou)
        found.append(mark)
    assert found[0].intersection(found[1]).area / found[0].union(found[1]).area < 0.75


MARKED = ("ship_base", "tracker_card")  # flush marks: a second volume on the player plates


def _part(object_name: str) -> str:
    return object_name.rsplit(" ", 1)[0] if object_name[-1].isdigit() else object_name


def test_the_players_marks_are_second_colour_volumes_on_their_plates(kit: BuildReport) -> None:
    """lib3mf (strict) reads each base and tracker card as one object of two volumes: the
    body in the player's colour, the mark (standing from its recess floor) in the marks'."""
    p = kit.params
    plates = sorted((kit.out_dir / "plates").glob("player*.3mf"))
    assert plates
    seen = 0
    for path in plates:
        for item in read_objects(str(path)):
            part = _part(item.name)
            if not part.startswith(MARKED):
                continue
            seen += 1
            colours = [volume.colour_hex for volume in item.volumes]
            assert len(colours) == 2, item.name
            assert colours[0] == item.colour_hex, item.name
            assert colours[1] in ("#1C1C1C", "#F2F2F2"), item.name
            body, marks = item.volumes
            floor = body.vertices[:, 2].min()
            top = floor + (p.base.thickness_mm if part.startswith("ship") else
                           p.stat_dial.card_thickness_mm)  # fmt: skip
            assert marks.vertices[:, 2].min() == pytest.approx(top - p.text.depth_mm, abs=0.01)
            assert marks.vertices[:, 2].max() == pytest.approx(top, abs=0.01)
    assert seen == 2 * 10 * p.players  # every base and every card of every player


def _strain(kit: BuildReport, check: str, part: str) -> float:
    found = [f for f in kit.kit_findings if f.check == check and f.part.startswith(part)]
    assert found, (check, part)
    return float(re.match(r"([\d.]+) %", str(found[0].measured)).group(1))  # type: ignore[union-attr]


def test_the_tracker_clip_bends_less_than_the_stat_clip(kit: BuildReport, default_kit) -> None:
    """Both measured the same way on their meshes (components/stat_card/measure.py): the
    lower jaw and the top jaw's rails beside its window, each bent by the whole spread at a
    click. Every member of the tracker clip (40 of them a game) bends less than the stat
    clip's jaw; the tracker's rails were 1.03 x 0.8 mm at 0.70 %."""
    stat_jaw = _strain(default_kit, "clip_jaw_strain", "stat_dial")
    for card in ("tracker_card_1", "mission_tracker"):
        assert _strain(kit, "clip_jaw_strain", card) < stat_jaw
        assert _strain(kit, "clip_rail_strain", card) < stat_jaw
    assert _strain(kit, "clip_rail_strain", "tracker") < _strain(
        default_kit, "clip_rail_strain", "stat_dial"
    )
    rails = next(f for f in kit.kit_findings if f.check == "clip_rail_strain")
    width = float(re.search(r"rails ([\d.]+) x", str(rails.measured)).group(1))  # type: ignore[union-attr]
    assert width >= 1.15


ENGRAVED = ("movement_gauge", "range_ruler_1", "range_ruler_2", "range_ruler_3",
            "range_ruler_4", "pivot_guide", "objective_scan", "objective_recover",
            "objective_destroy", "entry_marker", "mission_tracker", "ship_base_6",
            "ship_base_8", "ship_base_10", "tracker_card_6", "tracker_card_8",
            "tracker_card_10")  # fmt: skip


@pytest.mark.parametrize("part", ENGRAVED)
def test_every_engraving_leaves_printable_card_between_its_strokes(
    kit: BuildReport, part: str
) -> None:
    """Between two letters, inside a letter's counter, between a letter and a line: no
    sliver of the top narrower than one extrusion line, in the engraving's upper and lower
    half (BOOST +3's letters came 0.15 mm apart, a 3.4 mm 6 left 0.22 mm)."""
    mesh = _stl(kit, part)
    top = meshgeo.top_face_z(mesh)
    for depth in (0.15, 0.4):
        spots = thin_spots(meshgeo.section(mesh, top - depth), TEXT_GAP_MM)
        found = [(round(w, 2), round(r.representative_point().x, 1),
                  round(r.representative_point().y, 1)) for w, _l, r in spots]  # fmt: skip
        assert found == [], (part, depth)


def test_the_gauge_and_the_cards_carry_letters_of_4_mm_and_more(kit: BuildReport) -> None:
    p = kit.params
    assert p.gauge.word_height_mm >= 4.0
    assert p.stat_dial.numeral_height_mm >= 4.0
    assert Path(kit.out_dir / "stl" / "mission_tracker.stl").is_file()


# ---- boxes in play and the kit's coupons (items 5 and 6) -----------------------------------


def test_each_box_is_closed_by_a_lid_that_stays_on_and_nothing_rattles(kit: BuildReport) -> None:
    """The kit's box and a ship box, each lid closed in its container (the engine's tray
    checks, measured on the meshes): the lid's lip laps the tongue, every unit and the lid
    move at most box.max_rattle_mm any way. The box was an open tray: nothing held."""
    p = kit.params
    every = [*kit.kit_findings, *(f for part in kit.parts for f in part.findings)]
    found = {(f.part, f.check): f for f in every}
    for pair in ("box+box_lid", "ship_box+ship_box_lid"):
        assert found[(pair, "lid_gap")].severity == "ok"
    for lid in ("box_lid", "ship_box_lid"):
        assert found[(lid, "lid_stays_on")].severity == "ok"
    rattles = [f for f in every if f.check == "rattle"]
    units = {p_.unit for layout in (kit_design(kit).layout, kit_design(kit).ship_layout)
             for p_ in layout.placements}  # fmt: skip
    assert {f.part for f in rattles} >= units | {"box_lid", "ship_box_lid"}
    for finding in rattles:
        moves = [float(v) for v in re.findall(r"([\d.]+)", str(finding.measured))]
        assert max(moves) <= p.box.max_rattle_mm, finding.line()


def kit_design(kit: BuildReport):
    from squadron_cad.kit import design_of

    return design_of(kit.params)


@pytest.fixture(scope="module")
def coupons(tmp_path_factory, shared_cache):
    from squadron_cad.resolve import resolve
    from squadron_cad.tolerance import Ladder, build_plate

    ladder = Ladder.parse("0.15:0.25:0.05")
    out = tmp_path_factory.mktemp("sq_tol") / "tolerance"
    params = resolve(kit="squadrons")
    return build_plate(params, out, ladder, jobs=TEST_JOBS, picture=False, cache_dir=shared_cache)


def test_the_kits_fits_print_as_coupons_that_measure_their_labels(coupons) -> None:
    """`tolerance --kit squadrons` once said the kit declares no fits: the ruler's joint,
    the tracker's clip (the components' coupons, which Squadron Leader shares) and the
    box's lid (the tray lid's), each step measured on its mesh against its label."""
    fits = {row["fit"] for row in coupons.measures}
    assert fits == {"joint", "clip", "lid"}
    assert len(coupons.measures) == 3 * 3
    for row in coupons.measures:
        assert abs(row["measured_mm"] - row["label_mm"]) <= 0.02, row

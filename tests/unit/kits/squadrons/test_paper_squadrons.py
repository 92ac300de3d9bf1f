"""Squadrons' paper edition, measured on the written PDF: the range ruler assembled from its
strips is 16 inches with a tick on every inch, the movement gauge's ticks sit on whole
inches with its words centred on their ticks, bases and markers are 40 mm, the pivot
guide's rays are 45 degrees off its axis round the base's corners, and every count (ships,
trackers, markers) is the kit's own."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree

from squadron_cad.kit import load_kit
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts.registry import PARTS
from squadron_cad.kits.squadrons.parts.tracker import tracker_layout
from squadron_cad.kits.squadrons.sheets import markers
from squadron_cad.kits.squadrons.sheets.figures import PlacedPiece, direction_deg, placed_pieces
from squadron_cad.kits.squadrons.sheets.registry import paper_kit, write_paper
from squadron_cad.paper.edition import MeasuredPage, PaperReport, lay_out
from squadron_cad.paper.fonts import stroke_text_lines
from squadron_cad.paper.measure import Path2D, tagged_pdf_paths
from squadron_cad.resolve import resolve

SVG = "{http://www.w3.org/2000/svg}"
INCH = constants.INCH_MM


@pytest.fixture(scope="module")
def kit() -> SquadronsParams:
    return resolve(kit="squadrons")


@pytest.fixture(scope="module")
def edition(tmp_path_factory, kit) -> tuple[PaperReport, list[MeasuredPage]]:
    folder = tmp_path_factory.mktemp("paper") / "paper"
    report = write_paper(kit, folder, previews=shutil.which("pdftoppm") is not None)
    svgs = [folder / "svg" / f"{stem}.svg" for stem in report.pages]
    paths = tagged_pdf_paths(report.pdf, svgs)  # the PDF's own numbers, named by the SVG
    record = json.loads((folder / "paper.json").read_text())
    pages = [
        MeasuredPage(
            page["stem"],
            page["sheet"],
            None,
            page_paths,
            [
                {"piece": p["piece"], "box": p["box_mm"], "turned": p["turned"]}
                for p in page["pieces"]
            ],
        )
        for page, page_paths in zip(record["pages"], paths, strict=True)
    ]
    return report, pages


def centre_of(path: Path2D) -> tuple[float, float]:
    x0, y0, x1, y1 = path.bounds()
    return (x0 + x1) / 2, (y0 + y1) / 2


def span_of(piece: PlacedPiece, paths: list[Path2D]) -> tuple[float, float]:
    """Where the paths' points lie along the piece's own x axis."""
    values = [piece.along(point) for path in paths for point in path.points]
    return min(values), max(values)


def across(piece: PlacedPiece, paths: list[Path2D]) -> tuple[float, float]:
    """Where the paths' points lie across the piece (its own y axis, up to a sign)."""
    values = [point[0] if piece.turned else point[1] for path in paths for point in path.points]
    return min(values), max(values)


# ---- the range ruler and the movement gauge ----------------------------------------------


def test_the_ruler_assembled_from_its_strips_is_16_inches_ticked_every_inch(edition) -> None:
    """Each strip from its start edge to its dashed seam (where the next one's start goes),
    its ticks from its start: laid end to end, as the player glues them."""
    _report, pages = edition
    strips = sorted(placed_pieces(pages, "range_ruler_strip_"), key=lambda s: s.name)
    assert len(strips) == constants.RULER_SECTIONS
    done, ticks, joins = 0.0, [], []
    for strip in strips:
        (outline,) = strip.tagged("ruler-strip-cut")
        start, end = strip.span(outline)
        seams = strip.tagged("ruler-seam")
        stop = strip.span(seams[0])[0] if seams else end
        ticks += [done + sum(strip.span(t)) / 2 - start for t in strip.tagged("ruler-tick")]
        done += stop - start
        joins.append(done)
    assert done == pytest.approx(
        constants.RULER_LENGTH_IN * INCH, abs=0.1
    )  # the issue's 16.00" +-0.1
    assert done == pytest.approx(constants.RULER_LENGTH_IN * INCH, abs=0.005)  # as measured: 0.000
    every_inch = sorted(ticks + joins[:-1])  # a join is the inch tick its half ticks make
    assert every_inch == pytest.approx(
        [n * INCH for n in range(1, constants.RULER_LENGTH_IN)], abs=0.01
    )


def test_each_join_s_half_ticks_make_one_inch_tick(edition, kit) -> None:
    _report, pages = edition
    strips = sorted(placed_pieces(pages, "range_ruler_strip_"), key=lambda s: s.name)
    half = kit.ruler.mark_width_mm / 2
    for before, after in itertools.pairwise(strips):
        start = before.span(before.tagged("ruler-strip-cut")[0])[0]
        seam = before.span(before.tagged("ruler-seam")[0])[0]
        ends = [before.span(t) for t in before.tagged("ruler-seam-tick")]
        assert any(e == pytest.approx((seam - half, seam), abs=0.01) for e in ends)
        tab = before.span(before.tagged("glue-tab")[0])
        assert tab[0] == pytest.approx(seam, abs=0.01)
        assert tab[1] > seam + 5
        next_start = after.span(after.tagged("ruler-strip-cut")[0])[0]
        begins = [after.span(t) for t in after.tagged("ruler-seam-tick")]
        assert any(b == pytest.approx((next_start, next_start + half), abs=0.01) for b in begins)
        assert seam - start == pytest.approx(float(kit.ruler_section_mm), abs=0.01)


def test_gauge_ticks_sit_on_whole_inches_and_its_words_on_their_ticks(edition, kit) -> None:
    _report, pages = edition
    (gauge,) = placed_pieces(pages, "movement_gauge")
    (outline,) = gauge.tagged("gauge-cut")
    start, end = gauge.span(outline)
    assert end - start == pytest.approx(constants.GAUGE_LENGTH_IN * INCH, abs=0.01)
    ticks = {round((sum(gauge.span(t)) / 2 - start) / INCH): t for t in gauge.tagged("gauge-tick")}
    assert sorted(ticks) == list(range(1, constants.GAUGE_LENGTH_IN))
    for inch, tick in ticks.items():
        assert sum(gauge.span(tick)) / 2 - start == pytest.approx(inch * INCH, abs=0.01)
    # labelled ticks (2, +3, 6, 7, 8 in the kit's constants) run longer across the gauge
    labelled = {inch for inch, _ in constants.GAUGE_LABELS}
    for inch, tick in ticks.items():
        low, high = across(gauge, [tick])
        want = kit.gauge.label_tick_length_mm if inch in labelled else kit.gauge.tick_length_mm
        assert high - low == pytest.approx(want, abs=0.01)
    # each word's ink centred on the tick it names
    strokes = gauge.tagged("gauge-word")
    for inch, _word in constants.GAUGE_WORDS:
        mine = [s for s in strokes if abs(sum(gauge.span(s)) / 2 - start - inch * INCH) < INCH / 2]
        low, high = span_of(gauge, mine)
        assert (low + high) / 2 - start == pytest.approx(inch * INCH, abs=0.01)


# ---- the pivot guide -----------------------------------------------------------------------


def crossing(a: Path2D, b: Path2D) -> tuple[float, float]:
    """Where the centre lines of two bars cross."""
    (ax, ay), (bx, by) = centre_of(a), centre_of(b)
    ta, tb = math.radians(direction_deg(a)), math.radians(direction_deg(b))
    # ax + s cos ta = bx + t cos tb, ay + s sin ta = by + t sin tb
    det = math.cos(ta) * -math.sin(tb) + math.sin(ta) * math.cos(tb)
    s = ((bx - ax) * -math.sin(tb) + (by - ay) * math.cos(tb)) / det
    return ax + s * math.cos(ta), ay + s * math.sin(ta)


def test_the_pivot_guide_s_rays_are_45_degrees_off_its_axis(edition, kit) -> None:
    """The rays cross at the base's centre; the inner arc keeps its clearance from the
    base's front corners (half the diagonal) all round."""
    _report, pages = edition
    (guide,) = placed_pieces(pages, "pivot_guide")
    (axis,) = guide.tagged("pivot-centre-mark")
    rays = guide.tagged("pivot-ray")
    assert len(rays) == 2
    headings = sorted((direction_deg(ray) - direction_deg(axis) + 90) % 180 - 90 for ray in rays)
    assert headings == pytest.approx(
        [-constants.PIVOT_LIMIT_DEG, constants.PIVOT_LIMIT_DEG], abs=0.01
    )
    centre = crossing(*rays)
    (outline,) = guide.tagged("pivot-guide-cut")
    nearest = min(math.dist(centre, point) for point in outline.points)
    corner = kit.base.size_mm / math.sqrt(2)
    assert nearest == pytest.approx(corner + kit.pivot.base_clearance_mm, abs=0.01)
    farthest = max(math.dist(centre, point) for point in outline.points)
    assert farthest == pytest.approx(kit.pivot.radius_mm, abs=0.01)


# ---- each player's ships -------------------------------------------------------------------


def test_a_40_mm_base_per_ship_with_its_zones_fixed_line_number_and_mark(edition, kit) -> None:
    report, pages = edition
    bases = placed_pieces(pages, "ship_base_")
    want = {f"ship_base_p{i + 1}_{n}" for i in range(kit.players)
            for n in range(1, kit.base.per_player + 1)}  # fmt: skip
    assert sorted(b.name for b in bases) == sorted(want)
    for base in bases:
        (outline,) = base.tagged("ship-base-cut")
        x0, y0, x1, y1 = outline.bounds()
        assert (x1 - x0, y1 - y0) == pytest.approx((kit.base.size_mm,) * 2, abs=0.01)
        centre = centre_of(outline)
        (fixed,) = base.tagged("fixed-line")
        forward = direction_deg(fixed)
        (zones,) = base.tagged("zone-line")
        for ring in zones.subpaths:  # one bar per zone boundary, on the diagonals
            off = (direction_deg(Path2D((ring,))) - forward) % 180
            assert off == pytest.approx(45, abs=0.01) or off == pytest.approx(135, abs=0.01)
        assert len(zones.subpaths) == 4
        # the number where the 3D base engraves it: numeral_centre_mm behind the centre,
        # reading with the Fixed line to its right (the base is never turned on its page)
        ahead = (centre_of(fixed)[0] - centre[0], centre_of(fixed)[1] - centre[1])
        assert not base.turned
        assert ahead[0] > 0
        assert ahead[1] == pytest.approx(0, abs=0.01)
        number = int(base.name.rsplit("_", 1)[1])
        drawn = [point for path in base.tagged("ship-number") for point in path.points]
        lines = stroke_text_lines(str(number), kit.base.numeral_height_mm, kit.text.stroke_mm)
        behind = float(kit.numeral_centre_mm)
        engraved = [(centre[0] - behind + x, centre[1] + y) for line in lines for x, y in line]
        assert len(drawn) == len(engraved)
        assert max(math.dist(a, b) for a, b in zip(drawn, engraved, strict=True)) < 0.01
        assert bool(base.tagged("ship-number-bar")) == (number in constants.UNDERLINED_NUMBERS)
        (marks,) = base.tagged("player-mark")
        # one in each side zone: the recess round the mark (outer ring, the mark's hole)
        assert len(marks.subpaths) == 4
    low, high = report.figures["ship_base_mm"]  # the summary's own figure, from the PDF
    assert low == pytest.approx(kit.base.size_mm, abs=0.01)
    assert high == pytest.approx(kit.base.size_mm, abs=0.01)


def test_a_tracker_per_ship_carries_its_number_mark_and_the_3d_card_s_rows(edition, kit) -> None:
    _report, pages = edition
    trackers = placed_pieces(pages, "tracker_")
    assert len(trackers) == kit.players * kit.base.per_player
    assert len({t.name for t in trackers}) == len(trackers)
    layout = tracker_layout(kit)
    card = layout.card
    engraved = [  # the 3D card's numerals: the stat card component's own layout
        (
            x + float(layout.value_x(value)),
            y + float(layout.row_bottom(row) + layout.numeral_centre_u),
        )
        for row in range(layout.rows)
        for value in layout.values
        for line in stroke_text_lines(str(value), card.numeral_height_mm, kit.text.stroke_mm)
        for x, y in line
    ]
    for tracker in trackers:
        assert tracker.tagged("ship-number")
        assert tracker.tagged("player-mark")
        (line,) = tracker.tagged("tab-line")  # the card's edge: x = 0 of its layout
        (outline,) = tracker.tagged("tracker-cut")
        origin = (line.points[0][0], outline.bounds()[1])  # the card's lower-left corner
        drawn = [point for path in tracker.tagged("row-value") for point in path.points]
        assert not tracker.turned
        assert len(drawn) == len(engraved)
        moved = [(origin[0] + x, origin[1] + y) for x, y in engraved]
        assert max(math.dist(a, b) for a, b in zip(drawn, moved, strict=True)) < 0.01


# ---- objective and entry markers -----------------------------------------------------------


def test_markers_are_40_mm_and_as_many_as_the_kit_prints(edition, kit) -> None:
    report, pages = edition
    placed = placed_pieces(pages, "")
    for part in PARTS:
        if part.name in constants.OBJECTIVE_PARTS:
            assert sum(p.name == part.name for p in placed) == part.count(kit), part.name
    for marker in [p for p in placed if p.name in constants.OBJECTIVE_PARTS]:
        (outline,) = marker.tagged("marker-cut")
        x0, _y0, x1, _y1 = outline.bounds()
        assert x1 - x0 == pytest.approx(kit.objective.diameter_mm, abs=0.01)
        centre = ((x0 + x1) / 2, (outline.bounds()[1] + outline.bounds()[3]) / 2)
        nearest = min(math.dist(centre, point) for point in outline.points)
        notched = marker.name == "objective_destroy"
        rim = kit.objective.diameter_mm / 2 - (kit.objective.notch_depth_mm if notched else 0)
        assert nearest == pytest.approx(rim, abs=0.02)
    assert report.figures["markers"] == sum(
        part.count(kit) for part in PARTS if part.name in constants.OBJECTIVE_PARTS
    )


def test_marker_counts_follow_the_kit_s_parts(monkeypatch, kit) -> None:
    """Counts are read from the parts' registry, never typed: change one and the sheet
    follows."""
    more = tuple(
        replace(part, count_rule=lambda p, part=part: part.count(p) + 3)
        if part.name == "entry_marker"
        else part
        for part in PARTS
    )
    monkeypatch.setattr(markers, "PARTS", more)
    sheet = markers.markers_sheet(kit)
    copies = {piece.name: piece.copies for piece in sheet.pieces}
    entry = next(part for part in PARTS if part.name == "entry_marker")
    assert copies["entry_marker"] == entry.count(kit) + 3


def test_more_players_and_ships_get_their_own_pieces_on_letter_pages() -> None:
    params = resolve(
        kit="squadrons", overrides=["players=3", "base.per_player=12", "paper.size=letter"]
    )
    sheets = paper_kit(params).sheets
    names = [piece.name for sheet in sheets for piece in getattr(sheet, "pieces", ())]
    assert sum(name.startswith("ship_base_p3_") for name in names) == 12
    assert sum(name.startswith("tracker_") for name in names) == 3 * 12
    pages, _drawn = lay_out(paper_kit(params), params.paper)  # every piece fits its page
    assert sum(page.sheet.startswith("squadron-") for page in pages) >= 3


# ---- the files ---------------------------------------------------------------------------


def test_every_page_has_its_scale_bars_and_a_picture_and_every_piece_a_laser_file(
    edition,
) -> None:
    report, pages = edition
    assert report.figures["scale_bar_100mm_mm"] == pytest.approx([100.0, 100.0], abs=0.01)
    assert report.figures["scale_bar_1in_mm"] == pytest.approx([INCH, INCH], abs=0.01)
    if shutil.which("pdftoppm"):
        assert len(list((report.out_dir / "previews").glob("*.png"))) == len(pages)
    laser = report.out_dir / "laser"
    placed = {p.name for p in placed_pieces(pages, "")}
    assert {f.stem for f in laser.glob("*.svg")} == placed
    root = etree.parse(str(laser / "ship_base_p1_1.svg")).getroot()
    layers = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert layers == {"cut", "engrave"}


def test_the_kit_declares_its_paper_edition() -> None:
    assert load_kit("squadrons").paper is not None  # `paper --kit squadrons` said it had none


def test_the_summary_names_the_measured_ruler(edition) -> None:
    report, _pages = edition
    text = "\n".join(report.summary)
    assert "range ruler: 406.40 mm (16.000 in)" in text
    assert Path(report.pdf).name == "squadrons_paper_a4.pdf"

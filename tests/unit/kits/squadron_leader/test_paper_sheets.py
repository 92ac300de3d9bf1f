"""Squadron Leader's sheets, measured on the written PDF: the hex moves card keeps the
rules, the templates and ruler match the 3D parts' design values, counters fit the hexes,
and the mat's hexes are the size and orientation asked for."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from lxml import etree

from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.geometry.dial import dial_layout
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets.figures import across_flats, longest_side, turn_deg
from squadron_cad.kits.squadron_leader.sheets.registry import write_paper
from squadron_cad.paper.measure import Path2D, svg_paths, tagged_pdf_paths
from squadron_cad.resolve import resolve

Point = tuple[float, float]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def kit() -> SquadronLeaderParams:
    return resolve()


@pytest.fixture(scope="module")
def edition(tmp_path_factory, kit) -> tuple[Path, dict[str, list[Path2D]]]:
    folder = tmp_path_factory.mktemp("paper") / "paper"
    report = write_paper(kit, folder, previews=False)
    svgs = [folder / "svg" / f"{stem}.svg" for stem in report.pages]
    pages = tagged_pdf_paths(report.pdf, svgs)  # the PDF's own numbers, named by the SVG
    return folder, dict(zip(report.pages, pages, strict=True))


def tagged(pages: dict[str, list[Path2D]], tag: str, page: str | None = None) -> list[Path2D]:
    return [
        path
        for stem, paths in pages.items()
        if page is None or stem == page
        for path in paths
        if path.tag == tag
    ]


def heading(a: Point, b: Point) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def angle_between(a: float, b: float) -> float:
    """b - a in (-180, 180]."""
    return (b - a + 180) % 360 - 180


# ---- the hex moves card ----------------------------------------------------------------


@pytest.fixture(scope="module")
def card(edition) -> dict[str, list[Path2D]]:
    _folder, pages = edition
    return {"hex-moves-1": pages["hex-moves-1"]}


def card_flats(card) -> float:
    sizes = [across_flats(p.subpaths[0]) for p in tagged(card, "card-hex")]
    assert max(sizes) - min(sizes) < 0.01
    return sizes[0]


def facing(card, tag: str, centre: Point) -> float:
    """The arrow's tip is its first vertex: its heading from the hex centre."""
    (arrow,) = tagged(card, tag)
    return heading(centre, arrow.subpaths[0][0])


def move(card, name: str, way: str) -> tuple[Point, Point, float, float, list[Point]]:
    (route,) = tagged(card, f"route-{name}-{way}")
    start, end = route.points[0], route.points[-1]
    return (
        start,
        end,
        facing(card, f"facing-start-{name}", start),
        facing(card, f"facing-end-{name}-{way}", end),
        route.points,
    )


def test_move_1_ends_two_hexes_ahead_facing_the_same_way(card) -> None:
    flats = card_flats(card)
    start, end, before, after, _ = move(card, "move1", "left")
    assert math.dist(start, end) == pytest.approx(2 * flats, abs=0.1)
    assert angle_between(before, heading(start, end)) == pytest.approx(0, abs=0.5)
    assert angle_between(before, after) == pytest.approx(0, abs=0.5)


@pytest.mark.parametrize(("way", "sign"), [("left", 1), ("right", -1)])
def test_move_2_goes_one_forward_turns_60_and_goes_one_more(card, way: str, sign: int) -> None:
    flats = card_flats(card)
    start, end, before, after, points = move(card, "move2", way)
    middle = points[1]
    assert math.dist(start, middle) == pytest.approx(flats, abs=0.1)
    assert angle_between(before, heading(start, middle)) == pytest.approx(0, abs=0.5)
    assert math.dist(middle, end) == pytest.approx(flats, abs=0.1)
    assert angle_between(before, heading(middle, end)) == pytest.approx(60 * sign, abs=0.5)
    assert angle_between(before, after) == pytest.approx(60 * sign, abs=0.5)


@pytest.mark.parametrize(("way", "sign"), [("left", 1), ("right", -1)])
def test_move_3_turns_60_moves_one_and_turns_60_again(card, way: str, sign: int) -> None:
    flats = card_flats(card)
    start, end, before, after, _ = move(card, "move3", way)
    assert math.dist(start, end) == pytest.approx(flats, abs=0.1)
    assert angle_between(before, heading(start, end)) == pytest.approx(60 * sign, abs=0.5)
    assert angle_between(before, after) == pytest.approx(120 * sign, abs=0.5)


def hex_steps(offset: Point, flats: float, facing_deg: float) -> int:
    """Hexes between two centres on a grid whose sides face facing_deg + 60 k."""
    angle = math.radians(facing_deg)
    a = (flats * math.cos(angle), flats * math.sin(angle))
    b = (flats * math.cos(angle + math.pi / 3), flats * math.sin(angle + math.pi / 3))
    det = a[0] * b[1] - a[1] * b[0]
    q = (offset[0] * b[1] - offset[1] * b[0]) / det
    r = (offset[1] * a[0] - offset[0] * a[1]) / det
    assert abs(q - round(q)) < 0.01, "not a hex centre"
    assert abs(r - round(r)) < 0.01, "not a hex centre"
    q, r = round(q), round(r)
    return (abs(q) + abs(r) + abs(q + r)) // 2


def test_the_firing_cone_holds_1_3_and_5_hexes_in_front(card) -> None:
    flats = card_flats(card)
    (arrow,) = tagged(card, "facing-start-cone")
    hexes = [p.subpaths[0] for p in tagged(card, "card-hex")]
    tip = arrow.subpaths[0][0]
    centres = [(sum(x for x, _ in h) / 6, sum(y for _, y in h) / 6) for h in hexes]
    attacker = min(centres, key=lambda c: math.dist(c, tip))
    aim = heading(attacker, tip)
    for reach, count in ((1, 1), (2, 3), (3, 5)):
        cells = tagged(card, f"cone-{reach}")
        assert len(cells) == count
        for cell in cells:
            ring = cell.subpaths[0]
            centre = (sum(x for x, _ in ring) / 6, sum(y for _, y in ring) / 6)
            offset = (centre[0] - attacker[0], centre[1] - attacker[1])
            assert hex_steps(offset, flats, aim) == reach  # range counts the target's hex
            assert abs(angle_between(aim, heading(attacker, centre))) < 60


# ---- templates and ruler: the 3D parts' design values -----------------------------------


def test_straight_template_is_the_3d_template(edition, kit) -> None:
    _folder, pages = edition
    (outline,) = tagged(pages, "template-straight-cut")
    x0, y0, x1, y1 = outline.bounds()
    long_side, short_side = max(x1 - x0, y1 - y0), min(x1 - x0, y1 - y0)
    assert long_side == pytest.approx(float(kit.template_length_mm), abs=0.1)
    assert short_side == pytest.approx(kit.token.width_mm, abs=0.1)


@pytest.mark.parametrize("kind", ["straight", "bank", "turn"])
def test_every_drawn_move_travels_and_turns_as_the_3d_move(edition, kit, kind: str) -> None:
    _folder, pages = edition
    path = move_paths.path(kit, kind)
    travel = float(path.length) + 2 * float(kit.notch_offset_mm)
    drawn = tagged(pages, f"move-path-{kind}")
    assert len(drawn) == 1  # on its own template
    for line in drawn:
        points = line.points
        length = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
        assert length == pytest.approx(travel, abs=0.1)
        assert abs(turn_deg(points)) == pytest.approx(float(path.turn_deg), abs=0.1)


def circle_through(a: Point, b: Point, c: Point) -> Point:
    ax, ay = a
    bx, by = b
    cx, cy = c
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ux = (ax**2 + ay**2) * (by - cy) + (bx**2 + by**2) * (cy - ay) + (cx**2 + cy**2) * (ay - by)
    uy = (ax**2 + ay**2) * (cx - bx) + (bx**2 + by**2) * (ax - cx) + (cx**2 + cy**2) * (bx - ax)
    return (ux / d, uy / d)


@pytest.mark.parametrize("kind", ["bank", "turn"])
def test_curved_templates_have_the_3d_radii(edition, kit, kind: str) -> None:
    _folder, pages = edition
    path = move_paths.path(kit, kind)
    (outline,) = tagged(pages, f"template-{kind}-cut")
    centre_line = next(
        line for line in tagged(pages, f"move-path-{kind}") if _near(line.points[0], outline.points)
    ).points
    arc = centre_line[1:-1]  # without the notch offsets at both ends
    centre = circle_through(arc[0], arc[len(arc) // 2], arc[-1])
    distances = [math.dist(centre, p) for p in outline.points]
    assert min(distances) == pytest.approx(float(path.inner_radius), abs=0.1)
    assert max(distances) == pytest.approx(float(path.inner_radius + path.width), abs=0.1)


def _near(point: Point, outline: list[Point]) -> bool:
    return min(math.dist(point, p) for p in outline) < 30


def test_ruler_sections_add_up_to_three_templates(edition, kit) -> None:
    folder, pages = edition
    sections = [tagged(pages, f"ruler-{i}-cut")[0].subpaths[0] for i in (1, 2, 3)]
    lengths = [longest_side(ring) for ring in sections]
    assert lengths == pytest.approx([float(kit.template_length_mm)] * 3, abs=0.1)
    assert sum(lengths) == pytest.approx(float(kit.ruler_length_mm), abs=0.1)
    marks = tagged(pages, "ruler-mark")
    assert len(marks) == 3  # section 1: its far end; 2: both ends; 3: its near end
    texts = " ".join(
        t.text for t in etree.parse(str(folder / "svg" / "ruler-1.svg")).iter(f"{SVG}text")
    )
    assert f"two knots {float(kit.ruler_length_mm):g} mm apart" in texts


# ---- counters ----------------------------------------------------------------------------


def test_counters_fit_the_hex_and_the_stat_record_is_the_3d_card(edition, kit) -> None:
    _folder, pages = edition
    planes = tagged(pages, "plane-counter-cut")
    assert len(planes) == kit.players
    for plane in planes:
        flats = across_flats(plane.subpaths[0])
        assert flats == pytest.approx(float(kit.token.across_flats_mm), abs=0.1)
        assert flats < kit.paper.hex_across_flats_mm - 2
    altitudes = tagged(pages, "altitude-counter-cut")
    assert len(altitudes) == 4 * kit.players
    widest = max(math.dist(a, b) for a in altitudes[0].points for b in altitudes[0].points)
    assert widest == pytest.approx(kit.token.width_mm / 2, abs=0.1)
    layout = dial_layout(kit)
    for record in tagged(pages, "stat-record-cut"):
        x0, y0, x1, y1 = record.bounds()
        assert sorted([x1 - x0, y1 - y0]) == pytest.approx(
            sorted([float(layout.length), float(layout.height)]), abs=0.1
        )
    assert len(tagged(pages, "facing-arrow")) == kit.players
    assert len(tagged(pages, "player-letter")) >= kit.players


# ---- the mat -----------------------------------------------------------------------------


@pytest.mark.parametrize(("orientation", "flats"), [("flat_top", 34.0), ("pointy_top", 40.0)])
def test_mat_hexes_have_the_size_and_orientation_asked(
    tmp_path: Path, orientation: str, flats: float
) -> None:
    kit = resolve(
        overrides=[
            f"paper.hex_orientation={orientation}",
            f"paper.hex_across_flats_mm={flats}",
            "paper.mat_columns=5",
            "paper.mat_rows=4",
        ]
    )
    report = write_paper(kit, tmp_path / "paper", previews=False)
    whole, _height = svg_paths(tmp_path / "paper" / "svg" / "hex-mat-whole.svg")
    hexes = [p.subpaths[0] for p in whole if p.tag == "hex"]
    assert len(hexes) == 5 * 4
    for ring in hexes:
        assert across_flats(ring) == pytest.approx(flats, abs=0.1)
        sides = zip(ring, ring[1:] + ring[:1], strict=True)
        level = [abs(a[1] - b[1]) < 1e-3 for a, b in sides]
        assert sum(level) == (2 if orientation == "flat_top" else 0)
    low, high = report.figures["hex_across_flats_mm"]  # measured in the PDF
    assert low == pytest.approx(flats, abs=0.1)
    assert high == pytest.approx(flats, abs=0.1)


@pytest.mark.parametrize("players", [8])
def test_the_plane_counters_letter_silhouette_and_arrow_keep_apart(players: int) -> None:
    """On every player's plane counter, measured on the drawn items: the letter, the
    plane's silhouette and the facing arrow keep counters.SYMBOL_GAP_MM (1.5 mm) from each
    other, the letter 1 mm inside the cut line. Before, the "A" ran 1.0 mm from the tail
    (it read as touching) and the nose 0.3 mm from the arrow."""
    import shapely
    from shapely.geometry import LineString, Polygon

    from squadron_cad.kits.squadron_leader.sheets import counters

    params = resolve(overrides=[f"players={players}"])
    for index in range(players):
        items = counters.plane_counter(params, index).drawing.items

        def ink(tag: str, found=items) -> shapely.Geometry:
            shapes = []
            for item in (i for i in found if i.tag == tag):
                if hasattr(item, "rings"):
                    shapes.append(Polygon(item.rings[0], item.rings[1:]))
                else:
                    shapes.append(LineString(item.points).buffer(item.width_mm / 2))
            return shapely.union_all(shapes)

        letter, plane, arrow = ink("player-letter"), ink("silhouette"), ink("facing-arrow")
        outline = ink("plane-counter-body").exterior
        gap = counters.SYMBOL_GAP_MM - 1e-6  # (float rounding)
        assert letter.distance(plane) >= gap, (index, letter.distance(plane))
        assert plane.distance(arrow) >= gap, (index, plane.distance(arrow))
        assert outline.distance(letter) >= 1.0, (index, outline.distance(letter))

"""The paper engine, measured on the files it writes: scale bars, margins, page sizes, the
PDF and the SVGs holding one drawing, tiles that join into one exact grid, laser layers,
same bytes every run, and refusals of page settings that cannot work."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import cli_in_worker
from lxml import etree
from pypdf import PdfReader

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader.sheets.registry import write_paper
from squadron_cad.paper.edition import MeasuredPage, PaperReport, frame_of
from squadron_cad.paper.measure import Path2D, svg_paths, tagged_pdf_paths
from squadron_cad.resolve import resolve

PT = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"
INKSCAPE = "{http://www.inkscape.org/namespaces/inkscape}"


def written(folder: Path, overrides: list[str]) -> tuple[PaperReport, list[list[Path2D]]]:
    report = write_paper(resolve(overrides=overrides), folder, previews=False)
    svgs = [folder / "svg" / f"{stem}.svg" for stem in report.pages]
    return report, tagged_pdf_paths(report.pdf, svgs)


@pytest.fixture(scope="module")
def a4(tmp_path_factory) -> tuple[PaperReport, list[list[Path2D]]]:
    return written(tmp_path_factory.mktemp("a4") / "paper", [])


@pytest.fixture(scope="module")
def letter(tmp_path_factory) -> tuple[PaperReport, list[list[Path2D]]]:
    overrides = [
        "paper.size=letter",
        "paper.hex_orientation=pointy_top",
        "paper.overlap_mm=15",
        "paper.mat_columns=9",  # 2 x 2 pages: enough to join, quicker to write
        "paper.mat_rows=8",
    ]
    return written(tmp_path_factory.mktemp("letter") / "paper", overrides)


def first(paths: list[Path2D], tag: str) -> Path2D:
    return next(path for path in paths if path.tag == tag)


@pytest.mark.parametrize("edition", ["a4", "letter"])
def test_every_page_carries_exact_scale_bars(edition: str, request) -> None:
    _report, pages = request.getfixturevalue(edition)
    for paths in pages:
        for tag, length in (("scale-100mm", 100.0), ("scale-1in", 25.4)):
            bar = first(paths, tag).points  # read from the PDF's own operators
            assert math.dist(bar[0], bar[-1]) == pytest.approx(length, abs=0.01)
            ticks = [p for p in paths if p.tag == tag][1:]
            ends = sorted(t.points[0][0] for t in ticks)
            assert ends[-1] - ends[0] == pytest.approx(length, abs=0.01)


@pytest.mark.parametrize(("edition", "size_pt"), [("a4", (595.28, 841.89)), ("letter", (612, 792))])
def test_page_size_and_content_inside_the_margins(edition: str, size_pt, request) -> None:
    report, pages = request.getfixturevalue(edition)
    reader = PdfReader(str(report.pdf))
    params = resolve(overrides=["paper.size=letter"] if edition == "letter" else []).paper
    printable = frame_of(params).printable
    for index, paths in enumerate(pages):
        box = reader.pages[index].mediabox
        assert (float(box.width), float(box.height)) == pytest.approx(size_pt, abs=0.01)
        for path in paths:
            for x, y in path.points:
                assert printable.x - 1e-3 <= x <= printable.right + 1e-3, (path.tag, x)
                assert printable.y - 1e-3 <= y <= printable.top + 1e-3, (path.tag, y)
    # page text too: every label's anchor lies inside, and it is not wider than the page
    for stem in report.pages:
        root = etree.parse(str(report.out_dir / "svg" / f"{stem}.svg")).getroot()
        height = float(root.get("viewBox").split()[3])
        for text in root.iter(f"{SVG}text"):
            x, y = float(text.get("x")), height - float(text.get("y"))
            assert printable.x - 1e-6 <= x <= printable.right + 1e-6, text.text
            assert printable.y - 1e-6 <= y <= printable.top + 1e-6, text.text


def test_pdf_and_svg_pages_are_one_drawing(a4) -> None:
    report, pages = a4
    assert len(PdfReader(str(report.pdf)).pages) == len(report.pages) == len(pages)
    for stem, paths in zip(report.pages, pages, strict=True):
        in_svg, _ = svg_paths(report.out_dir / "svg" / f"{stem}.svg")
        assert [p.tag for p in in_svg] == [p.tag for p in paths]


def _join(pages: list[MeasuredPage], first_stem: str, second_stem: str) -> tuple[MeasuredPage, ...]:
    by_stem = {page.stem: page for page in pages}
    return by_stem[first_stem], by_stem[second_stem]


def measured(report: PaperReport, pages: list[list[Path2D]]) -> list[MeasuredPage]:
    return [
        MeasuredPage(stem, stem.rsplit("-", 1)[0], None, paths, [])
        for stem, paths in zip(report.pages, pages, strict=True)
    ]


def hex_vertices(page: MeasuredPage) -> list[tuple[float, float]]:
    return [p for path in page.paths if path.tag == "hex" for p in path.points]


def _strip_match(under: list, over: list, inside, shift) -> float:
    """Worst distance from a vertex of the lower page's strip to the upper page's nearest
    vertex, after moving the upper page by `shift` (its cut edge onto the dashed line)."""
    moved = [(x + shift[0], y + shift[1]) for x, y in over]
    worst = 0.0
    checked = 0
    for point in under:
        if inside(point):
            worst = max(worst, min(math.dist(point, other) for other in moved))
            checked += 1
    assert checked >= 4, "too few grid corners in the overlap strip"
    return worst


@pytest.mark.parametrize("edition", ["a4", "letter"])
def test_mat_pages_overlap_by_the_strip_and_their_grids_coincide(edition: str, request) -> None:
    report, pages = request.getfixturevalue(edition)
    overlap = 15.0 if edition == "letter" else 10.0
    pages = measured(report, pages)
    left, right = _join(pages, "hex-mat-r1c1", "hex-mat-r1c2")
    strip = first(left.paths, "strip-right").bounds()
    dashed = first(left.paths, "join-right").points[0][0]
    assert strip[2] - strip[0] == pytest.approx(overlap, abs=0.01)
    assert dashed == pytest.approx(strip[0], abs=0.01)
    cut = first(right.paths, "cut-left").points[0][0]
    # ticks across the join give the vertical alignment, as a player lines them up
    ticks_left = sorted(
        p.points[0][1]
        for p in left.paths
        if p.tag == "join-tick" and abs(p.points[0][0] + p.points[-1][0] - 2 * dashed) < 0.1
    )
    ticks_right = sorted(
        p.points[0][1]
        for p in right.paths
        if p.tag == "join-tick" and abs(p.points[0][0] - cut) < 0.1
    )
    assert len(ticks_left) == len(ticks_right) >= 3
    dy = ticks_left[0] - ticks_right[0]
    assert max(abs(a - b - dy) for a, b in zip(ticks_left, ticks_right, strict=True)) < 0.01
    shift = (dashed - cut, dy)
    worst = _strip_match(
        hex_vertices(left),
        hex_vertices(right),
        lambda p: strip[0] + 0.5 < p[0] < strip[2] - 0.5 and strip[1] + 1 < p[1] < strip[3] - 1,
        shift,
    )
    assert worst < 0.1

    upper, lower = _join(pages, "hex-mat-r1c1", "hex-mat-r2c1")
    strip = first(upper.paths, "strip-below").bounds()
    assert strip[3] - strip[1] == pytest.approx(overlap, abs=0.01)
    dashed = first(upper.paths, "join-below").points[0][1]
    cut = first(lower.paths, "cut-top").points[0][1]
    worst = _strip_match(
        hex_vertices(upper),
        hex_vertices(lower),
        lambda p: strip[1] + 0.5 < p[1] < strip[3] - 0.5 and strip[0] + 1 < p[0] < strip[2] - 1,
        (0.0, dashed - cut),
    )
    assert worst < 0.1


def test_mat_pages_are_numbered_by_row_and_column(a4) -> None:
    report, _pages = a4
    stems = [s for s in report.pages if s.startswith("hex-mat")]
    assert stems[0] == "hex-mat-r1c1"
    root = etree.parse(str(report.out_dir / "svg" / "hex-mat-r2c3.svg")).getroot()
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert any("mat row 2 of 3, column 3 of 4" in t for t in texts), texts
    assert any("Tim Smith" in t for t in texts)  # the game's credit on every page


def test_every_file_carries_the_games_credit_and_the_projects_licence(a4) -> None:
    """Pages (PDF and SVG), the print-shop mat and the laser files: the game's credit and
    'parts generated by squadron_cad, CC BY-SA 4.0' (the pages had lost the latter, the
    untiled mat and the laser files had neither)."""
    from squadron_cad.constants import ENGINE_CREDIT

    report, _pages = a4
    reader = PdfReader(str(report.pdf))
    assert "Tim Smith" in reader.metadata.author
    assert ENGINE_CREDIT in reader.metadata.author
    for index in (0, len(reader.pages) - 1):
        assert ENGINE_CREDIT in reader.pages[index].extract_text()
    for svg in [*(report.out_dir / "svg").glob("*.svg"), *(report.out_dir / "laser").glob("*.svg")]:
        root = etree.parse(str(svg)).getroot()
        words = " ".join(e.text or "" for e in [*root.iter(f"{SVG}text"), *root.iter(f"{SVG}desc")])
        assert "Tim Smith" in words, svg.name
        assert ENGINE_CREDIT in words, svg.name


def test_the_pdf_asks_the_print_dialog_for_actual_size(a4) -> None:
    """A viewer's default 'fit to page' shrinks A4 by about 3 %; /PrintScaling /None asks
    for 100 %."""
    report, _pages = a4
    catalogue = PdfReader(str(report.pdf)).trailer["/Root"]
    assert catalogue["/ViewerPreferences"]["/PrintScaling"] == "/None"


def test_laser_files_have_cut_and_engrave_layers_in_the_usual_colours(a4) -> None:
    report, _ = a4
    laser = report.out_dir / "laser"
    names = {p.stem for p in laser.glob("*.svg")}
    assert {
        "template_straight",
        "template_all",
        "range_ruler_2",
        "stat_record_a",
        "plane_counter_a",
        "altitude_counter_a1",
    } <= names
    root = etree.parse(str(laser / "template_straight.svg")).getroot()
    layers = {g.get(f"{INKSCAPE}label"): g for g in root.iter(f"{SVG}g")}
    assert set(layers) == {"cut", "engrave"}
    cut = next(layers["cut"].iter(f"{SVG}path"))
    assert cut.get("stroke") == "#ff0000"
    assert cut.get("fill") == "none"
    assert float(cut.get("stroke-width")) <= 0.03  # a hairline
    engraved = next(layers["engrave"].iter(f"{SVG}path"), None)
    assert engraved is None or engraved.get("fill") == "#000000"
    assert root.get("width").endswith("mm")


def test_same_parameters_same_bytes(tmp_path: Path, a4) -> None:
    report, _ = a4
    again = write_paper(resolve(), tmp_path / "again", previews=False)
    assert again.pdf.read_bytes() == report.pdf.read_bytes()
    for svg in (report.out_dir / "svg").glob("*.svg"):
        assert (tmp_path / "again" / "svg" / svg.name).read_bytes() == svg.read_bytes()


def test_the_folder_is_owned_and_foreign_folders_are_refused(tmp_path: Path, a4) -> None:
    report, _ = a4
    assert (report.out_dir / ".squadron-cad.json").is_file()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("my notes")
    with pytest.raises(InputError, match="did not write"):
        write_paper(resolve(), foreign, previews=False)


BIG_TOKEN = [
    "token.width_mm=80",
    "paper.hex_across_flats_mm=90",
    "tin.inner_length_mm=300",
    "tin.inner_width_mm=300",
    "tin.inner_depth_mm=80",
]


@pytest.mark.parametrize(
    ("overrides", "names"),
    [
        (["paper.hex_across_flats_mm=25"], ["paper.hex_across_flats_mm", "token.width_mm"]),
        (BIG_TOKEN, ["paper.margin_mm", "paper.size", "All-in-one template"]),
        (["paper.margin_mm=40"], ["paper.margin_mm", "Hex moves card"]),
        (["paper.size=a3"], ["paper.size"]),
        (["paper.mat_columns=1"], ["paper.mat_columns"]),
    ],
)
def test_bad_paper_parameters_are_refused_in_one_line(
    tmp_path: Path, overrides: list[str], names: list[str], capsys, monkeypatch
) -> None:
    args = ["paper", "--out", str(tmp_path / "out"), "--no-previews"]
    for override in overrides:
        args += ["--set", override]
    result = cli_in_worker(args, capsys, monkeypatch, tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert all(name in lines[0] for name in names), lines
    assert not (tmp_path / "out").exists()  # nothing written


def test_the_command_reports_what_it_measured(tmp_path: Path, capsys, monkeypatch) -> None:
    args = [
        "paper",
        "--json",
        "--no-previews",
        "--out",
        str(tmp_path / "out"),
        "--set",
        "paper.mat_columns=4",
        "--set",
        "paper.mat_rows=3",
    ]
    result = cli_in_worker(args, capsys, monkeypatch, tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["event"] == "paper"
    assert summary["scale_bar_100mm_mm"] == pytest.approx([100, 100], abs=0.01)
    assert summary["hex_across_flats_mm"] == pytest.approx([34, 34], abs=0.01)
    assert summary["pages"] == len(list((tmp_path / "out" / "svg").glob("*-[0-9]*.svg"))) + len(
        list((tmp_path / "out" / "svg").glob("hex-mat-r*.svg"))
    )


def test_the_readme_paper_pictures_show_todays_default_edition(a4) -> None:
    """docs/paper is drawn by `make docs` from the default edition; its index holds that
    PDF's sha256, so pages that change (a stat row renamed, a credit line) show here until
    the pictures are redrawn."""
    from squadron_cad.outputs.gallery import paper_pictures_stale

    report, _pages = a4
    docs = Path(__file__).resolve().parents[4] / "docs"
    assert paper_pictures_stale(docs, report.pdf) == []


def test_white_grounds_of_join_notes_lie_in_the_strips_the_next_page_covers(a4) -> None:
    """34 notes on white grounds blanked 168 mm of hex outline that stays in sight on the
    glued mat; a ground may only hide what the next page covers anyway."""
    _report, pages = a4
    grounds = 0
    for paths in pages:
        strips = [p for p in paths if p.tag in ("strip-right", "strip-below")]
        boxes = [
            (min(x for x, _ in s.points), min(y for _, y in s.points),
             max(x for x, _ in s.points), max(y for _, y in s.points))
            for s in strips
        ]  # fmt: skip
        for ground in (p for p in paths if p.tag == "join-note-ground"):
            grounds += 1
            assert any(
                all(x0 - 1e-3 <= x <= x1 + 1e-3 and y0 - 1e-3 <= y <= y1 + 1e-3
                    for x, y in ground.points)
                for x0, y0, x1, y1 in boxes
            ), ground.points  # fmt: skip
    assert grounds > 0

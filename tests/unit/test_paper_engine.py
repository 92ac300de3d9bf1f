"""The paper engine knows no game: a toy kit declares its own sheets and gets its pages,
laser files and previews; the engine's modules name no part, sheet or game."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from toykit.paper import write_paper

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit
from squadron_cad.paper.edition import frame_of
from squadron_cad.paper.measure import svg_paths
from squadron_cad.params import KitParamsBase
from squadron_cad.resolve import resolve

ENGINE = Path(__file__).resolve().parents[2] / "squadron_cad" / "paper"


@pytest.fixture(scope="module")
def toy(tmp_path_factory, toy_params: KitParamsBase) -> Path:
    """The toy kit's paper edition (tests/toykit/paper.py)."""
    folder = tmp_path_factory.mktemp("toy") / "paper"
    write_paper(toy_params, folder, previews=shutil.which("pdftoppm") is not None)
    return folder


def test_a_kit_declares_sheets_and_gets_pages(toy: Path) -> None:
    pages = sorted(p.stem for p in (toy / "svg").glob("*.svg"))
    assert "markers-1" in pages
    assert any(p.startswith("table-r2c") for p in pages)  # 900 mm: tiled over pages
    assert "table-whole" in pages
    cuts = [p for p in svg_paths(toy / "svg" / "markers-1.svg")[0] if p.tag == "objective-cut"]
    assert len(cuts) == 3  # every copy placed
    x0, y0, x1, y1 = cuts[0].bounds()
    assert (x1 - x0, y1 - y0) == pytest.approx((63.5, 88.9), abs=0.001)
    assert (toy / "laser" / "objective.svg").is_file()
    assert (toy / "toy_a4.pdf").is_file()


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils is not installed")
def test_every_page_gets_a_png_preview(toy: Path) -> None:
    pngs = sorted((toy / "previews").glob("*.png"))
    assert len(pngs) == len(list((toy / "svg").glob("*.svg"))) - 1  # the whole table is no page
    assert pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_engine_names_no_game_and_imports_no_kit() -> None:
    for module in ENGINE.glob("*.py"):
        text = module.read_text()
        assert not re.search(r"squadron_cad\.(sheets|parts|geometry\.move_paths)", text), module
        game_words = r"(?i)squadron[ _]leader|range.ruler|templates?\b|plane|altitude"
        assert not re.search(game_words, text), module


@pytest.mark.parametrize("pages", [(2, 2), (7, 2), (3, 17), (12, 24)])
@pytest.mark.parametrize("size", ["a4", "letter"])
def test_the_page_map_of_a_big_mat_stays_in_the_footer_clear_of_the_scale_bars(
    toy_kit: Kit, pages: tuple[int, int], size: str
) -> None:
    """A mat of 7 page rows (paper.mat_rows=44) ran the map out of the printable area,
    which the tool reported as a layout bug; 17 page columns drew it over the 1-inch bar."""
    from squadron_cad.paper.furniture import _bars_x, page_map

    frame = frame_of(resolve(overrides=[f"paper.size={size}"], kit=toy_kit.name).paper)
    rows, columns = pages
    cells = page_map(frame, (rows, columns, rows, columns))
    points = [point for cell in cells for ring in cell.rings for point in ring]
    footer = frame.footer
    assert len(cells) == rows * columns
    assert min(x for x, _ in points) > _bars_x(frame)[2]
    assert max(x for x, _ in points) <= footer.right
    assert footer.y <= min(y for _, y in points)
    assert max(y for _, y in points) <= footer.top


def test_a_long_credit_line_shrinks_to_the_page_not_past_its_margins(toy_kit: Kit) -> None:
    """Space Planes' credit with the project's licence is 173 mm long at 2.4 mm: with
    paper.margin_mm=20 the edition stopped with '(a layout bug)'."""
    from squadron_cad.paper.drawing import Label
    from squadron_cad.paper.furniture import SMALL_MM, footer
    from squadron_cad.paper.metrics import text_width_mm

    frame = frame_of(resolve(overrides=["paper.margin_mm=25"], kit=toy_kit.name).paper)
    long_credit = "x" * 400
    credit = next(
        i for i in footer(frame, long_credit) if isinstance(i, Label) and i.tag == "credit"
    )
    assert text_width_mm(long_credit, credit.size_mm) <= frame.footer.width + 1e-6
    short = next(i for i in footer(frame, "short") if isinstance(i, Label) and i.tag == "credit")
    assert short.size_mm == SMALL_MM


def test_a_margin_too_wide_for_the_scale_bars_is_refused_in_one_line(
    toy_kit: Kit, tmp_path: Path
) -> None:
    """Space Planes' paper with paper.margin_mm=29 stopped with '(a layout bug)': the
    bars did not fit the footer. Any kit's edition is refused before it writes."""
    params = resolve(overrides=["paper.margin_mm=29"], kit=toy_kit.name)
    with pytest.raises(InputError, match=r"narrower than the scale bars every page carries"):
        toy_kit.paper(params, tmp_path / "paper", False)
    assert not (tmp_path / "paper").exists()

"""The paper engine knows no game: a toy kit declares its own sheets and gets its pages,
laser files and previews; the engine's modules name no part, sheet or game."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from toykit.paper import write_paper

from squadron_cad.paper.measure import svg_paths
from squadron_cad.params import KitParamsBase

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

"""Write a kit's paper edition: lay out its sheets, write the PDF, SVGs and previews.

Like a build, the edition is written into a staging folder and swapped into place whole,
with an ownership record, so `--out` follows the kit's rules (squadron_cad.outfolder) and
a paper folder inside a kit's folder outlives the kit's rebuilds. After writing, the PDF
and SVGs are read back and measured (squadron_cad.paper.measure): what the report says is
what the files hold.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from squadron_cad.errors import InputError, ToolError
from squadron_cad.outfolder import safe_output_folder, staged
from squadron_cad.paper.drawing import Drawing, item_bounds
from squadron_cad.paper.furniture import bars_width_mm, finish
from squadron_cad.paper.layout import Page, pack
from squadron_cad.paper.measure import Path2D, tagged_pdf_paths
from squadron_cad.paper.page import PageFrame
from squadron_cad.paper.pdf import write_pdf
from squadron_cad.paper.sheet import PaperKit, PieceSheet, TiledSheet
from squadron_cad.paper.svg import laser_svg, whole_svg, write_page_svg
from squadron_cad.paper.tiling import tile
from squadron_cad.params import PaperParams
from squadron_cad.render.atomic import write_bytes, write_json

PREVIEW_DPI = 60
Measurer = Callable[[list["MeasuredPage"]], dict[str, Any]]


@dataclass(frozen=True)
class MeasuredPage:
    """A written page read back: its stem, sheet, tile and tagged paths (from the PDF)."""

    stem: str
    sheet: str
    tile: tuple[int, int, int, int] | None
    paths: list[Path2D]
    placements: list[dict[str, Any]]


@dataclass
class PaperReport:
    out_dir: Path
    pdf: Path
    pages: list[str] = field(default_factory=list)
    svgs: int = 0
    laser: int = 0
    previews: int = 0
    figures: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)  # the figures in words, for people


def frame_of(params: PaperParams) -> PageFrame:
    width, height = params.page_size_mm
    return PageFrame(width, height, params.margin_mm)


def lay_out(kit: PaperKit, params: PaperParams) -> tuple[list[Page], list[Drawing]]:
    """Every sheet on its pages, and each page finished with its title and scale bars."""
    frame = frame_of(params)
    keys = f"paper.size {params.size} with paper.margin_mm {params.margin_mm:g}"
    pages: list[Page] = []
    for sheet in kit.sheets:
        if isinstance(sheet, PieceSheet):
            pages += pack(sheet, frame, params.gap_mm, keys)
        else:
            pages += tile(sheet, frame, params.overlap_mm)
    _refuse_too_narrow_for_the_bars(frame, keys)  # after the pieces: they name themselves
    finished = [
        finish(page, frame, kit.title, kit.credit_line, number, len(pages))
        for number, page in enumerate(pages, start=1)
    ]
    for page, drawn in zip(pages, finished, strict=True):
        _inside_margins(page.stem, drawn, frame)
    return pages, finished


def _refuse_too_narrow_for_the_bars(frame: PageFrame, keys: str) -> None:
    """Every page carries the 100 mm and 1-inch bars side by side: a margin that leaves no
    room for them is bad input, not a layout bug."""
    need = bars_width_mm(frame)
    if need > frame.footer.width + 1e-6:
        raise InputError(
            f"{keys}: the page's printable width ({frame.footer.width:.1f} mm) is narrower "
            f"than the scale bars every page carries ({need:.1f} mm); choose a smaller "
            "paper.margin_mm or a larger paper.size"
        )


def _inside_margins(stem: str, drawn: Drawing, frame: PageFrame) -> None:
    """Every item's ink inside the printable area, or a bug worth naming."""
    for item in drawn.items:
        bounds = item_bounds(item)
        if not frame.printable.holds(bounds, slack=1e-3):
            raise ToolError(
                f"{stem}: {item.tag or type(item).__name__} at "
                f"{', '.join(f'{v:.1f}' for v in bounds)} mm leaves the printable area "
                "(a layout bug)"
            )


def write_edition(
    kit: PaperKit,
    params: PaperParams,
    out: Path,
    measurer: Measurer | None = None,
    previews: bool = True,
) -> PaperReport:
    """Lay out, write into a staging folder, read back and measure, then swap in."""
    out_dir = safe_output_folder(out, "paper")
    pages, finished = lay_out(kit, params)
    frame = frame_of(params)
    pdf_name = f"{kit.name}_{params.size}.pdf"
    with staged(out_dir, "paper") as staging:
        root = staging.path
        write_pdf(root / pdf_name, finished, frame, f"{kit.title}: paper edition", kit.credit_line)
        svg_files = []
        for page, drawn in zip(pages, finished, strict=True):
            svg_file = root / "svg" / f"{page.stem}.svg"
            title = f"{kit.title}: {page.sheet_title} ({page.stem})"
            write_page_svg(svg_file, drawn, frame.width_mm, frame.height_mm, title, kit.credit_line)
            svg_files.append(svg_file)
        laser = _write_laser(kit, root / "laser")
        _write_whole(kit, root / "svg")
        measured = _read_back(root / pdf_name, svg_files, pages)
        figures = _figures(measured, measurer)
        shown = Path(out)  # paths in the report as the user gave them
        report = PaperReport(
            shown, shown / pdf_name, [p.stem for p in pages], len(svg_files), laser, 0, figures
        )
        if previews:
            report.previews = _previews(root / pdf_name, root / "previews", pages, report)
        write_json(root / "paper.json", _record(kit, params, pages, report, pdf_name))
        staging.commit()
    return report


def _write_laser(kit: PaperKit, folder: Path) -> int:
    written = set()
    for sheet in kit.sheets:
        if not isinstance(sheet, PieceSheet):
            continue
        for piece in sheet.pieces:
            if piece.laser and piece.name not in written:
                data = laser_svg(
                    piece.drawing, f"{kit.title}: {piece.title} (cut and engrave)", kit.credit_line
                )
                write_bytes(folder / f"{piece.name}.svg", data)
                written.add(piece.name)
    return len(written)


def _write_whole(kit: PaperKit, folder: Path) -> None:
    for sheet in kit.sheets:
        if isinstance(sheet, TiledSheet) and sheet.whole_svg:
            data = whole_svg(
                sheet.drawing, f"{kit.title}: {sheet.title}, 1:1, untiled", kit.credit_line
            )
            write_bytes(folder / f"{sheet.name}-whole.svg", data)


def _read_back(pdf_file: Path, svg_files: list[Path], pages: list[Page]) -> list[MeasuredPage]:
    try:
        tagged = tagged_pdf_paths(pdf_file, svg_files)
    except ValueError as error:
        raise ToolError(f"the PDF and SVG pages differ: {error}") from error
    return [
        MeasuredPage(
            page.stem,
            page.sheet,
            page.tile,
            paths,
            [{"piece": p.piece, "box": list(p.box), "turned": p.turned} for p in page.placements],
        )
        for page, paths in zip(pages, tagged, strict=True)
    ]


def scale_bar_lengths(measured: list[MeasuredPage], tag: str) -> list[float]:
    """Per page, the length of the bar's main line (its first path with the tag)."""
    lengths = []
    for page in measured:
        bar = next(path for path in page.paths if path.tag == tag)
        (x0, _), (x1, _) = bar.subpaths[0][0], bar.subpaths[0][-1]
        lengths.append(abs(x1 - x0))
    return lengths


def _figures(measured: list[MeasuredPage], measurer: Measurer | None) -> dict[str, Any]:
    bars_mm = scale_bar_lengths(measured, "scale-100mm")
    bars_in = scale_bar_lengths(measured, "scale-1in")
    figures: dict[str, Any] = {
        "pages": len(measured),
        "scale_bar_100mm_mm": [round(min(bars_mm), 4), round(max(bars_mm), 4)],
        "scale_bar_1in_mm": [round(min(bars_in), 4), round(max(bars_in), 4)],
    }
    if measurer is not None:
        figures |= measurer(measured)
    return figures


def _previews(pdf_file: Path, folder: Path, pages: list[Page], report: PaperReport) -> int:
    """Each page as a PNG with poppler's pdftoppm, named like its SVG."""
    tool = shutil.which("pdftoppm")
    if tool is None:
        report.notices.append("pdftoppm not found (apt-get install poppler-utils): no previews")
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / "page"
    result = subprocess.run(
        [tool, "-png", "-r", str(PREVIEW_DPI), str(pdf_file), str(prefix)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        raise ToolError(f"pdftoppm failed: {result.stderr.strip()[:200]}")
    rendered = sorted(folder.glob("page-*.png"), key=lambda p: int(p.stem.split("-")[-1]))
    if len(rendered) != len(pages):
        raise ToolError(f"pdftoppm wrote {len(rendered)} pictures for {len(pages)} pages")
    for number, (png, page) in enumerate(zip(rendered, pages, strict=True), start=1):
        png.rename(folder / f"{number:02d}-{page.stem}.png")
    return len(rendered)


def _record(
    kit: PaperKit, params: PaperParams, pages: list[Page], report: PaperReport, pdf_name: str
) -> dict[str, Any]:
    return {
        "generator": "squadron_cad paper",
        "kit": kit.name,
        "pdf": pdf_name,
        "paper": params.model_dump(mode="json"),
        "pages": [
            {
                "number": number,
                "stem": page.stem,
                "sheet": page.sheet,
                "tile": list(page.tile) if page.tile else None,
                "pieces": [
                    {"piece": p.piece, "box_mm": [round(v, 3) for v in p.box], "turned": p.turned}
                    for p in page.placements
                ],
            }
            for number, page in enumerate(pages, start=1)
        ],
        "figures": report.figures,
    }

"""What every page carries: a title, its number, two scale bars and the game's credit.

The scale bars (100 mm and 1 inch, ticked) let a player check with a rule that the
printer did not scale the page ("fit to page" shrinks A4 by about 3 %). Their ends are
butt-capped lines, so the ink is exactly as long as the drawn path.
"""

from __future__ import annotations

from squadron_cad.paper.drawing import BLACK, Area, Drawing, Item, Label, Stroke, drawing
from squadron_cad.paper.layout import Page
from squadron_cad.paper.metrics import text_width_mm
from squadron_cad.paper.page import PageFrame

MM_PER_INCH = 25.4
BAR_MM = 0.3
TICK_MM = 2.0
TITLE_MM = 4.0
SMALL_MM = 2.4
MAP_CELL_MM = (3.2, 2.4)  # the page map's cell for one tile, width x height, at most
MAP_GAP_MM = 3.0  # between the 1-inch bar's name and the page map
MAP_LEAST_MM = 6.0  # narrower room than this draws no page map


def scale_bar(
    x: float, y: float, length_mm: float, divisions: int, name: str, tag: str
) -> list[Item]:
    """A bar `length_mm` long from (x, y), ticked into `divisions`, its name after it."""
    items: list[Item] = [
        Stroke(((x, y), (x + length_mm, y)), BAR_MM, BLACK, "print", round_caps=False, tag=tag)
    ]
    for i in range(divisions + 1):
        tx = x + length_mm * i / divisions
        tall = TICK_MM if i in (0, divisions) else TICK_MM / 2
        items.append(
            Stroke(((tx, y), (tx, y + tall)), BAR_MM, BLACK, "print", round_caps=False, tag=tag)
        )
    items.append(Label(name, (x + length_mm + 1.5, y), SMALL_MM, tag=f"{tag}-name"))
    return items


def _bars_x(frame: PageFrame) -> tuple[float, float, float]:
    """Where the 100 mm bar and the 1-inch bar start, and where the latter's name ends."""
    left = frame.footer.x + BAR_MM / 2  # the first tick's ink starts on the printable edge
    inch_x = left + 100 + 1.5 + text_width_mm("100 mm", SMALL_MM) + 10
    return left, inch_x, inch_x + MM_PER_INCH + 1.5 + text_width_mm("1 inch", SMALL_MM)


def bars_width_mm(frame: PageFrame) -> float:
    """How wide the footer's two scale bars and their names are, from the printable edge."""
    return _bars_x(frame)[2] - frame.footer.x


def footer(frame: PageFrame, credit: str) -> list[Item]:
    area = frame.footer
    bar_y = area.top - TICK_MM - 0.5
    left, inch_x, _ = _bars_x(frame)
    items = scale_bar(left, bar_y, 100.0, 10, "100 mm", "scale-100mm")
    items += scale_bar(inch_x, bar_y, MM_PER_INCH, 4, "1 inch", "scale-1in")
    items.append(Label(CHECK_TEXT, (area.x, area.y + 5.0), SMALL_MM, tag="scale-note"))
    items.append(Label(credit, (area.x, area.y + 0.8), _fitting(credit, area.width), tag="credit"))
    return items


def _fitting(text: str, width_mm: float) -> float:
    """SMALL_MM, or smaller where a long credit line would leave a narrow page's margins."""
    return min(SMALL_MM, SMALL_MM * width_mm / text_width_mm(text, SMALL_MM))


CHECK_TEXT = (
    "Print at 100 % (no 'fit to page'): with a rule, the bars above measure 100 mm and 1 inch."
)


def header(frame: PageFrame, title: str, page_text: str) -> list[Item]:
    area = frame.header
    baseline = area.y + 2.0
    return [
        Label(title, (area.x, baseline), TITLE_MM, bold=True, tag="title"),
        Label(page_text, (area.right, baseline), SMALL_MM * 1.25, anchor="end", tag="page"),
        Stroke(
            ((area.x, area.y), (area.right, area.y)),
            0.2,
            BLACK,
            "print",
            round_caps=False,
            tag="rule",
        ),
    ]


def page_map(frame: PageFrame, tile: tuple[int, int, int, int]) -> list[Item]:
    """The tiles as small boxes at the footer's right, this page's box filled; a mat of
    many pages gets smaller boxes, so the map stays clear of the scale bars and inside the
    footer."""
    row, column, rows, columns = tile
    right = frame.footer.right - 0.2  # the boxes' outlines stay inside the margin
    top = frame.footer.top - 0.2
    room_w = right - (_bars_x(frame)[2] + MAP_GAP_MM)
    room_h = top - (frame.footer.y + 0.2)
    if room_w < MAP_LEAST_MM:  # a narrow page: its header names the row and column
        return []
    shrink = min(1.0, room_w / (columns * MAP_CELL_MM[0]), room_h / (rows * MAP_CELL_MM[1]))
    cell_w, cell_h = MAP_CELL_MM[0] * shrink, MAP_CELL_MM[1] * shrink
    items: list[Item] = []
    for r in range(rows):
        for c in range(columns):
            x = right - (columns - c) * cell_w
            y = top - (r + 1) * cell_h
            ring = ((x, y), (x + cell_w, y), (x + cell_w, y + cell_h), (x, y + cell_h))
            mine = (r + 1, c + 1) == (row, column)
            items.append(
                Area((ring,), BLACK if mine else None, "print", BLACK, 0.15, tag="page-map")
            )
    return items


def finish(
    page: Page, frame: PageFrame, title: str, credit: str, number: int, total: int
) -> Drawing:
    """The page's content with its title, number, scale bars and credit."""
    page_text = f"page {number} of {total}"
    if page.tile is not None:
        row, column, rows, columns = page.tile
        page_text = f"mat row {row} of {rows}, column {column} of {columns} · {page_text}"
    items = header(frame, f"{title} · {page.sheet_title}", page_text) + footer(frame, credit)
    if page.tile is not None:
        items += page_map(frame, page.tile)
    return page.drawing + drawing(items)

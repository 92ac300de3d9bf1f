"""Pieces packed onto pages, in the order the kit gives them, each with its caption.

Pages fill in rows from the top of the content area (shelf packing): a piece that does not
fit the row starts a new one, a row that does not fit the page starts a new page. A piece
larger than the content area is turned a quarter; larger still, the page is refused,
naming the keys that set its size.
"""

from __future__ import annotations

from dataclasses import dataclass

from squadron_cad.errors import InputError
from squadron_cad.paper.drawing import BLACK, Drawing, Label, drawing
from squadron_cad.paper.metrics import text_width_mm
from squadron_cad.paper.page import PageFrame, Rect
from squadron_cad.paper.sheet import Piece, PieceSheet

CAPTION_MM = 2.8  # caption font size
CAPTION_GAP_MM = 1.6  # between a piece and its caption
NOTE_MM = 3.2  # font size of a sheet's notes
NOTE_LEADING = 1.45  # line pitch in font sizes


@dataclass(frozen=True)
class Placement:
    """Where one copy of a piece landed: its name and its box in the page frame."""

    piece: str
    box: tuple[float, float, float, float]
    turned: bool


@dataclass(frozen=True)
class Page:
    """One page's content (page frame), before the title, scale bars and credit."""

    sheet: str
    sheet_title: str
    stem: str  # file name of the page's SVG and PNG, without extension
    drawing: Drawing
    placements: tuple[Placement, ...] = ()
    tile: tuple[int, int, int, int] | None = None  # row, column, rows, columns (1-based)


def size_of(piece_drawing: Drawing) -> tuple[float, float]:
    x0, y0, x1, y1 = piece_drawing.bounds()
    return x1 - x0, y1 - y0


def fitted(piece: Piece, room: Rect, keys: str) -> tuple[Drawing, bool]:
    """The piece's drawing, turned a quarter if only that fits; refused if neither does."""
    width, height = size_of(piece.drawing)
    footprint = CAPTION_GAP_MM + CAPTION_MM
    if width <= room.width and height + footprint <= room.height:
        return piece.drawing, False
    if height <= room.width and width + footprint <= room.height:
        return piece.drawing.moved(0, 0, 90), True
    raise InputError(
        f"{keys}: the page's content area ({room.width:.0f} x {room.height:.0f} mm) is too "
        f"small for {piece.title} ({width:.0f} x {height:.0f} mm); choose a larger "
        "paper.size or a smaller paper.margin_mm"
    )


def wrap(text: str, width_mm: float, size_mm: float) -> list[str]:
    """Words of `text` in lines no wider than width_mm."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and text_width_mm(candidate, size_mm) > width_mm:
            lines.append(current)
            current = word
        else:
            current = candidate
    return [*lines, current] if current else lines


def notes_drawing(notes: tuple[str, ...], room: Rect) -> tuple[Drawing, float]:
    """The sheet's notes from the top of the room, and the height they take."""
    labels = []
    y = room.top - NOTE_MM
    for note in notes:
        for line in wrap(note, room.width, NOTE_MM):
            labels.append(Label(line, (room.x, y), NOTE_MM, tag="note"))
            y -= NOTE_MM * NOTE_LEADING
    used = room.top - y - NOTE_MM * (NOTE_LEADING - 1) if labels else 0.0
    return drawing(labels), used


class _Shelves:
    """The packing cursor over one page's content area."""

    def __init__(self, room: Rect, gap: float, top: float) -> None:
        self.room, self.gap = room, gap
        self.x, self.top, self.row_height = room.x, top, 0.0

    def break_row(self) -> None:
        if self.x > self.room.x:
            self.x = self.room.right + 1  # the next piece cannot fit: a new row starts

    def place(self, width: float, height: float) -> tuple[float, float] | None:
        """Top-left corner for a footprint, or None when the page is full."""
        if self.x > self.room.x and self.x + width > self.room.right + 1e-9:
            self.x = self.room.x
            self.top -= self.row_height + self.gap
            self.row_height = 0.0
        if self.top - height < self.room.y - 1e-9:
            return None
        corner = (self.x, self.top)
        self.x += width + self.gap
        self.row_height = max(self.row_height, height)
        return corner


def pack(sheet: PieceSheet, frame: PageFrame, gap_mm: float, keys: str) -> list[Page]:
    """The sheet's pieces (every copy) on as many pages as they need."""
    room = frame.content
    notes, used = notes_drawing(sheet.notes, room)
    pages: list[Page] = []
    shelves = _Shelves(room, gap_mm, room.top - (used + gap_mm if used else 0.0))
    items = notes
    placements: list[Placement] = []
    for piece in sheet.pieces:
        shape, turned = fitted(piece, room, keys)
        width, height = size_of(shape)
        span = min(max(width, text_width_mm(piece.title, CAPTION_MM)), room.width)
        footprint = height + CAPTION_GAP_MM + CAPTION_MM
        if piece.new_row:
            shelves.break_row()
        for _copy in range(piece.copies):
            corner = shelves.place(span, footprint)
            if corner is None:
                pages.append(_page(sheet, len(pages), items, placements))
                shelves = _Shelves(room, gap_mm, room.top)
                items, placements = Drawing(), []
                corner = shelves.place(span, footprint)
                assert corner is not None  # fitted() guarantees an empty page holds it
            left = corner[0] + (span - width) / 2
            placed, box = _put(shape, (left, corner[1]), width, height)
            caption = Label(
                piece.title,
                (corner[0] + span / 2, box[1] - CAPTION_GAP_MM - CAPTION_MM * 0.75),
                CAPTION_MM,
                anchor="middle",
                colour=BLACK,
                tag="caption",
            )
            items = items + placed + drawing(caption)
            placements.append(Placement(piece.name, box, turned))
    pages.append(_page(sheet, len(pages), items, placements))
    return pages


def _put(
    shape: Drawing, corner: tuple[float, float], width: float, height: float
) -> tuple[Drawing, tuple[float, float, float, float]]:
    x0, _y0, _x1, y1 = shape.bounds()
    left, top = corner
    placed = shape.moved(left - x0, top - y1)
    return placed, (left, top - height, left + width, top)


def _page(sheet: PieceSheet, index: int, items: Drawing, placements: list[Placement]) -> Page:
    return Page(
        sheet.name,
        sheet.title,
        f"{sheet.name}-{index + 1}",
        items,
        tuple(placements),
    )

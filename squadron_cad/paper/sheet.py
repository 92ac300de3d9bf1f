"""What a kit declares to get a paper edition: sheets of pieces, and large tiled sheets.

A kit builds a `PaperKit` (its name, title, credit line and sheets), as it declares parts;
the engine lays the sheets out on pages and writes them. Two kinds of sheet:

- `PieceSheet`: flat pieces to cut out (cards, strips, counters), each a `Piece` whose
  drawing's `cut` layer is its outline. The engine packs them onto as many pages as needed,
  each with its caption; laser and cutter SVGs are written per piece.
- `TiledSheet`: one drawing larger than a page (a battle mat), tiled over pages that
  overlap by a strip, with alignment marks and each page's row and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from squadron_cad.constants import ENGINE_CREDIT
from squadron_cad.paper.drawing import Drawing

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _check_name(name: str) -> None:
    if not _NAME.match(name):  # names become file names
        raise ValueError(f"sheet or piece name {name!r}: use a-z, 0-9, - and _")


@dataclass(frozen=True)
class Piece:
    """One flat piece: drawn in the CAD frame (mm, y up), cut along its `cut` layer."""

    name: str
    title: str
    drawing: Drawing
    copies: int = 1
    laser: bool = True  # also written as a laser / cutting-plotter SVG
    new_row: bool = False  # start a new row on the page (a new player's pieces, say)

    def __post_init__(self) -> None:
        _check_name(self.name)


@dataclass(frozen=True)
class PieceSheet:
    name: str
    title: str
    pieces: tuple[Piece, ...]
    notes: tuple[str, ...] = ()  # lines printed above the pieces on the sheet's first page

    def __post_init__(self) -> None:
        _check_name(self.name)


@dataclass(frozen=True)
class TiledSheet:
    name: str
    title: str
    drawing: Drawing
    notes: tuple[str, ...] = ()  # printed in the first page's overlap-free corner
    whole_svg: bool = True  # also write the untiled drawing 1:1 (large-format printing)

    def __post_init__(self) -> None:
        _check_name(self.name)


Sheet = PieceSheet | TiledSheet


@dataclass(frozen=True)
class PaperKit:
    """Everything a kit hands the engine."""

    name: str  # file stem of the PDF
    title: str  # printed on every page
    credit: str  # the game's credit and licence, on every page
    sheets: tuple[Sheet, ...]

    @property
    def credit_line(self) -> str:
        """The game's credit and the project's own licence, as every page and file says."""
        return f"{self.credit}; {ENGINE_CREDIT}"

"""The sheets of Squadron Leader's paper edition, in print order, as parts are listed.

Adding a sheet means one builder (SquadronLeaderParams -> a paper.sheet Sheet) and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader.constants import GAME_CREDIT
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets.counters import counters_sheet
from squadron_cad.kits.squadron_leader.sheets.mat import mat_sheet
from squadron_cad.kits.squadron_leader.sheets.moves_card import moves_sheet
from squadron_cad.kits.squadron_leader.sheets.templates import ruler_sheet, templates_sheet
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Sheet
from squadron_cad.params import LENGTH_EPSILON_MM


@dataclass(frozen=True)
class SheetSpec:
    name: str
    what: str
    builder: Callable[[SquadronLeaderParams], Sheet]


SHEETS: tuple[SheetSpec, ...] = (
    SheetSpec("counters", "per player: plane, 4 altitude counters, stat record", counters_sheet),
    SheetSpec("hex-moves", "the three hex moves and the firing cone", moves_sheet),
    SheetSpec("templates", "straight, bank, turn and all-in-one templates, 1:1", templates_sheet),
    SheetSpec("ruler", "range ruler sections, 1:1; the range string's knots", ruler_sheet),
    SheetSpec("hex-mat", "the hex battle mat, tiled over pages", mat_sheet),
)


PICK_ROOM_MM = 1.0  # least room left on each side of a counter in its hex, to pick it up


def check_hex_holds_the_counter(p: SquadronLeaderParams) -> None:
    """A plane counter, or the printed token at any turn, must fit its hex with room: a
    rule of the paper edition only (a 3D kit draws no hexes)."""
    least = p.token.width_mm + 2 * PICK_ROOM_MM
    if p.paper.hex_across_flats_mm < least - LENGTH_EPSILON_MM:
        raise InputError(
            f"paper.hex_across_flats_mm ({p.paper.hex_across_flats_mm:g}) is smaller than "
            f"the plane counter: it must be at least token.width_mm ({p.token.width_mm:g}) "
            f"+ {2 * PICK_ROOM_MM:g} mm ({least:g}) so a counter fits with room to pick it up"
        )


def paper_kit(p: SquadronLeaderParams) -> PaperKit:
    check_hex_holds_the_counter(p)
    return PaperKit(
        name="squadron_leader_paper",
        title="Squadron Leader",
        credit=GAME_CREDIT,
        sheets=tuple(spec.builder(p) for spec in SHEETS),
    )


def write_paper(p: SquadronLeaderParams, out: Path, previews: bool = True) -> PaperReport:
    """The paper edition of the kit into `out`, measured on the written PDF."""
    from squadron_cad.kits.squadron_leader.sheets.figures import measure, summary_lines

    report = write_edition(paper_kit(p), p.paper, out, measurer=measure, previews=previews)
    report.summary = summary_lines(report, p.paper.size)
    return report

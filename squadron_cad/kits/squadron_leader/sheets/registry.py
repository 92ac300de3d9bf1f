"""The sheets of Squadron Leader's paper edition, in print order, as parts are listed.

Adding a sheet means one builder (SquadronLeaderParams -> a paper.sheet Sheet) and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from squadron_cad.kits.squadron_leader.constants import GAME_CREDIT
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets.counters import counters_sheet
from squadron_cad.kits.squadron_leader.sheets.mat import mat_sheet
from squadron_cad.kits.squadron_leader.sheets.moves_card import moves_sheet
from squadron_cad.kits.squadron_leader.sheets.templates import ruler_sheet, templates_sheet
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Sheet


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


def paper_kit(p: SquadronLeaderParams) -> PaperKit:
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

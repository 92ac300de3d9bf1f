"""The sheets of Squadrons' paper edition, in print order.

Adding a sheet means one builder (SquadronsParams -> a paper.sheet Sheet) and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from squadron_cad.kits.squadrons.constants import GAME_CREDIT
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.sheets.markers import markers_sheet
from squadron_cad.kits.squadrons.sheets.measures import measures_sheet
from squadron_cad.kits.squadrons.sheets.ships import squadron_sheet
from squadron_cad.paper.edition import PaperReport, write_edition
from squadron_cad.paper.sheet import PaperKit, Sheet


@dataclass(frozen=True)
class SheetSpec:
    name: str
    what: str
    builder: Callable[[SquadronsParams], tuple[Sheet, ...]]


def _squadrons(p: SquadronsParams) -> tuple[Sheet, ...]:
    return tuple(squadron_sheet(p, player) for player in range(p.players))


SHEETS: tuple[SheetSpec, ...] = (
    SheetSpec(
        "measures",
        "range ruler strips, movement gauge, pivot guide, 1:1",
        lambda p: (measures_sheet(p),),
    ),
    SheetSpec("squadron-N", "per player: a base and a tracker per ship, with its mark", _squadrons),
    SheetSpec(
        "markers",
        "objectives and entry markers, as many as the kit prints",
        lambda p: (markers_sheet(p),),
    ),
)


def paper_kit(p: SquadronsParams) -> PaperKit:
    return PaperKit(
        name="squadrons_paper",
        title="Squadrons",
        credit=GAME_CREDIT,
        sheets=tuple(sheet for spec in SHEETS for sheet in spec.builder(p)),
    )


def write_paper(p: SquadronsParams, out: Path, previews: bool = True) -> PaperReport:
    """The paper edition of the kit into `out`, measured on the written PDF."""
    from squadron_cad.kits.squadrons.sheets.figures import measure, summary_lines

    report = write_edition(paper_kit(p), p.paper, out, measurer=measure, previews=previews)
    report.summary = summary_lines(report, p.paper.size)
    return report

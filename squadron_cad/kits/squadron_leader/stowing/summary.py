"""The chosen layout in words, for `squadron-cad fit` (no rendering needed): the engine's
report (squadron_cad.fit.report) and the pieces `box.leave_out` keeps out of the box."""

from __future__ import annotations

from typing import Protocol

from squadron_cad.fit.layout import Layout
from squadron_cad.fit.report import fit_report
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams


class StowedDesign(Protocol):
    """What the report reads of the kit's design (design.SquadronLeaderDesign): the design
    calls the stowing to solve its layout, so the stowing names only what it reads."""

    @property
    def params(self) -> SquadronLeaderParams: ...

    @property
    def layout(self) -> Layout: ...


def fit_lines(design: StowedDesign) -> list[str]:
    left_out = design.params.box.leave_out
    notes = [f"left out (box.leave_out): {', '.join(left_out)}"] if left_out else []
    return fit_report(design, notes=notes)

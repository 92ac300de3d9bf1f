"""The chosen layout in words, for `squadron-cad fit` (no rendering needed): the engine's
report (squadron_cad.fit.report) and the pieces `box.leave_out` keeps out of the box."""

from __future__ import annotations

from typing import TYPE_CHECKING

from squadron_cad.fit.report import fit_report

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign


def fit_lines(design: SquadronLeaderDesign) -> list[str]:
    left_out = design.params.box.leave_out
    notes = [f"left out (box.leave_out): {', '.join(left_out)}"] if left_out else []
    return fit_report(design, notes=notes)

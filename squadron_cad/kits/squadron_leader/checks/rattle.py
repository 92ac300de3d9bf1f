"""Rattle: how far each stowed unit can move in the closed box (stowing.travel measures
it on the layout's exact geometry, no rendering); a unit that can move more than
`box.max_rattle_mm` any way rattles.
"""

from __future__ import annotations

from squadron_cad.checks.findings import Finding
from squadron_cad.checks.travel import rattle_finding
from squadron_cad.fit.layout import Layout
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing.travel import measure


def findings(p: SquadronLeaderParams, layout: Layout) -> list[Finding]:
    """One finding per stowed unit: its travel up and each way sideways."""
    limit = p.box.max_rattle_mm
    return [rattle_finding(travel, limit, "box.max_rattle_mm") for travel in measure(p, layout)]

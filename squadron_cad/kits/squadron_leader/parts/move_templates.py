"""The three single move templates: straight (cost 1), bank (2) and turn (3).

They differ only in their path (geometry/move_paths.py), so one builder serves all three.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import difference, linear_extrude
from solid2.core.object_base import OpenSCADObject

from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign


def build_single(p: SquadronLeaderParams, kind: str) -> OpenSCADObject:
    """A template for one move: notches at both ends, cost chevrons cut through."""
    path = move_paths.path(p, kind)
    shape = difference()(
        path.outline(),
        move_paths.start_notch(p),
        move_paths.end_notch(p, path),
        *move_paths.chevrons(p, path, path.length / 2),
    )
    return linear_extrude(height=p.templates.thickness_mm)(shape)


def build_straight(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_single(p, "straight")


def build_bank(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_single(p, "bank")


def build_turn(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    return build_single(p, "turn")

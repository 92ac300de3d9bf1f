"""The altitude token: an octagon ring with 4 pegs on top and the 8 shared sockets below."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import difference, linear_extrude, rotate, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.marks import flush_mark, player_mark
from squadron_cad.geometry.shapes import EPSILON_MM, chamfered_prism, octagon, tapered_peg
from squadron_cad.kits.squadron_leader.mark_room import token_mark_mm
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign
from squadron_cad.kits.squadron_leader.parts.plane_token import sockets

# Pegs on the diagonals; sockets every 45 degrees, so any 45 degree turn still seats.
PEG_ANGLES_DEG = (45, 135, 225, 315)


def one_peg(p: SquadronLeaderParams) -> OpenSCADObject:
    """One peg standing on z = 0 at the origin (the tolerance coupons use it too)."""
    s = p.stacking
    return tapered_peg(s.peg_diameter_mm, s.peg_tip_diameter_mm, s.peg_height_mm, s.facets)


def pegs(p: SquadronLeaderParams) -> list[OpenSCADObject]:
    return [
        rotate(angle)(translate([p.peg_circle_radius_mm, 0, p.token.height_mm])(one_peg(p)))
        for angle in PEG_ANGLES_DEG
    ]


def mark_centre(p: SquadronLeaderParams) -> tuple[Number, Number]:
    """The player's mark: on the ring's top at the back (-x), midway between hole and rim,
    between two pegs; the top stays flat, so the token above still seats."""
    across = p.token.across_flats_mm
    return -(across + across * p.altitude.hole_scale) / 4, 0


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    """The representative token (player 1's): what the kit's checks measure."""
    return build_for(design, 0)


def build_for(design: SquadronLeaderDesign, player: int) -> OpenSCADObject:
    """Player `player`'s altitude token (0-based), their mark flush in its top."""
    p = design.params
    token = p.token
    x, y = mark_centre(p)
    recess = translate([x, y, token.height_mm])(
        flush_mark(player_mark(p, player), token_mark_mm(p), p.marks.frame_mm, p.text.depth_mm)
    )
    body = chamfered_prism(token.height_mm, token.bottom_chamfer_mm, octagon(token.width_mm))
    hole = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=token.height_mm + 2 * EPSILON_MM)(
            octagon(token.width_mm * p.altitude.hole_scale)
        )
    )
    return difference()(union()(body, *pegs(p)), hole, *sockets(p), recess)

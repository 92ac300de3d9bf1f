"""The plane token: octagon, raised silhouette, firing arc and forward guides, 8 sockets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import (
    difference,
    hull,
    linear_extrude,
    offset,
    polygon,
    rotate,
    scale,
    translate,
    union,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.marks import mark_2d, player_mark
from squadron_cad.geometry.shapes import (
    EPSILON_MM,
    chamfered_prism,
    octagon,
    octagon_across_flats,
    socket,
)
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry.icons import PLANE_SILHOUETTE
from squadron_cad.kits.squadron_leader.mark_room import plane_mark_mm
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

FIRING_ARC_HALF_ANGLE_DEG = 45  # the rules' 90 degree V, symmetric about forward
SOCKET_ANGLES_DEG = tuple(range(0, 360, 45))
SLIVER_MARGIN_MM = 0.05  # slivers up to this much over the thinnest wall go too


def silhouette(p: SquadronLeaderParams) -> OpenSCADObject:
    """Our own plane outline, scaled to the silhouette length and span."""
    outline = union()(*(polygon([list(pt) for pt in part]) for part in PLANE_SILHOUETTE))
    return scale([p.plane.silhouette_length_mm, p.plane.silhouette_span_mm])(outline)


def _band(start_x: Number, end_x: Number, width: Number) -> OpenSCADObject:
    """A groove-wide band along +x from start_x to end_x."""
    return polygon(
        [[start_x, -width / 2], [end_x, -width / 2], [end_x, width / 2], [start_x, width / 2]]
    )


def guides(p: SquadronLeaderParams) -> OpenSCADObject:
    """The two forward guides in 2D, from guide_start_mm out past the front flat."""
    reach = p.token.radius_mm + 1  # run out past the edge so each groove opens at the rim
    return union()(
        *(
            translate([0, side * p.guide_offset_mm])(
                _band(p.plane.guide_start_mm, reach, p.plane.groove_width_mm)
            )
            for side in (1, -1)
        )
    )


def raised_silhouette(p: SquadronLeaderParams) -> OpenSCADObject:
    """The silhouette as it stands on the token: parted where the forward guides run, so
    they show over their whole length; slivers the parting leaves (thinner than the
    thinnest wall the checks allow) are dropped, they would not print."""
    half = p.checks.min_wall_mm / 2 + SLIVER_MARGIN_MM
    return offset(delta=half)(offset(delta=-half)(difference()(silhouette(p), guides(p))))


def marks(p: SquadronLeaderParams) -> OpenSCADObject:
    """Firing-arc lines, kept off the raised silhouette, and the forward guides in full."""
    reach = p.token.radius_mm + 1
    arc_lines = [
        rotate(angle)(_band(0, reach, p.plane.groove_width_mm))
        for angle in (FIRING_ARC_HALF_ANGLE_DEG, -FIRING_ARC_HALF_ANGLE_DEG)
    ]
    return union()(difference()(union()(*arc_lines), silhouette(p)), guides(p))


def underside_hollow(p: SquadronLeaderParams) -> OpenSCADObject:
    """A hidden recess inside the socket ring; 45 degree walls so its roof needs no bridge."""
    socket_reach = p.stacking.socket_diameter_mm / 2 + p.stacking.socket_chamfer_mm
    across_flats = 2 * (p.peg_circle_radius_mm - socket_reach - 0.8)
    depth = p.plane.hollow_depth_mm
    return hull()(
        translate([0, 0, -EPSILON_MM])(
            linear_extrude(height=EPSILON_MM)(octagon_across_flats(across_flats))
        ),
        translate([0, 0, depth - EPSILON_MM])(
            linear_extrude(height=EPSILON_MM)(octagon_across_flats(across_flats - 2 * depth))
        ),
    )


def one_socket(p: SquadronLeaderParams) -> OpenSCADObject:
    """One socket cut up from z = 0 at the origin (the tolerance coupons use it too)."""
    s = p.stacking
    return socket(
        s.socket_diameter_mm,
        s.socket_tip_diameter_mm,
        s.socket_depth_mm,
        s.socket_chamfer_mm,
        s.facets,
    )


def sockets(p: SquadronLeaderParams) -> list[OpenSCADObject]:
    """The 8 sockets under every token, on the peg circle, one per 45 degrees."""
    return [
        rotate(angle)(translate([p.peg_circle_radius_mm, 0, 0])(one_socket(p)))
        for angle in SOCKET_ANGLES_DEG
    ]


def mark_centre(p: SquadronLeaderParams) -> tuple[Number, Number]:
    """Where the player's mark stands on the token's top."""
    x, y = constants.PLANE_MARK_AT_WIDTHS
    return p.token.width_mm * x, p.token.width_mm * y


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    """The representative token (player 1's): what the kit's checks measure."""
    return build_for(design, 0)


def build_for(design: SquadronLeaderDesign, player: int) -> OpenSCADObject:
    """Player `player`'s token (0-based): their mark raised as high as the silhouette."""
    p = design.params
    token = p.token
    body = chamfered_prism(token.height_mm, token.bottom_chamfer_mm, octagon(token.width_mm))
    x, y = mark_centre(p)
    mark = translate([x, y])(mark_2d(player_mark(p, player), plane_mark_mm(p)))
    raised = translate([0, 0, token.height_mm - EPSILON_MM])(
        linear_extrude(height=p.plane.silhouette_height_mm + EPSILON_MM)(raised_silhouette(p), mark)
    )
    grooves = translate([0, 0, token.height_mm - p.plane.groove_depth_mm])(
        linear_extrude(height=p.plane.groove_depth_mm + EPSILON_MM)(marks(p))
    )
    cuts = [grooves, *sockets(p)]
    if p.plane.hollow_depth_mm > 0:
        cuts.append(underside_hollow(p))
    return difference()(union()(body, raised), *cuts)

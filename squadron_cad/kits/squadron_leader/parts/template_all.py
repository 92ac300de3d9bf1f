"""The all-in-one template: straight, bank and turn fused on one start edge.

It curves left; turned over it curves right, so its guide grooves and cost chevrons are
engraved on both faces. Grooves mark the curved edges that lie inside the fused shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solid2 import difference, intersection, linear_extrude, offset, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, arc_line
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

CHEVRON_END_MARGIN_MM = 1.5  # keep the chevrons clear of the end notch
GROOVE_EDGE_WALL_MM = 1.0  # grooves stop this far from an edge: no unprintable sliver


def fused_outline(p: SquadronLeaderParams) -> OpenSCADObject:
    paths = move_paths.paths(p).values()
    return difference()(
        union()(*(path.outline() for path in paths)),
        move_paths.start_notch(p),
        *(move_paths.end_notch(p, path) for path in paths),
    )


def edge_grooves(p: SquadronLeaderParams) -> OpenSCADObject:
    """The curved paths' edges, kept one groove width inside the fused outline."""
    width = p.templates.guide_groove_width_mm
    lines = []
    for path in move_paths.paths(p).values():
        if not path.is_curved:
            continue
        for radius in (path.inner_radius, path.inner_radius + path.width):
            lines.append(
                translate([0, path.centre_radius])(
                    arc_line(radius, width, -90, -90 + path.turn_deg)
                )
            )
    return intersection()(union()(*lines), offset(delta=-GROOVE_EDGE_WALL_MM)(fused_outline(p)))


def chevron_centre(p: SquadronLeaderParams, path: move_paths.MovePath) -> Number:
    """How far along a path its chevrons centre: just before the end notch, where the
    fused paths are apart (the paper edition places them here too)."""
    t = p.templates
    last_centre = (
        path.length - move_paths.notch_reach(p) - CHEVRON_END_MARGIN_MM - t.chevron_length_mm / 2
    )
    return last_centre - (path.cost - 1) * t.chevron_pitch_mm / 2


def end_chevrons(p: SquadronLeaderParams) -> list[OpenSCADObject]:
    """Each path's cost chevrons just before its end notch, where the paths are apart."""
    marks = []
    for path in move_paths.paths(p).values():
        marks += move_paths.chevrons(p, path, chevron_centre(p, path))
    return marks


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    t = p.templates
    marks = linear_extrude(height=t.guide_groove_depth_mm + EPSILON_MM)(
        union()(edge_grooves(p), *end_chevrons(p))
    )
    return difference()(
        linear_extrude(height=t.thickness_mm)(fused_outline(p)),
        translate([0, 0, t.thickness_mm - t.guide_groove_depth_mm])(marks),
        translate([0, 0, -EPSILON_MM])(marks),
    )

"""The three moves as paths: where a template lies, where its notches and chevrons go.

A template starts with its start edge on x = 0, centred on y = 0, travelling along +x; a
curved one turns left about a centre on the +y axis. A plane's centre sits a notch offset
beyond each end, along the path's tangent there, so the move is exact by construction:
the end notch is the arc end plus the offset along the tangent, not an approximation.
"""

from __future__ import annotations

from dataclasses import dataclass

from solid2 import offset, rotate, square, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number, ScadNum, cos_deg, degrees, radians, sin_deg
from squadron_cad.geometry.shapes import chevron, octagon, ring_segment
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams


@dataclass(frozen=True)
class Pose:
    x: Number
    y: Number
    heading_deg: Number

    def place(self, shape: OpenSCADObject) -> OpenSCADObject:
        if not isinstance(self.heading_deg, ScadNum) and self.heading_deg == 0:
            return translate([self.x, self.y])(shape)
        return translate([self.x, self.y])(rotate(self.heading_deg)(shape))


@dataclass(frozen=True)
class MovePath:
    kind: str
    width: Number
    turn_deg: Number  # 0 for straight
    inner_radius: Number  # 0 for straight
    straight_length: Number  # used when straight

    @property
    def cost(self) -> int:
        return constants.MOVE_COSTS[self.kind]

    @property
    def is_curved(self) -> bool:
        return self.kind != "straight"

    @property
    def centre_radius(self) -> Number:
        return self.inner_radius + self.width / 2

    @property
    def length(self) -> Number:
        """Length of the centre line."""
        if not self.is_curved:
            return self.straight_length
        return self.centre_radius * radians(self.turn_deg)

    def pose_at(self, distance: Number) -> Pose:
        """The centre line point `distance` from the start, with its heading."""
        if not self.is_curved:
            return Pose(distance, 0, 0)
        angle = degrees(distance / self.centre_radius)
        radius = self.centre_radius
        return Pose(radius * sin_deg(angle), radius - radius * cos_deg(angle), angle)

    @property
    def end(self) -> Pose:
        if not self.is_curved:
            return Pose(self.straight_length, 0, 0)
        radius = self.centre_radius
        angle = self.turn_deg
        return Pose(radius * sin_deg(angle), radius - radius * cos_deg(angle), angle)

    def beyond_end(self, offset_mm: Number) -> Pose:
        end = self.end
        return Pose(
            end.x + offset_mm * cos_deg(end.heading_deg),
            end.y + offset_mm * sin_deg(end.heading_deg),
            end.heading_deg,
        )

    def outline(self) -> OpenSCADObject:
        if not self.is_curved:
            return translate([0, -self.width / 2])(square([self.straight_length, self.width]))
        return translate([0, self.centre_radius])(
            ring_segment(
                self.inner_radius, self.inner_radius + self.width, -90, -90 + self.turn_deg
            )
        )


def path(p: SquadronLeaderParams, kind: str) -> MovePath:
    """One move's path; reads only the parameters that move uses (so a straight template's
    source does not change with the bank angle)."""
    width = p.token.width_mm
    if kind == "straight":
        return MovePath("straight", width, 0, 0, p.template_length_mm)
    if kind == "bank":
        return MovePath("bank", width, p.templates.bank_angle_deg, p.bank_inner_radius_mm, 0)
    if kind == "turn":
        return MovePath("turn", width, p.templates.turn_angle_deg, p.turn_inner_radius_mm, 0)
    raise ValueError(f"no move called {kind!r}")


MOVES = ("straight", "bank", "turn")


def paths(p: SquadronLeaderParams) -> dict[str, MovePath]:
    return {kind: path(p, kind) for kind in MOVES}


def notch(p: SquadronLeaderParams) -> OpenSCADObject:
    """The token's own octagon, grown by the notch clearance, centred on the origin."""
    return offset(delta=p.templates.notch_clearance_mm)(octagon(p.token.width_mm))


def start_notch(p: SquadronLeaderParams) -> OpenSCADObject:
    return Pose(-p.notch_offset_mm, 0, 0).place(notch(p))


def end_notch(p: SquadronLeaderParams, path: MovePath) -> OpenSCADObject:
    return path.beyond_end(p.notch_offset_mm).place(notch(p))


def notch_reach(p: SquadronLeaderParams) -> Number:
    """How far a notch eats into the template from its end, along the path."""
    return p.token.across_flats_mm / 2 + p.templates.notch_clearance_mm - p.notch_offset_mm


def chevron_poses(p: SquadronLeaderParams, path: MovePath, centre_distance: Number) -> list[Pose]:
    """Where the `cost` chevrons sit, pointing along the travel, centred `centre_distance`
    along the path (the 3D templates and the paper edition both place them here)."""
    pitch = p.templates.chevron_pitch_mm
    first = centre_distance - (path.cost - 1) * pitch / 2
    return [path.pose_at(first + i * pitch) for i in range(path.cost)]


def chevrons(
    p: SquadronLeaderParams, path: MovePath, centre_distance: Number
) -> list[OpenSCADObject]:
    """`cost` chevrons pointing along the travel, centred `centre_distance` along the path."""
    t = p.templates
    mark = chevron(t.chevron_width_mm, t.chevron_length_mm, t.chevron_stroke_mm)
    return [pose.place(mark) for pose in chevron_poses(p, path, centre_distance)]

"""The rules' invariants, measured on the rendered meshes.

Measured values come only from the meshes: notch octagons fitted to template sections,
grooves found in a section of the plane token, ruler marks and joints from its sections,
stacks from booleans of placed tokens. The parameters and geometry/move_paths.py give the
expected values only (and say roughly where to look for a notch).

Each invariant is `{name, expected, measured, tolerance, ok}`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import trimesh
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.polygon import orient

from squadron_cad.checks import meshgeo
from squadron_cad.components.invariants import Invariant, invariant
from squadron_cad.components.ruler_joint.measure import (
    RULER_STRETCH_MAX_MM,
    body_end_x,
    measure_joint,
)
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.checks.clearances import StackMeasure
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

POSITION_TOL_MM = 0.05  # notch centres, lengths: STL float precision is far below this
ANGLE_TOL_DEG = 0.1
FLAT_MIN_MM = 0.5  # outline segments shorter than this are facets or chips, not flats
FLAT_SNAP_DEG = 3.0  # a flat's normal lies this close to a multiple of 45 degrees
WINDOW_MM = 1.5  # how far a notch flat may lie from where the rules put it and still count
GROOVE_EDGE_MIN_MM = 1.0  # groove walls are long; silhouette chips are short
GROOVE_MAX_MM = 3.0  # walls farther apart than this are not one groove
KINDS = ("straight", "bank", "turn")

# ---- octagon fitting -------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    start: np.ndarray
    end: np.ndarray

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.end - self.start))

    @property
    def middle(self) -> np.ndarray:
        return (self.start + self.end) / 2

    @property
    def normal(self) -> np.ndarray:
        """Unit normal pointing into the material (outlines run with material on the left)."""
        d = (self.end - self.start) / max(self.length, 1e-12)
        return np.array([-d[1], d[0]])


def outline_segments(section: MultiPolygon) -> list[Segment]:
    """Every edge of every outline, oriented so the material lies on its left."""
    segments = []
    for polygon in meshgeo.polygons(section):
        ringed = orient(polygon, 1.0)
        for ring in (ringed.exterior, *ringed.interiors):
            points = np.asarray(ring.coords)[:, :2]
            segments += [Segment(a, b) for a, b in itertools.pairwise(points)]
    return [s for s in segments if s.length >= FLAT_MIN_MM]


@dataclass(frozen=True)
class OctagonFit:
    x: float
    y: float
    across_flats_mm: float
    heading_deg: float  # the flat normal the material lies towards, snapped to the octagon
    residual_mm: float
    flats: int


def _angle(vector: np.ndarray) -> float:
    return math.degrees(math.atan2(vector[1], vector[0]))


def _on_octagon_flat(segment: Segment, centre: np.ndarray, half: float, heading: float) -> bool:
    """Does this edge lie on a flat of the octagon the rules expect here (roughly)?"""
    relative = meshgeo.wrap_deg(_angle(segment.normal) - heading)
    if abs(relative - 45 * round(relative / 45)) > FLAT_SNAP_DEG:
        return False
    offset = float(segment.normal @ (segment.middle - centre))
    towards = segment.middle - centre
    along = abs(float(segment.normal[0] * towards[1] - segment.normal[1] * towards[0]))
    side = 2 * half * math.tan(math.radians(22.5))
    return abs(offset - half) < WINDOW_MM and along < side / 2 + WINDOW_MM


def fit_octagon(segments: list[Segment]) -> OctagonFit | None:
    """Least squares centre and half width: n . c + h = n . p for every flat edge."""
    if len({round(_angle(s.normal) / 45) % 8 for s in segments}) < 3:
        return None  # fewer than three directions cannot fix a centre and a size
    weights = np.sqrt([s.length for s in segments])
    rows = np.array([[*s.normal, 1.0] for s in segments]) * weights[:, None]
    rhs = np.array([s.normal @ s.middle for s in segments]) * weights
    (cx, cy, half), *_ = np.linalg.lstsq(rows, rhs, rcond=None)
    centre = np.array([cx, cy])
    residuals = [s.normal @ (p - centre) - half for s in segments for p in (s.start, s.end)]
    lengths = [s.length for s in segments]
    towards = meshgeo.circular_mean_deg([_angle(s.normal) for s in segments], lengths)
    return OctagonFit(
        float(cx),
        float(cy),
        float(2 * half),
        _snap_heading(segments, towards),
        float(np.sqrt(np.mean(np.square(residuals)))),
        len(segments),
    )


def _snap_heading(segments: list[Segment], towards: float) -> float:
    """The flats' precise orientation (mod 45), turned to the flat nearest `towards`."""
    phase = (
        meshgeo.circular_mean_deg(
            [(_angle(s.normal) % 45) * 8 for s in segments], [s.length for s in segments]
        )
        / 8
    )
    steps = round((towards - phase) / 45)
    return meshgeo.wrap_deg(phase + 45 * steps)


def fit_notch(section: MultiPolygon, expected: move_paths.Pose, across: float) -> OctagonFit | None:
    """The notch octagon near an expected pose, fitted to the template's outline."""
    centre = np.array([float(expected.x), float(expected.y)])
    heading = float(expected.heading_deg)
    chosen = [
        s for s in outline_segments(section) if _on_octagon_flat(s, centre, across / 2, heading)
    ]
    return fit_octagon(chosen)


def fit_footprint(section: MultiPolygon) -> OctagonFit | None:
    """The token's own octagon: every edge of its convex outline is a flat."""
    hull = section.convex_hull
    if not isinstance(hull, Polygon):
        return None
    segments = outline_segments(MultiPolygon([hull]))
    # Normals point into the material, i.e. towards the centre: flip them to face out.
    return fit_octagon([Segment(s.end, s.start) for s in segments])


# ---- templates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateFit:
    start: OctagonFit | None
    ends: dict[str, OctagonFit | None]
    holes: int  # through cuts: the cost chevrons


def _mid_section(mesh: trimesh.Trimesh) -> MultiPolygon:
    return meshgeo.section(mesh, float(mesh.bounds[0][2] + mesh.extents[2] / 2))


def measure_template(
    mesh: trimesh.Trimesh, params: SquadronLeaderParams, kinds: Iterable[str]
) -> TemplateFit:
    section = _mid_section(mesh)
    across = float(params.token.across_flats_mm) + 2 * params.templates.notch_clearance_mm
    offset = float(params.notch_offset_mm)
    start = move_paths.Pose(-offset, 0.0, 0.0)
    paths = move_paths.paths(params)
    ends = {}
    for kind in kinds:
        end = paths[kind].beyond_end(offset)
        # At the end the material lies behind the token: look for flats facing back.
        back = move_paths.Pose(end.x, end.y, float(end.heading_deg) + 180)
        ends[kind] = fit_notch(section, back, across)
    holes = sum(len(p.interiors) for p in meshgeo.polygons(section))
    return TemplateFit(fit_notch(section, start, across), ends, holes)


def _travel(start: OctagonFit, end: OctagonFit) -> tuple[float, float]:
    distance = math.hypot(end.x - start.x, end.y - start.y)
    turn = meshgeo.wrap_deg(end.heading_deg + 180 - start.heading_deg)
    return distance, turn


def move_invariants(params: SquadronLeaderParams, fits: dict[str, TemplateFit]) -> list[Invariant]:
    """Start notch to end notch: the distance, the heading change, the exact end pose."""
    offset = float(params.notch_offset_mm)
    paths = move_paths.paths(params)
    found: list[Invariant] = []
    for kind, fit in fits.items():
        end, start = fit.ends.get(kind), fit.start
        path = paths[kind]
        goal = path.beyond_end(offset)
        expected_distance = math.hypot(float(goal.x) + offset, float(goal.y))
        if start is None or end is None:
            found.append(invariant(f"{kind}: notches found", 1, 0, 0))
            continue
        distance, turn = _travel(start, end)
        miss = math.hypot(end.x - float(goal.x), end.y - float(goal.y))
        found += [
            invariant(f"{kind}: plane travels (mm)", expected_distance, distance, POSITION_TOL_MM),
            invariant(f"{kind}: plane turns (deg)", float(goal.heading_deg), turn, ANGLE_TOL_DEG),
            invariant(f"{kind}: end notch off the exact pose (mm)", 0.0, miss, POSITION_TOL_MM),
            invariant(f"{kind}: cost chevrons", path.cost, fit.holes, 0),
        ]
    return found


def all_in_one_invariants(fits: dict[str, TemplateFit], fused: TemplateFit) -> list[Invariant]:
    """The fused template's start and three ends sit where the separate templates' do."""
    found: list[Invariant] = []
    for kind, single in fits.items():
        mine, theirs = fused.ends.get(kind), single.ends.get(kind)
        if mine is None or theirs is None or fused.start is None or single.start is None:
            found.append(invariant(f"all-in-one {kind} path: notches found", 1, 0, 0))
            continue
        gap = math.hypot(mine.x - theirs.x, mine.y - theirs.y)
        gap = max(gap, math.hypot(fused.start.x - single.start.x, fused.start.y - single.start.y))
        turn = abs(meshgeo.wrap_deg(mine.heading_deg - theirs.heading_deg))
        found += [
            invariant(f"all-in-one {kind} path: notches match the template (mm)", 0.0, gap,
                      POSITION_TOL_MM),
            invariant(f"all-in-one {kind} path: heading matches (deg)", 0.0, turn, ANGLE_TOL_DEG),
        ]  # fmt: skip
    return found


def footprint_invariants(
    params: SquadronLeaderParams, plane: trimesh.Trimesh, straight: TemplateFit | None
) -> list[Invariant]:
    """The plane token's octagon is the notch: same size (less the clearance), same turn."""
    body_z = meshgeo.top_face_z(plane) - params.plane.groove_depth_mm - 0.2
    token = fit_footprint(meshgeo.section(plane, body_z))
    notch = straight.start if straight else None
    if token is None or notch is None:
        return [invariant("plane footprint equals the notch", 1, 0, 0)]
    clearance = 2 * params.templates.notch_clearance_mm
    twist = meshgeo.wrap_deg(token.heading_deg - notch.heading_deg)
    twist = abs(twist - 45 * round(twist / 45))  # an octagon repeats every 45 degrees
    return [
        invariant("plane token across flats (mm)", float(params.token.across_flats_mm),
                  token.across_flats_mm, POSITION_TOL_MM),
        invariant("notch across flats minus clearance equals the token's (mm)", 0.0,
                  notch.across_flats_mm - clearance - token.across_flats_mm, POSITION_TOL_MM),
        invariant("notch turned like the token's flats (deg)", 0.0, twist, ANGLE_TOL_DEG),
    ]  # fmt: skip


# ---- plane token grooves -------------------------------------------------------------------


@dataclass(frozen=True)
class Groove:
    angle_deg: float  # direction, mod 180
    offset_mm: float  # signed distance of its centre line from the token centre
    width_mm: float


def groove_cut(plane: trimesh.Trimesh, depth: float) -> MultiPolygon:
    """What the grooves cut from the token, halfway down them: only a groove open to the
    top shows here (where the raised silhouette covers a line, the token is solid)."""
    top = meshgeo.top_face_z(plane)
    body = meshgeo.section(plane, top - depth - 0.2).convex_hull
    return meshgeo.as_multi(body.difference(meshgeo.section(plane, top - depth / 2)))


def groove_lines(plane: trimesh.Trimesh, depth: float) -> list[Groove]:
    """Grooves cut into the token's top face, as centre lines from their paired walls."""
    cut = groove_cut(plane, depth)
    walls = [s for s in outline_segments(meshgeo.as_multi(cut)) if s.length >= GROOVE_EDGE_MIN_MM]
    grooves = []
    for group in _by_direction(walls):
        grooves += _paired(group)
    return grooves


def _by_direction(walls: list[Segment]) -> list[list[Segment]]:
    groups: list[list[Segment]] = []
    for wall in walls:
        angle = _angle(wall.normal) % 180
        for group in groups:
            if abs(meshgeo.wrap_deg(2 * ((_angle(group[0].normal) % 180) - angle))) < 2:
                group.append(wall)
                break
        else:
            groups.append([wall])
    return groups


def _paired(walls: list[Segment]) -> list[Groove]:
    """A groove's two walls face each other: normals (into the groove) point opposite ways.

    Along the reference normal, the near wall sits at offset a and the far one at b > a.
    """
    reference = walls[0].normal
    angle = _angle(np.array([reference[1], -reference[0]])) % 180
    near = {round(float(reference @ w.middle), 3) for w in walls if w.normal @ reference > 0}
    far = [float(reference @ w.middle) for w in walls if w.normal @ reference < 0]
    grooves = []
    for a in sorted(near):
        partners = [b for b in far if 0 < b - a < GROOVE_MAX_MM]
        if partners:
            b = min(partners)
            grooves.append(Groove(angle, (a + b) / 2, b - a))
    return grooves


def groove_invariants(
    params: SquadronLeaderParams, plane: trimesh.Trimesh, ruler: trimesh.Trimesh | None
) -> list[Invariant]:
    grooves = groove_lines(plane, params.plane.groove_depth_mm)
    open_cut = groove_cut(plane, params.plane.groove_depth_mm)
    through_centre = [g for g in grooves if abs(g.offset_mm) < 0.5 and abs(_tilt(g)) > 1]
    guides = [g for g in grooves if abs(_tilt(g)) <= 1 and abs(g.offset_mm) >= 0.5]
    found: list[Invariant] = []
    if len(through_centre) == 2:
        a, b = sorted(_tilt(g) for g in through_centre)
        found += [
            invariant("firing arc lines apart (deg)", 2 * 45.0, b - a, ANGLE_TOL_DEG),
            invariant("firing arc symmetric about forward (deg)", 0.0, (a + b) / 2,
                      ANGLE_TOL_DEG),
        ]  # fmt: skip
    else:
        found.append(invariant("firing arc lines found", 2, len(through_centre), 0))
    if len(guides) == 2:
        spread = abs(guides[0].offset_mm - guides[1].offset_mm)
        width = float(ruler.extents[1]) if ruler is not None else float(params.ruler_width_mm)
        found += [
            invariant("forward guides parallel to forward (deg)", 0.0,
                      max(abs(_tilt(g)) for g in guides), ANGLE_TOL_DEG),
            invariant("forward guides apart = ruler width (mm)", width, spread,
                      POSITION_TOL_MM),
        ]  # fmt: skip
        found += guide_length_invariants(params, open_cut, guides)
    else:
        found.append(invariant("forward guides found", 2, len(guides), 0))
    return found


def guide_length_invariants(
    params: SquadronLeaderParams, cut: MultiPolygon, guides: list[Groove]
) -> list[Invariant]:
    """Where each forward guide starts and how much of it shows: the length of its centre
    line inside the open groove, from its start to the front flat."""
    centre = (guides[0].offset_mm + guides[1].offset_mm) / 2
    half = abs(guides[0].offset_mm - guides[1].offset_mm) / 2
    starts, visible = [], []
    for y in (centre - half, centre + half):
        line = LineString([(-1e3, y), (1e3, y)]).intersection(cut)
        if line.is_empty:
            starts.append(math.nan)
            visible.append(0.0)
            continue
        starts.append(float(line.bounds[0]))
        visible.append(float(line.length))
    start = params.plane.guide_start_mm
    full = float(params.token.across_flats_mm) / 2 - start
    return [
        invariant("forward guides start ahead of the centre (mm)", start, max(starts),
                  POSITION_TOL_MM),
        invariant("forward guides visible, start to front flat (mm)", full, min(visible),
                  POSITION_TOL_MM),
    ]  # fmt: skip


def _tilt(groove: Groove) -> float:
    """Direction relative to forward (+x), in (-90, 90]."""
    tilt = groove.angle_deg % 180
    return tilt - 180 if tilt > 90 else tilt


# ---- ruler ---------------------------------------------------------------------------------


def mark_positions(ruler: trimesh.Trimesh, depth: float) -> list[float]:
    """Centres of the marks across the ruler: where its top section is cut in two."""
    top = meshgeo.top_face_z(ruler)
    pieces = sorted(meshgeo.polygons(meshgeo.section(ruler, top - depth / 2)),
                    key=lambda p: p.bounds[0])  # fmt: skip
    return [(a.bounds[2] + b.bounds[0]) / 2 for a, b in itertools.pairwise(pieces)]


def ruler_invariants(
    params: SquadronLeaderParams,
    meshes: dict[str, trimesh.Trimesh],
    straight: trimesh.Trimesh | None,
) -> list[Invariant]:
    found: list[Invariant] = []
    template_length = float(straight.extents[0]) if straight is not None else math.nan
    expected = float(params.ruler_length_mm)
    one = meshes.get("range_ruler")
    if one is not None:
        length = float(one.extents[0])
        found.append(invariant("ruler = 3 straight template lengths (mm)",
                               constants.RULER_LENGTH_TEMPLATES * template_length, length,
                               POSITION_TOL_MM))  # fmt: skip
        marks = mark_positions(one, params.ruler.mark_depth_mm)
        for index, name in enumerate(("a third", "two thirds")):
            at = marks[index] if len(marks) == 2 else math.nan
            found.append(
                invariant(f"range mark {index + 1} at {name} of the ruler (mm)",
                          expected * (index + 1) / 3, at, POSITION_TOL_MM)
            )  # fmt: skip
    sections = [f"range_ruler_{i}" for i in (1, 2, 3)]
    if all(s in meshes for s in sections):
        found.append(invariant("three-part ruler assembled, pulled (mm)", expected,
                               assembled_length([meshes[s] for s in sections]),
                               RULER_STRETCH_MAX_MM))  # fmt: skip
    return found


def assembled_length(sections: list[trimesh.Trimesh]) -> float:
    """The first's start to the last's far end with every joint pulled as far as it goes:
    the sections' bodies plus each joint's pull play, measured by moving one section
    along the ruler until it collides with the other."""
    lengths = [body_end_x(s, np.max) - body_end_x(s, np.min) for s in sections]
    pairs = itertools.pairwise(sections)
    pulls = [measure_joint(a, b, ("pull",)).play_mm["pull"] for a, b in pairs]
    return float(sum(lengths) + sum(pulls))


# ---- stacks --------------------------------------------------------------------------------


def stack_invariants(
    params: SquadronLeaderParams, plane: trimesh.Trimesh, stacks: list[StackMeasure]
) -> list[Invariant]:
    by_upper = {s.upper: s for s in stacks}
    altitude, top = by_upper.get("altitude_token"), by_upper.get("plane_token")
    if altitude is None or top is None:
        return []
    tokens = constants.ALTITUDE_TOKENS_PER_STACK
    height = (tokens - 1) * altitude.pitch_mm + top.pitch_mm + float(plane.extents[2])
    turns = sum(altitude.seats.values()) + sum(top.seats.values())
    return [
        invariant("plane on 4 altitude tokens stands (mm)", float(params.stack_height_mm),
                  height, POSITION_TOL_MM),
        invariant("45 deg turns that seat (altitude and plane on altitude)", 16, turns, 0),
    ]  # fmt: skip


# ---- all -------------------------------------------------------------------------------------


def measure_templates(
    params: SquadronLeaderParams, meshes: dict[str, trimesh.Trimesh]
) -> tuple[dict[str, TemplateFit], TemplateFit | None]:
    singles = {
        kind: measure_template(meshes[f"template_{kind}"], params, (kind,))
        for kind in KINDS
        if f"template_{kind}" in meshes
    }
    fused = meshes.get("template_all")
    return singles, measure_template(fused, params, KINDS) if fused is not None else None


def all_invariants(
    params: SquadronLeaderParams, meshes: dict[str, trimesh.Trimesh], stacks: list[StackMeasure]
) -> list[Invariant]:
    singles, fused = measure_templates(params, meshes)
    found = move_invariants(params, singles)
    if fused is not None:
        found += all_in_one_invariants(singles, fused)
    plane = meshes.get("plane_token")
    if plane is not None:
        found += footprint_invariants(params, plane, singles.get("straight"))
        ruler = meshes.get("range_ruler", meshes.get("range_ruler_1"))
        found += groove_invariants(params, plane, ruler)
        found += stack_invariants(params, plane, stacks)
    found += ruler_invariants(params, meshes, meshes.get("template_straight"))
    return found

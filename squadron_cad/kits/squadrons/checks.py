"""The kit's checks: clearances between parts that meet, and the rules' invariants, both
measured on the meshes (the parameters give only what is expected).

- ruler: the four sections joined shoulder to shoulder (Squadron Leader's joint measure):
  every inch tick at a multiple of 25.4 mm, the whole 16 inches, the joint clearance;
- movement gauge: its ticks and its 8 inches; each word centred on the tick it names;
- objectives: the diameter (the rules' 40 mm token), the Destroy token's two notches;
- ship bases: the four zone boundaries 90 degrees apart, the Fixed line on the forward axis;
  ship 6 and ship 9 told apart when one is turned 180 degrees (the bar under them);
- pivot guide: the base pivots 45 degrees either way about its centre without touching it;
  the gap at the base's front corners; the engraved rays at 45 degrees and the centre mark
  on the forward axis, through the base's centre;
- tracker: Squadron Leader's dial measure: a clip clicks in at every value 0..6 of both rows,
  and at every round of the mission tracker;
- boxes: the kit's box and a ship box, each lid closed in its container: the lid's gap, that
  it stays on, nothing rattling more than box.max_rattle_mm (the engine's tray checks).
(Every piece in its box pocket is the engine's fit proof, run by the build for every box of
the kit: checks.fits.stowed_findings.)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import trimesh
from shapely import affinity
from shapely.geometry import MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from squadron_cad.checks import meshgeo
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.fits import FitLimits
from squadron_cad.checks.tin import box_in_tin_findings
from squadron_cad.checks.tray_play import tray_findings
from squadron_cad.components.invariants import invariant, unmeasured, valid_solids
from squadron_cad.components.ruler_joint.measure import joint_findings, remembered_joint
from squadron_cad.components.stat_card.measure import DialMeasure, dial_findings, remembered_dial
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.constants import OBJECTIVE_PARTS, card_part, ruler_part
from squadron_cad.kits.squadrons.parts import tracker

TICK_TOL_MM = 0.1  # the tolerance for inch ticks
LENGTH_TOL_MM = 0.1
DIAMETER_TOL_MM = 0.05  # the rim's vertices lie on the circle; STL floats are far finer
ANGLE_TOL_DEG = 0.1
CENTRE_TOL_MM = 0.05

Meshes = Mapping[str, trimesh.Trimesh]


def _top_section(mesh: trimesh.Trimesh, depth: float) -> MultiPolygon:
    """The section half an engraving's depth under the top face."""
    return meshgeo.section(mesh, meshgeo.top_face_z(mesh) - depth / 2)


# ---- ruler and gauge: ticks ------------------------------------------------------------------


# Kept between builds by the meshes (another tin measures the joints no more), and within
# this process by the mesh objects (each check asks again).
_joints = lru_cache(maxsize=8)(remembered_joint)


def ruler_sections(meshes: Meshes) -> list[trimesh.Trimesh] | None:
    names = [ruler_part(k) for k in range(1, constants.RULER_SECTIONS + 1)]
    return [meshes[n] for n in names] if all(n in meshes for n in names) else None


def ruler_outline(sections: list[trimesh.Trimesh], depth: float) -> tuple[MultiPolygon, float]:
    """The sections' top sections laid end to end (joints seated), and the ruler's half width."""
    offset, parts = 0.0, []
    for k, mesh in enumerate(sections):
        if k:
            offset += _joints(sections[k - 1], mesh).offset_mm
        parts.append(affinity.translate(_top_section(mesh, depth), xoff=offset))
    outline = unary_union(parts).buffer(0.005).buffer(-0.005)
    half = float(max(np.abs(sections[0].vertices[:, 1])))
    return meshgeo.as_multi(outline), half


def tick_positions(outline: MultiPolygon, half: float, tick_length: float) -> list[float]:
    """Centres (x) of the notches cut into the +y edge: the inch ticks."""
    x0, _, x1, _ = outline.bounds
    band = box(x0, half - tick_length + 0.5, x1, half - 0.5)
    missing = band.difference(outline)
    return sorted(g.centroid.x for g in meshgeo.polygons(missing) if g.area > 0.05)


def _tick_invariants(
    name: str, outline: MultiPolygon, half: float, tick_length: float, inches: int
) -> list[dict[str, Any]]:
    ticks = tick_positions(outline, half, tick_length)
    expected = [k * constants.INCH_MM for k in range(1, inches)]
    worst = (
        max(abs(a - b) for a, b in zip(ticks, expected, strict=True))
        if len(ticks) == len(expected)
        else math.nan
    )
    length = outline.bounds[2] - outline.bounds[0]
    return [
        invariant(f"{name}: inch ticks found", len(expected), len(ticks), 0),
        invariant(f"{name}: worst tick off its 25.4 mm multiple (mm)", 0, worst, TICK_TOL_MM),
        invariant(
            f"{name}: length (mm, {inches} in)", inches * constants.INCH_MM, length, LENGTH_TOL_MM
        ),
    ]


def ruler_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    p = design.params
    out: list[dict[str, Any]] = []
    sections = ruler_sections(meshes)
    if sections is not None:
        outline, half = ruler_outline(sections, p.ruler.mark_depth_mm)
        out += _tick_invariants("range ruler", outline, half, p.ruler.tick_length_mm,
                                constants.RULER_LENGTH_IN)  # fmt: skip
        gaps = [_joints(a, b).lateral_mm for a, b in itertools.pairwise(sections)]
        out.append(
            invariant("range ruler: joint clearance per side (mm), least of 3",
                      p.ruler.joint_clearance_mm, min(gaps), p.checks.fit_tolerance_mm)
        )  # fmt: skip
    if "movement_gauge" in meshes:
        mesh = meshes["movement_gauge"]
        outline = _top_section(mesh, p.ruler.mark_depth_mm)
        half = float(max(np.abs(mesh.vertices[:, 1])))
        out += _tick_invariants("movement gauge", outline, half, p.gauge.tick_length_mm,
                                constants.GAUGE_LENGTH_IN)  # fmt: skip
        out += _word_invariants(design, mesh)
    return out


WORD_TOL_MM = 0.2  # a word's ink centre off its tick: the strokes' round ends are facets


def gauge_words(
    mesh: trimesh.Trimesh, depth: float, lines: list[tuple[float, float]]
) -> list[Polygon]:
    """The bounding boxes (x0, y0, x1, y1 as polygons) of the words engraved along the
    gauge's foot, a word a line (each line: its band of y), in the lines' order."""
    section = _top_section(mesh, depth)
    x0, _, x1, _ = section.bounds
    found = []
    for low, high in lines:
        cut = box(x0, low, x1, high).difference(section)
        letters = [g for g in meshgeo.polygons(cut) if g.area > 0.01]
        if letters:
            found.append(box(*unary_union(letters).bounds))
    return found


def word_lines(p: Any) -> list[tuple[float, float]]:
    """Each word line's band of y on the gauge, its letters and a little round them."""
    half = p.gauge.word_height_mm / 2
    return [(p.words_line_y(k) - half - 0.3, p.words_line_y(k) + half + 0.3)
            for k in range(len(constants.GAUGE_WORDS))]  # fmt: skip


def _word_invariants(design: Any, mesh: trimesh.Trimesh) -> list[dict[str, Any]]:
    p = design.params
    words = gauge_words(mesh, p.text.depth_mm, word_lines(p))
    ticks = [inch * constants.INCH_MM for inch, _word in constants.GAUGE_WORDS]
    worst = (
        max(abs((w.bounds[0] + w.bounds[2]) / 2 - x) for w, x in zip(words, ticks, strict=True))
        if len(words) == len(ticks)
        else math.nan
    )
    return [
        invariant("movement gauge: words found (ADV/EVA, BOOST +3)", len(ticks), len(words), 0),
        invariant("movement gauge: worst word's centre off its tick (mm; 2 in, 3 in)", 0, worst,
                  WORD_TOL_MM),
    ]  # fmt: skip


# ---- objectives ------------------------------------------------------------------------------


def token_diameter(mesh: trimesh.Trimesh) -> float:
    """Twice the farthest rim point from the token's centre, mid-way up the disc."""
    section = meshgeo.section(mesh, 0.5)
    points = np.concatenate([np.asarray(p.exterior.coords) for p in meshgeo.polygons(section)])
    centre = (points.min(axis=0) + points.max(axis=0)) / 2
    return 2 * float(np.linalg.norm(points - centre, axis=1).max())


def rim_notches(mesh: trimesh.Trimesh, diameter: float) -> int:
    """How many notches bite into the rim: gaps in a thin ring just inside it."""
    section = meshgeo.section(mesh, 0.5)
    centre = section.centroid
    ring = centre.buffer(diameter / 2 - 0.3, 256).difference(centre.buffer(diameter / 2 - 0.6, 256))
    return len(list(meshgeo.polygons(ring.difference(section).buffer(-0.01))))


def objective_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    o = design.params.objective
    out = []
    for name in OBJECTIVE_PARTS:
        if name in meshes:
            out.append(invariant(f"{name}: diameter (mm)", o.diameter_mm,
                                 token_diameter(meshes[name]), DIAMETER_TOL_MM))  # fmt: skip
    if "objective_destroy" in meshes:
        found = rim_notches(meshes["objective_destroy"], o.diameter_mm)
        out.append(invariant("objective_destroy: hit-point notches", constants.DESTROY_HIT_POINTS,
                             found, 0))  # fmt: skip
    return out


# ---- ship bases -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Line:
    angle_deg: float  # direction from the base's centre outward
    offset_mm: float  # distance of the line's axis from the centre


def base_lines(mesh: trimesh.Trimesh, depth: float, min_length: float) -> list[Line]:
    """The long engraved lines of a base: holes in the top section, longer than min_length."""
    section = _top_section(mesh, depth)
    x0, y0, x1, y1 = section.bounds
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    lines = []
    for polygon in meshgeo.polygons(section):
        for ring in polygon.interiors:
            hole = Polygon(ring)
            rect = np.asarray(hole.minimum_rotated_rectangle.exterior.coords)[:4]
            edges = [rect[(k + 1) % 4] - rect[k] for k in range(2)]
            long = max(edges, key=np.linalg.norm)
            if np.linalg.norm(long) < min_length:
                continue
            mid = np.asarray(hole.centroid.coords[0]) - centre
            direction = long / np.linalg.norm(long)
            if direction @ mid < 0:
                direction = -direction
            angle = math.degrees(math.atan2(direction[1], direction[0]))
            offset = abs(float(direction[0] * mid[1] - direction[1] * mid[0]))
            lines.append(Line(angle, offset))
    return sorted(lines, key=lambda line: line.angle_deg % 360)


def base_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    b = design.params.base
    names = sorted((n for n in meshes if n.startswith("ship_base_") and "." not in n),
                   key=lambda n: int(n.rsplit("_", 1)[1]))  # fmt: skip
    if not names:
        return []
    worst_gap = worst_fixed = worst_offset = 0.0
    counts = []
    for name in names:
        lines = base_lines(meshes[name], b.line_depth_mm, 12.0)
        counts.append(len(lines))
        fixed = [line for line in lines if abs(meshgeo.wrap_deg(line.angle_deg)) < 20]
        zones = [line for line in lines if line not in fixed]
        if len(fixed) != 1 or len(zones) != 4:
            return [invariant(f"{name}: zone boundaries and Fixed line found", 5, len(lines), 0)]
        angles = sorted(line.angle_deg % 360 for line in zones)
        gaps = [(angles[(k + 1) % 4] - angles[k]) % 360 for k in range(4)]
        worst_gap = max(worst_gap, *(abs(g - constants.ZONE_DEG) for g in gaps))
        worst_fixed = max(worst_fixed, abs(meshgeo.wrap_deg(fixed[0].angle_deg)))
        worst_offset = max(worst_offset, fixed[0].offset_mm,
                           *(line.offset_mm for line in zones))  # fmt: skip
    span = f"{len(names)} bases"
    return [
        invariant(f"ship bases: lines found on each ({span})", 5, min(counts), 0),
        invariant(f"ship bases: zone boundaries off 90 deg apart (deg, worst of {span})", 0,
                  worst_gap, ANGLE_TOL_DEG),
        invariant(f"ship bases: Fixed line off the forward axis (deg, worst of {span})", 0,
                  worst_fixed, ANGLE_TOL_DEG),
        invariant(f"ship bases: lines' axes off the centre (mm, worst of {span})", 0,
                  worst_offset, CENTRE_TOL_MM),
    ]  # fmt: skip


TURNED_IOU_MAX = 0.75  # ship 6 against ship 9 turned: at most this alike (it was 1.000)


def base_number(mesh: trimesh.Trimesh, depth: float, size: float, clear: float) -> BaseGeometry:
    """What is engraved in a base's rear zone (-x), `clear` inside its zone lines and off
    the centre: the ship's number (and its bar)."""
    section = _top_section(mesh, depth)
    half = size / 2
    rear = Polygon([(0, 0), (-half, half), (-half, -half)]).buffer(-clear, join_style=2)
    return rear.difference(section).difference(Point(0, 0).buffer(2 * clear + 2))


def turned_iou(first: BaseGeometry, second: BaseGeometry) -> float:
    """How alike `first` and `second` turned 180 degrees are (intersection over union), the
    best of aligning their boxes' centres or their centroids."""
    turned = affinity.rotate(second, 180, origin="centroid")
    best = 0.0
    for a, b in (
        (first.centroid, turned.centroid),
        (box(*first.bounds).centroid, box(*turned.bounds).centroid),
    ):
        moved = affinity.translate(turned, a.x - b.x, a.y - b.y)
        union = first.union(moved).area
        best = max(best, first.intersection(moved).area / union if union else 0.0)
    return best


def turned_number_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    """Ship 6 and ship 9 (when both are printed): not the same mark turned round."""
    b = design.params.base
    if not all(f"ship_base_{n}" in meshes for n in constants.UNDERLINED_NUMBERS):
        return []
    depth, clear = design.params.text.depth_mm, float(b.line_width_mm)
    six, nine = (base_number(meshes[f"ship_base_{n}"], depth, float(b.size_mm), clear)
                 for n in constants.UNDERLINED_NUMBERS)  # fmt: skip
    return [
        invariant("ship bases: 6 against 9 turned 180° (IoU of the numbers)", 0,
                  turned_iou(six, nine), TURNED_IOU_MAX),
    ]  # fmt: skip


# ---- pivot guide ----------------------------------------------------------------------------


PIVOT_STEP_DEG = 1  # the base turned from -45 to +45 degrees in these steps
PIVOT_OVERLAP_TOL_MM2 = 0.01
PIVOT_GAP_TOL_MM = 0.05
GROOVE_MIN_MM = 8.0  # an engraved ray or mark is longer than this (a numeral is shorter)
GROOVE_MIN_ASPECT = 4.0  # and this many times longer than wide (the U-turn arrow is not)


def base_square(size: float, angle_deg: float = 0.0) -> Polygon:
    """A ship base centred on the origin, turned by angle_deg about its centre."""
    half = size / 2
    return affinity.rotate(box(-half, -half, half, half), angle_deg, origin=(0, 0))


def pivot_overlap(section: BaseGeometry, size: float) -> float:
    """The worst overlap (mm^2) of the base with the guide while it pivots about its centre
    through the rules' 45 degrees either way, in PIVOT_STEP_DEG steps."""
    limit = constants.PIVOT_LIMIT_DEG
    angles = range(-limit, limit + 1, PIVOT_STEP_DEG)
    return max(base_square(size, a).intersection(section).area for a in angles)


def pivot_corner_gaps(section: BaseGeometry, size: float) -> tuple[float, float]:
    """The gaps from the base's two front corners (unturned) to the guide."""
    half = size / 2
    gaps = (Point(half, side * half).distance(section) for side in (1, -1))
    return next(gaps), next(gaps)


def groove_lines(section: BaseGeometry, min_length: float, min_aspect: float) -> list[Line]:
    """The long straight grooves in a top section: its holes longer than min_length and
    min_aspect times longer than wide, each as an angle outward from the origin (the base's
    centre) and its axis's distance from the origin."""
    lines = []
    for polygon in meshgeo.polygons(section):
        for ring in polygon.interiors:
            hole = Polygon(ring)
            rect = np.asarray(hole.minimum_rotated_rectangle.exterior.coords)[:4]
            edges = sorted((rect[(k + 1) % 4] - rect[k] for k in range(2)), key=np.linalg.norm)
            short, long = (float(np.linalg.norm(e)) for e in edges)
            if long < min_length or long < min_aspect * short:
                continue
            mid = np.asarray(rect.mean(axis=0))
            direction = edges[1] / long
            if direction @ mid < 0:
                direction = -direction
            angle = math.degrees(math.atan2(direction[1], direction[0]))
            offset = abs(float(direction[0] * mid[1] - direction[1] * mid[0]))
            lines.append(Line(angle, offset))
    return sorted(lines, key=lambda line: line.angle_deg)


def pivot_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    if "pivot_guide" not in meshes:
        return []
    p = design.params
    mesh = meshes["pivot_guide"]
    size = float(p.base.size_mm)
    outline = meshgeo.section(mesh, p.pivot.thickness_mm / 2)
    low, high = pivot_corner_gaps(outline, size)
    out = [
        invariant("pivot guide: base overlap through a ±45° pivot (mm², worst)", 0,
                  pivot_overlap(outline, size), PIVOT_OVERLAP_TOL_MM2),
        invariant("pivot guide: gap at the base's front corners (mm)",
                  p.pivot.base_clearance_mm,
                  max((low, high), key=lambda g: abs(g - p.pivot.base_clearance_mm)),
                  PIVOT_GAP_TOL_MM),
    ]  # fmt: skip
    top = meshgeo.section(mesh, p.pivot.thickness_mm - p.text.depth_mm / 2)
    lines = groove_lines(top, GROOVE_MIN_MM, GROOVE_MIN_ASPECT)
    if len(lines) != 3:
        return [*out, invariant("pivot guide: engraved rays and centre mark found", 3,
                                len(lines), 0)]  # fmt: skip
    right, mark, left = lines  # sorted by angle: -45, 0, +45
    limit = constants.PIVOT_LIMIT_DEG
    return [
        *out,
        invariant("pivot guide: ray at +45 (deg)", limit, left.angle_deg, ANGLE_TOL_DEG),
        invariant("pivot guide: ray at -45 (deg)", -limit, right.angle_deg, ANGLE_TOL_DEG),
        invariant("pivot guide: centre mark on the forward axis (deg)", 0, mark.angle_deg,
                  ANGLE_TOL_DEG),
        invariant("pivot guide: rays' and mark's axes off the base's centre (mm, worst)", 0,
                  max(line.offset_mm for line in lines), CENTRE_TOL_MM),
    ]  # fmt: skip


# ---- tracker and box ------------------------------------------------------------------------


_dial = lru_cache(maxsize=8)(remembered_dial)  # as _joints


TRACKER_CARD = card_part(1)  # every ship's card has the same rows: the first is measured


def tracker_measure(design: Any, meshes: Meshes) -> DialMeasure | None:
    if TRACKER_CARD in meshes and "tracker_clip" in meshes:
        return _dial(design.dial, meshes[TRACKER_CARD], meshes["tracker_clip"])
    return None


def mission_measure(design: Any, meshes: Meshes) -> DialMeasure | None:
    """The ship trackers' clip on the mission tracker's row."""
    if "mission_tracker" in meshes and "tracker_clip" in meshes:
        layout = tracker.mission_layout(design.params)
        return _dial(layout, meshes["mission_tracker"], meshes["tracker_clip"])
    return None


def tracker_invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    dial = tracker_measure(design, meshes)
    if dial is None:
        return []
    held = dial.placements - len(dial.unseated)
    rows = len(constants.TRACKER_LABELS) * (constants.TRACKER_MAX + 1)
    found = [
        invariant("tracker: values 0..6 held by a detent, both rows", rows, held, 0),
        invariant("tracker: detent grip (mm)", design.params.stat_dial.grip_mm,
                  dial.interference_mm, design.params.checks.fit_tolerance_mm),
    ]  # fmt: skip
    rounds = mission_measure(design, meshes)
    if rounds is not None:
        held = rounds.placements - len(rounds.unseated)
        what = f"mission tracker: rounds 1..{constants.ROUNDS} held by a detent"
        found.append(invariant(what, constants.ROUNDS, held, 0))
    return found


def clearance_findings(design: Any, meshes: Meshes) -> list[Finding]:
    """Ruler joints, the tracker's clip on its card, every piece in its box pocket."""
    p = design.params
    valid = valid_solids(meshes)
    found: list[Finding] = []
    tolerance = p.checks.fit_tolerance_mm
    sections = ruler_sections(valid)
    if sections is not None:
        joints = FitLimits(p.checks.ruler_joint_fit, "ruler_joint_fit", tolerance)
        for k in range(1, constants.RULER_SECTIONS):
            name = f"{ruler_part(k)}+{ruler_part(k + 1)}"
            joint = _joints(sections[k - 1], sections[k])
            found += joint_findings(p.ruler, joints, joint, name, constants.RULER_SECTIONS)
    clip = FitLimits(p.checks.clip_fit, "clip_fit", tolerance)
    dial = tracker_measure(design, valid)
    if dial is not None:
        found += dial_findings(p.stat_dial, clip, dial, f"{TRACKER_CARD}+tracker_clip")
    rounds = mission_measure(design, valid)
    if rounds is not None:
        found += dial_findings(p.mission_card, clip, rounds, "mission_tracker+tracker_clip")
    return found + box_findings(design, valid)  # pockets: the engine's fit proof, every box


def box_findings(design: Any, meshes: Meshes) -> list[Finding]:
    """Each box in play, its lid closed in its container (the engine's tray checks: the
    lid's gap, that it stays on, nothing rattling), and the ship box in its container (the
    engine measures the kit's box in the tin)."""
    p = design.params
    found = tray_findings(design.layout, meshes, p.box, p.checks, p.tin)
    found += tray_findings(design.ship_layout, meshes, p.box, p.checks, p.ship_tin)
    return found + box_in_tin_findings(design.ship_layout, meshes, p.ship_tin)


def invariants(design: Any, meshes: Meshes) -> list[dict[str, Any]]:
    valid = valid_solids(meshes)
    return (
        unmeasured(meshes)
        + base_invariants(design, valid)
        + turned_number_invariants(design, valid)
        + ruler_invariants(design, valid)
        + objective_invariants(design, valid)
        + pivot_invariants(design, valid)
        + tracker_invariants(design, valid)
    )

"""The physical contents the box must hold, derived from concrete parameters (no rendering).

Each `Piece` is one physical object: the registry part whose STL it is (or `die`, which is
bought) and the transform from that part's modelled frame (as its builder outputs it, in
print orientation) to its pose inside a `Unit`. A unit is what is stowed together: a column
of stacked tokens, a stat dial with its clips riding on it, one ruler section, the
template, a die. A unit's frame has the lower corner of its envelope at the origin, so the
solver only ever moves envelopes.

Sizes come from the builders' own geometry, checked against it:
- tokens: the octagon is `token.across_flats_mm` across its flats on x and y (flats face the
  axes); an altitude token's pegs stand `stacking.peg_height_mm` proud, and sink into the
  sockets of the token above, so a column is tokens x height plus the silhouette (plane on
  top) or the pegs (altitude token on top);
- stat dial: card `DialLayout.length x .height x card_thickness`; a clip hangs its spine
  `clip_clearance + clip_spine_thickness` below the lowest row and wraps the card with
  a jaw above and a jaw plus clearance below;
- ruler sections: a template length, plus the joint tab on sections 1 and 2;
- template: the union of the three move outlines (notches only remove material).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from shapely.geometry import Polygon, box
from shapely.ops import unary_union

from squadron_cad.components.stat_card.shape import DialLayout, clip_bounds
from squadron_cad.fit.units import Piece, Unit
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds, Matrix
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.geometry.dial import dial_layout
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

DIE_PART = "die"  # bought, not printed: layout_io writes a cube mesh for it
ARC_STEP_DEG = 1.0  # sampling of the template's arcs; the chord error is under 0.02 mm


# ---- bounds of each part in its modelled frame ----


def token_half(p: SquadronLeaderParams) -> float:
    """Half the octagon across its flats: flats face +x and +y, so this bounds x and y."""
    return float(p.token.across_flats_mm) / 2


def part_bounds(p: SquadronLeaderParams, part: str) -> Bounds:
    builders = {
        "plane_token": _plane_bounds,
        "altitude_token": _altitude_bounds,
        "stat_dial_card": _card_bounds,
        "stat_dial_clip": _clip_bounds,
        "template_all": _template_bounds,
        DIE_PART: _die_bounds,
    }
    if part.startswith("range_ruler_"):
        return _ruler_bounds(p, int(part.rsplit("_", 1)[1]))
    return builders[part](p)


def _plane_bounds(p: SquadronLeaderParams) -> Bounds:
    half = token_half(p)
    return (-half, -half, 0.0), (half, half, p.token.height_mm + p.plane.silhouette_height_mm)


def _altitude_bounds(p: SquadronLeaderParams) -> Bounds:
    half = token_half(p)
    return (-half, -half, 0.0), (half, half, p.token.height_mm + p.stacking.peg_height_mm)


def _card_bounds(p: SquadronLeaderParams) -> Bounds:
    layout = dial_layout(p)
    return (0.0, 0.0, 0.0), (
        float(layout.length),
        float(layout.height),
        p.stat_dial.card_thickness_mm,
    )


def _clip_bounds(p: SquadronLeaderParams) -> Bounds:
    return clip_bounds(dial_layout(p))


def ruler_section_length(p: SquadronLeaderParams, index: int) -> float:
    tab = p.ruler.tab_length_mm if index < constants.RULER_LENGTH_TEMPLATES else 0.0
    return float(p.template_length_mm) + tab


def _ruler_bounds(p: SquadronLeaderParams, index: int) -> Bounds:
    half = float(p.ruler_width_mm) / 2
    return (0.0, -half, 0.0), (ruler_section_length(p, index), half, p.ruler.thickness_mm)


def template_outline(p: SquadronLeaderParams) -> Polygon:
    """The all-in-one template seen from above, in its modelled frame (notches not cut)."""
    shapes = []
    for path in move_paths.paths(p).values():
        width = float(path.width)
        if not path.is_curved:
            shapes.append(box(0.0, -width / 2, float(path.straight_length), width / 2))
            continue
        shapes.append(
            _ring_segment(
                float(path.centre_radius), float(path.inner_radius), width, float(path.turn_deg)
            )
        )
    return unary_union(shapes)


def _ring_segment(centre_y: float, inner: float, width: float, turn_deg: float) -> Polygon:
    steps = max(2, math.ceil(turn_deg / ARC_STEP_DEG))
    angles = [math.radians(-90 + turn_deg * i / steps) for i in range(steps + 1)]
    outer = [
        ((inner + width) * math.cos(a), centre_y + (inner + width) * math.sin(a)) for a in angles
    ]
    inside = [(inner * math.cos(a), centre_y + inner * math.sin(a)) for a in reversed(angles)]
    # Chords cut inside an arc by r(1 - cos(step / 2)); grow the shape by that so it bounds the arc.
    sagitta = (inner + width) * (1 - math.cos(math.radians(turn_deg / steps) / 2))
    return Polygon(outer + inside).buffer(sagitta, join_style="mitre")


def _template_bounds(p: SquadronLeaderParams) -> Bounds:
    x0, y0, x1, y1 = template_outline(p).bounds
    return (x0, y0, 0.0), (x1, y1, p.templates.thickness_mm)


def die_size(p: SquadronLeaderParams) -> tuple[float, float, float]:
    """A die as it rests: a d6 is a cube of dice.size_mm; a d8 (dice.size_mm point to
    point) lies on a face, a hexagon across its corners along x and across its flats along
    y, D / sqrt 3 high. Other dice are bounded by the cube."""
    size = float(p.dice.size_mm)
    if p.dice.sides == 8:
        corners = size * math.sqrt(2 / 3)  # twice the projected vertex, D / 2 * sqrt(2/3)
        return corners, corners * math.sqrt(3) / 2, size / math.sqrt(3)
    return size, size, size


def _die_bounds(p: SquadronLeaderParams) -> Bounds:
    sx, sy, sz = die_size(p)
    return (-sx / 2, -sy / 2, 0.0), (sx / 2, sy / 2, sz)


# ---- units ----


def column_height(p: SquadronLeaderParams, tokens: int, with_plane: bool) -> float:
    """A column of seated tokens: every top token's pegs sink into the socket above."""
    top = p.plane.silhouette_height_mm if with_plane else p.stacking.peg_height_mm
    return tokens * p.token.height_mm + top


def stack_splits(p: SquadronLeaderParams, max_height: float) -> list[tuple[int, ...]]:
    """Ways to stand one player's stack as columns (first column carries the plane).

    For each column count, the split with the lowest tallest column that fits under
    `max_height`; fewest columns first.
    """
    total = constants.ALTITUDE_TOKENS_PER_STACK + 1
    best: dict[int, tuple[float, tuple[int, ...]]] = {}
    for cuts in itertools.product((False, True), repeat=total - 1):
        split = _split_at(cuts)
        tallest = max(column_height(p, n, i == 0) for i, n in enumerate(split))
        if tallest <= max_height + 1e-9 and (
            len(split) not in best or tallest < best[len(split)][0]
        ):
            best[len(split)] = (tallest, split)
    return [best[k][1] for k in sorted(best)]


def _split_at(cuts: tuple[bool, ...]) -> tuple[int, ...]:
    sizes, run = [], 1
    for cut in cuts:
        if cut:
            sizes.append(run)
            run = 0
        run += 1
    sizes.append(run)
    return tuple(sizes)


def stack_columns(p: SquadronLeaderParams, player: int, split: tuple[int, ...]) -> list[Unit]:
    """One player's tokens as columns; altitude tokens are numbered 1 (bottom) to 4."""
    half = token_half(p)
    altitudes = constants.ALTITUDE_TOKENS_PER_STACK
    units, next_altitude = [], altitudes  # the plane's column holds the top altitude tokens
    for index, tokens in enumerate(split):
        with_plane = index == 0
        count = tokens - 1 if with_plane else tokens
        numbers = list(range(next_altitude - count + 1, next_altitude + 1))
        next_altitude -= count
        pieces = [
            _piece(
                p,
                f"player{player}_altitude_token_{n}",
                "altitude_token",
                frames.translate(half, half, level * p.token.height_mm),
            )
            for level, n in enumerate(numbers)
        ]
        if with_plane:
            pieces.append(
                _piece(
                    p,
                    f"player{player}_plane_token",
                    "plane_token",
                    frames.translate(half, half, count * p.token.height_mm),
                )
            )
        height = column_height(p, tokens, with_plane)
        name = f"player{player}_stack" + (f"_{index + 1}" if len(split) > 1 else "")
        units.append(Unit(name, "stack", (2 * half, 2 * half, height), tuple(pieces), f"P{player}"))
    return units


def dial_stowed_height(p: SquadronLeaderParams) -> float:
    """Card plus a clip's jaw and clearance above it and below it."""
    d = p.stat_dial
    return d.card_thickness_mm + 2 * (d.clip_jaw_thickness_mm + d.clip_clearance_mm)


def dial(p: SquadronLeaderParams, player: int) -> Unit:
    """The card with every clip seated at the highest value (a full-health pilot)."""
    d = p.stat_dial
    layout = dial_layout(p)
    below = d.clip_clearance_mm + d.clip_jaw_thickness_mm
    spine = d.clip_clearance_mm + d.clip_spine_thickness_mm
    card = frames.translate(0, spine, below)
    pieces = [_piece(p, f"player{player}_stat_dial_card", "stat_dial_card", card)]
    for row, label in enumerate(d.labels):
        pieces.append(
            _piece(
                p,
                f"player{player}_stat_dial_clip_{label.lower()}",
                "stat_dial_clip",
                frames.compose(card, _clip_on_card(p, layout, row)),
            )
        )
    size = (float(layout.length), float(layout.height) + spine, dial_stowed_height(p))
    return Unit(f"player{player}_stat_dial", "dial", size, tuple(pieces), f"dial {player}")


def _clip_on_card(p: SquadronLeaderParams, layout: DialLayout, row: int) -> Matrix:
    """Clip frame -> card frame: clip z runs along the row, x inward from the row's lower
    edge, y through the card (a cyclic permutation of the axes, so a proper rotation)."""
    d = p.stat_dial
    matrix = np.zeros((4, 4))
    matrix[0, 2] = matrix[1, 0] = matrix[2, 1] = matrix[3, 3] = 1.0
    matrix[0, 3] = float(layout.value_x(d.max_value)) - d.clip_width_mm / 2
    matrix[1, 3] = float(layout.row_bottom(row))
    return matrix


def ruler_section(p: SquadronLeaderParams, index: int, on_edge: bool) -> Unit:
    """A ruler section lying marks up, or on its edge (marks facing -y)."""
    length = ruler_section_length(p, index)
    width, thickness = float(p.ruler_width_mm), p.ruler.thickness_mm
    if on_edge:
        pose = frames.compose(frames.translate(0, thickness, width / 2), frames.rotate_x(90))
        size = (length, thickness, width)
    else:
        pose = frames.translate(0, width / 2, 0)
        size = (length, width, thickness)
    piece = _piece(p, f"range_ruler_{index}", f"range_ruler_{index}", pose)
    return Unit(f"range_ruler_{index}", "ruler", size, (piece,), f"ruler {index}")


def template(p: SquadronLeaderParams) -> Unit:
    (x0, y0, _), (x1, y1, z1) = part_bounds(p, "template_all")
    piece = _piece(p, "template_all", "template_all", frames.translate(-x0, -y0, 0))
    return Unit("template_all", "template", (x1 - x0, y1 - y0, z1), (piece,), "template")


def dice(p: SquadronLeaderParams) -> list[Unit]:
    sx, sy, sz = die_size(p)
    units = []
    for colour, count in p.dice.colours.items():
        for n in range(1, count + 1):
            name = f"die_{colour}_{n}"
            piece = _piece(p, name, DIE_PART, frames.translate(sx / 2, sy / 2, 0))
            units.append(Unit(name, "die", (sx, sy, sz), (piece,), colour[:1].upper()))
    return units


def _piece(p: SquadronLeaderParams, name: str, part: str, transform: Matrix) -> Piece:
    return Piece(name, part, transform, part_bounds(p, part))

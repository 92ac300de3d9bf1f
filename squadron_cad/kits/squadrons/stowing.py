"""How the Squadrons pieces are stowed: what each part occupies in its modelled frame, and
the units the engine's generic stower (`fit.simple`) packs: each unit (a stack of bases,
the ruler's sections, the clips in a grid) in a pocket of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Protocol

from squadron_cad.components.stat_card.shape import DialLayout, clip_bounds
from squadron_cad.errors import InputError
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.fit.notches import narrowed, round_item_radius
from squadron_cad.fit.report import fit_report
from squadron_cad.fit.units import Piece, Unit, grid_shapes
from squadron_cad.geometry import frames
from squadron_cad.geometry.frames import Bounds
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.constants import (
    MARKER_PARTS,
    OBJECTIVE_PARTS,
    base_part,
    card_part,
    ruler_part,
)
from squadron_cad.kits.squadrons.params import SquadronsParams
from squadron_cad.kits.squadrons.parts import pivot_guide, tracker

ROUND_MARGIN_MM = 0.05  # a round token's and a notch's facets: its travel stays under the limit
MAX_UNITS = 12  # fit.packing's search grows fast with the pockets: 8 take 0.1 s


class StowedDesign(Protocol):
    """What the stowing reads of the kit's design (design.SquadronsDesign): the design
    calls this module to lay its boxes out, so this module names only what it reads."""

    @property
    def params(self) -> SquadronsParams: ...

    @property
    def dial(self) -> DialLayout: ...

    @property
    def box(self) -> BoxShape: ...

    @property
    def layout(self) -> Layout: ...

    @property
    def ship_layout(self) -> Layout: ...


# ---- what each part occupies, in its modelled frame --------------------------------------


def part_bounds(design: StowedDesign, part: str) -> Bounds:
    p = design.params
    if part.startswith("ship_base_"):
        half = p.base.size_mm / 2
        return (-half, -half, 0.0), (half, half, p.base.thickness_mm)
    if part.startswith("range_ruler_"):
        index = int(part.rsplit("_", 1)[1])
        tab = p.ruler.tab_length_mm if index < constants.RULER_SECTIONS else 0.0
        half = p.ruler.width_mm / 2
        return (0.0, -half, 0.0), (float(p.ruler_section_mm) + tab, half, p.ruler.thickness_mm)
    if part == "movement_gauge":
        half = p.gauge.width_mm / 2
        return (0.0, -half, 0.0), (
            constants.GAUGE_LENGTH_IN * constants.INCH_MM,
            half,
            p.gauge.thickness_mm,
        )
    if part == "pivot_guide":
        inner, r = float(p.pivot_cup_radius_mm), p.pivot.radius_mm
        span = math.radians(pivot_guide.CUP_SPAN_DEG)  # the cup's ends reach the farthest
        return (inner * math.cos(span), -r * math.sin(span), 0.0), (
            r,
            r * math.sin(span),
            p.pivot.thickness_mm,
        )
    if part in OBJECTIVE_PARTS:
        o = p.objective
        half = o.diameter_mm / 2
        return (-half, -half, 0.0), (half, half, o.thickness_mm + o.symbol_height_mm)
    if part.startswith("tracker_card_"):
        dial = design.dial
        return (-float(dial.tag_width), 0.0, 0.0), (
            float(dial.length), float(dial.height), p.stat_dial.card_thickness_mm)  # fmt: skip
    if part == "tracker_clip":
        return clip_bounds(design.dial)
    if part == "mission_tracker":
        _low, high = tracker.legend_band(p)
        length = float(tracker.mission_layout(p).length)
        return (0.0, 0.0, 0.0), (length, high, p.stat_dial.card_thickness_mm)
    if part == "flagship_marker":
        half = p.flagship.size_mm / 2
        return (-half, -half, 0.0), (half, half, p.flagship.thickness_mm)
    raise KeyError(part)


# ---- units ---------------------------------------------------------------------------------


def _size(bounds: Bounds) -> tuple[float, float, float]:
    low, high = bounds
    return (high[0] - low[0], high[1] - low[1], high[2] - low[2])


def stacks(
    design: StowedDesign,
    name: str,
    parts: list[tuple[str, str]],
    depth: float,
    narrowest: tuple[float, float] | None = None,
) -> list[Unit]:
    """(piece, part) stacked, as few stacks as the box's depth allows, evenly filled; in
    each, a piece smaller than the others lies at the bottom, where the box fills the
    pocket around it (parts.box.fillers: the ruler's last section has no tab).
    `narrowest`: what the pieces show the walls where their bounds do not say (Unit)."""
    heights = [_size(part_bounds(design, part))[2] for _, part in parts]
    per = max(1, int(depth // max(heights)))
    count = math.ceil(len(parts) / per)
    per = math.ceil(len(parts) / count)
    out = []
    for s in range(count):
        chunk = sorted(parts[s * per : (s + 1) * per], key=lambda each: _area(design, each[1]))
        pieces, z = [], 0.0
        width = length = 0.0
        for piece, part in chunk:
            low, high = part_bounds(design, part)
            move = frames.translate(-low[0], -low[1], z - low[2])
            pieces.append(Piece(piece, part, move, (low, high)))
            z += high[2] - low[2]
            length, width = max(length, high[0] - low[0]), max(width, high[1] - low[1])
        label = f"{name} {s + 1}" if count > 1 else name
        size = (length, width, z)
        out.append(Unit(label.replace(" ", "_"), "stack", size, tuple(pieces), narrowest=narrowest))
    return out


def _area(design: StowedDesign, part: str) -> float:
    length, width, _ = _size(part_bounds(design, part))
    return length * width


def clip_grid(design: StowedDesign, count: int, name: str = "tracker_clips") -> Unit:
    """The tracker clips lying as printed, side by side in a full grid (touching, one
    group): a row left partly empty would let its clips slide along it."""
    low, high = clip_bounds(design.dial)
    sx, sy, sz = _size((low, high))
    full = [(rows, cols) for rows, cols in grid_shapes(count) if rows * cols == count]
    rows, columns = min(full, key=lambda shape: abs(math.log(shape[1] * sx / (shape[0] * sy))))
    pieces = []
    for k in range(count):
        col, row = k % columns, k // columns
        move = frames.translate(col * sx - low[0], row * sy - low[1], -low[2])
        piece = f"tracker_clip_{k + 1}" if count > 1 else name
        pieces.append(Piece(piece, "tracker_clip", move, (low, high)))
    return Unit(name, "grid", (columns * sx, rows * sy, sz), tuple(pieces))


def table_units(design: StowedDesign) -> list[Unit]:
    """The table's pieces, for the kit's box (fitted to the tin): ruler, gauge, pivot guide,
    the objectives the missions need and the mission tracker with its clip."""
    return _refused_when_many(_table_units(design), design.box.usable_depth)


def ship_units(design: StowedDesign, depth: float) -> list[Unit]:
    """One player's squadron, for a ship box `depth` deep inside: bases, tracker cards and
    their clips, the Squadron Leader's marker and the player's entry markers."""
    p = design.params
    ships = p.base.per_player
    bases = [(f"ship_base_{n}", base_part(n)) for n in range(1, ships + 1)]
    cards = [(card_part(n), card_part(n)) for n in range(1, ships + 1)]
    entries = math.ceil(
        constants.markers_needed(p.players)["entry"] / p.players
    )  # a player's share
    markers = [(f"entry_marker_{k}", "entry_marker") for k in range(1, entries + 1)]
    return [
        *stacks(design, "ship bases", bases, depth),
        *stacks(design, "trackers", cards, depth),
        clip_grid(design, len(p.stat_dial.labels) * ships),
        *stacks(design, "flagship", [("flagship_marker", "flagship_marker")], depth),
        *stacks(design, "entry markers", markers, depth),
    ]


def _refused_when_many(found: list[Unit], depth: float) -> list[Unit]:
    """Refused when a shallow container splits them into more pockets than the engine's
    packer searches in good time (it tries every arrangement)."""
    if len(found) > MAX_UNITS:
        raise InputError(
            f"the container is too shallow: {depth:.1f} mm inside the box splits the stacks "
            f"into {len(found)} pockets (at most {MAX_UNITS}); raise tin.inner_depth_mm"
        )
    return found


def _table_units(design: StowedDesign) -> list[Unit]:
    p = design.params
    depth = design.box.usable_depth
    rulers = [(ruler_part(k), ruler_part(k)) for k in range(1, constants.RULER_SECTIONS + 1)]
    needed = constants.markers_needed(p.players)
    tokens = [
        (f"{MARKER_PARTS[kind]}_{k}", MARKER_PARTS[kind])
        for kind in constants.OBJECTIVE_KINDS
        for k in range(1, needed[kind] + 1)
    ]
    tabs = (math.inf, float(p.ruler.tab_tip_width_mm))  # no notch at their ends takes a tab
    return [
        *stacks(design, "ruler", rulers, depth, tabs),
        *stacks(design, "gauge", [("movement_gauge", "movement_gauge")], depth),
        *stacks(design, "pivot", [("pivot_guide", "pivot_guide")], depth),
        *stacks(design, "markers", tokens, depth),
        *stacks(design, "mission", [("mission_tracker", "mission_tracker")], depth),
        clip_grid(design, 1, "mission_clip"),
    ]


def round_notches(design: StowedDesign, layout: Layout) -> Layout:
    """The layout with the finger notches beside the round tokens' pockets narrowed: a
    token against the notched divider enters a notch as wide as its chord there, and
    with the pocket's clearance it may move no more than box.max_rattle_mm."""
    box = design.params.box
    if box.max_rattle_mm is None:
        return layout
    allowance = box.max_rattle_mm - box.pocket_clearance_mm - ROUND_MARGIN_MM
    radius = round_item_radius(design.params.objective.diameter_mm / 2, allowance)
    round_pockets = {placed.unit for placed in layout.placements if placed.part in OBJECTIVE_PARTS}
    return replace(layout, notches=narrowed(layout.notches, round_pockets, radius))


@dataclass(frozen=True)
class _ShipBoxView:
    """A ship box as the engine's fit report reads a kit's box: its container and layout."""

    params: Any
    layout: Any


def fit_lines(design: StowedDesign) -> list[str]:
    """The engine's fit report of the kit's box, then of the ship boxes, each in its own
    container: the tin, the box, the layout, the pieces, the margins, what limited them."""
    p = design.params
    ships = p.base.per_player
    holds = ("the table's pieces: ruler, movement gauge, pivot guide, the objectives the "
             "most demanding mission needs, the mission tracker")  # fmt: skip
    ship_view = _ShipBoxView(p.model_copy(update={"tin": p.ship_tin}), design.ship_layout)
    entries = math.ceil(constants.markers_needed(p.players)["entry"] / p.players)
    ship_holds = (f"one player's squadron: {ships} ships with their tracker cards and clips, "
                  f"the Squadron Leader's marker, {entries} entry markers")  # fmt: skip
    ship_lines = fit_report(ship_view, holds=ship_holds)
    return [
        *fit_report(design, holds=holds),
        f"ship boxes: {p.players}, one a player, each in a container of its own (ship_tin):",
        *(f"  {line}" for line in ship_lines),
    ]

"""The box: a rounded tray sized to the tin, with a pocket for every piece.

The tin fit (stowing/tin_fit.py) decides the box's size and where each pocket goes;
this module only cuts them. Everything is a 2D shape extruded straight up, so the box
renders in seconds and prints floor down without supports: pockets, finger notches and
the lid rebate all open upwards.

- Outside: the tin's inside less `box.tin_clearance_mm` per side and at the top (the lid
  included: it is a cap, `box_lid.lid_height` tall, whose skirt continues the wall).
- Wall and tongue: the wall stops where the closed lid's skirt stands on it; above, a
  tongue `box.lid_lip_mm` high (the wall less the lid's lip `box.rim_mm` and the lid
  clearance) locates the lid. Dividers rising higher, into the lid, stand
  `box.lid_clearance_mm` inside its skirt.
- Pockets: an octagon (oriented as the token) for each column of tokens, a rectangle for
  the dice, the stat dials and the ruler sections, and the template's own outline.
- With the template on top, the dividers rise to carry it and a template-shaped recess
  keeps it from sliding; otherwise they rise `box.divider_height_mm` above the floor.
- Finger notches: U-shaped dips through the dividers beside low-lying items.
- Hollows: floor space no pocket needs is emptied to the floor, leaving divider-thick
  walls around the pockets (and the template's recess): a tray, not a solid block.
- At the recess's height, a divider tip its edge cuts thinner than a printable wall is
  cut away with it (the edge crosses dividers at a slant).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from solid2 import (
    difference,
    intersection,
    linear_extrude,
    offset,
    polygon,
    rotate,
    square,
    translate,
    union,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.layout import Layout, Pocket
from squadron_cad.fit.notches import Notch
from squadron_cad.fit.tray import finger_notch
from squadron_cad.geometry.expr import Number, smax, smin
from squadron_cad.geometry.shapes import EPSILON_MM, octagon_across_flats, rounded_rectangle
from squadron_cad.kits.squadron_leader.geometry import move_paths
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign
from squadron_cad.kits.squadron_leader.geometry.lid import box_outer
from squadron_cad.kits.squadron_leader.parts.box_lid import tongue_outline

Z_TOLERANCE_MM = 1e-6
SLIVER_FACETS = 32  # round offsets that cut thin slivers
SLIVER_SLACK_MM = 0.005  # a wall exactly the minimum survives; what the check erodes goes
HOLLOW_MIN_MM = 1.2  # spare floor narrower than this stays solid (three extrusion widths)


def _heights(p: SquadronLeaderParams) -> dict[str, Number]:
    """The box's levels as expressions of the parameters; the layout names the level of
    each pocket's bottom and top (Pocket.levels) and of the dividers' top."""
    box = p.box
    height = p.tin.inner_depth_mm - box.tin_clearance_mm
    lid_bottom = height - box.lid_thickness_mm
    ceiling = lid_bottom - box.headroom_mm
    wall_top = lid_bottom - box.lid_tray_depth_mm
    return {
        "height": height,
        "wall_top": wall_top,
        "lip_top": wall_top + box.lid_lip_mm,
        "lid_bottom": lid_bottom,
        "ceiling": ceiling,
        "floor": box.floor_mm,
        "dividers": smin(box.floor_mm + box.divider_height_mm, ceiling),
        "template": ceiling - p.templates.thickness_mm,
    }


def body(p: SquadronLeaderParams) -> OpenSCADObject:
    """The wall up to the tongue's top, and inside it a block (cut into pockets and
    hollows) as high as the dividers may rise, clear of the lid's skirt."""
    length, width, radius = box_outer(p)
    levels = _heights(p)
    inset = p.box.wall_mm + p.box.lid_clearance_mm
    inside = rounded_rectangle(length - 2 * inset, width - 2 * inset, smax(radius - inset, 0))
    return union()(
        linear_extrude(height=levels["lip_top"])(rounded_rectangle(length, width, radius)),
        linear_extrude(height=levels["ceiling"])(inside),
    )


def rebate(p: SquadronLeaderParams) -> OpenSCADObject:
    """Around the tongue: room for the lid's lip and its clearance."""
    length, width, radius = box_outer(p)
    levels = _heights(p)
    ring = difference()(
        rounded_rectangle(length + 2, width + 2, radius + 1),
        rounded_rectangle(*tongue_outline(p, (length, width, radius))),
    )
    return translate([0, 0, levels["wall_top"]])(
        linear_extrude(height=p.box.lid_lip_mm + EPSILON_MM)(ring)
    )


def open_space(p: SquadronLeaderParams, layout: Layout) -> OpenSCADObject | None:
    """The cavity above the dividers, up to the lid."""
    levels = _heights(p)
    if layout.insert_top >= layout.box.lid_bottom - Z_TOLERANCE_MM:
        return None
    length, width, radius = box_outer(p)
    wall = p.box.wall_mm
    bottom = levels[layout.insert_level]
    return translate([0, 0, bottom])(
        linear_extrude(height=levels["lid_bottom"] - bottom + EPSILON_MM)(
            rounded_rectangle(length - 2 * wall, width - 2 * wall, smax(radius - wall, 0))
        )
    )


def pocket_shape(p: SquadronLeaderParams, pocket: Pocket) -> OpenSCADObject:
    x, y = pocket.origin
    clearance = p.box.pocket_clearance_mm
    if pocket.kind == "octagon":
        shape = octagon_across_flats(p.token.across_flats_mm + 2 * clearance)
    elif pocket.kind == "rect":
        shape = square([round(pocket.size[0], 4), round(pocket.size[1], 4)], center=True)
    else:  # the template's outline, grown by the clearance
        outlines = [path.outline() for path in move_paths.paths(p).values()]
        shape = offset(delta=clearance)(union()(*outlines))
    if pocket.angle_deg:
        shape = rotate(pocket.angle_deg)(shape)
    return translate([round(x, 4), round(y, 4)])(shape)


def pockets(p: SquadronLeaderParams, layout: Layout) -> list[OpenSCADObject]:
    """Pockets grouped by depth: one extrusion per group keeps the booleans few."""
    levels = _heights(p)
    groups: dict[tuple[str, str], list[Pocket]] = {}
    for pocket in layout.pockets:
        groups.setdefault(pocket.levels, []).append(pocket)
    cuts = []
    for (low, high), members in groups.items():
        bottom, top = _level(levels, low), _level(levels, high)
        cuts.append(
            translate([0, 0, bottom])(
                linear_extrude(height=top - bottom + EPSILON_MM)(
                    union()(*(pocket_shape(p, pocket) for pocket in members))
                )
            )
        )
    return cuts


def _level(levels: dict[str, Number], name: str) -> Number:
    """A named level, or a shelf's "floor+<mm>" (a pocket over other pockets)."""
    if name in levels:
        return levels[name]
    base, _, rise = name.partition("+")
    return levels[base] + float(rise)


def hollow_shape(p: SquadronLeaderParams, layout: Layout) -> OpenSCADObject:
    """Floor space no pocket needs, emptied down to the floor to save filament and time.

    What stays: a divider's thickness around every pocket, and a ring as thick around the
    template's recess, so it cannot slide; slivers too narrow to print are left solid."""
    d = p.box.divider_mm
    inner = _inner_outline(p)
    # A shelf over other pockets (levels[0] not the floor) rests on their dividers: what
    # lies under it is hollowed like any spare floor.
    standing = [
        pocket
        for pocket in layout.pockets
        if pocket.kind != "outline" and pocket.levels[0] == "floor"
    ]
    walls = offset(delta=d)(union()(*(pocket_shape(p, pocket) for pocket in standing)))
    keep = [walls]
    for pocket in layout.pockets:
        if pocket.kind == "outline":
            recess = pocket_shape(p, pocket)
            keep.append(difference()(offset(delta=d)(recess), recess))
    spare = difference()(inner, *keep)
    # Opening by delta offsets turns a curve's facets into chords that can bite outside the
    # spare area (into a wall left around a pocket): clip it back to the spare area.
    return intersection()(
        spare, offset(delta=HOLLOW_MIN_MM / 2)(offset(delta=-HOLLOW_MIN_MM / 2)(spare))
    )


def hollows(p: SquadronLeaderParams, layout: Layout) -> OpenSCADObject:
    levels = _heights(p)
    top = levels[layout.insert_level]
    return translate([0, 0, levels["floor"]])(
        linear_extrude(height=top - levels["floor"] + EPSILON_MM)(hollow_shape(p, layout))
    )


def _inner_outline(p: SquadronLeaderParams) -> OpenSCADObject:
    length, width, radius = box_outer(p)
    wall = p.box.wall_mm
    return rounded_rectangle(length - 2 * wall, width - 2 * wall, smax(radius - wall, 0))


def _thin_cut(
    p: SquadronLeaderParams, layout: Layout, band: float, bottom: Number, top: Number, inset: Number
) -> OpenSCADObject:
    """Between two heights, cut what the cuts open there leave thinner than a printable
    wall (the recess's edge crosses dividers at a slant; above the box's wall the dividers
    stand the lid clearance inside the lid's skirt)."""
    length, width, radius = box_outer(p)
    inside = rounded_rectangle(length - 2 * inset, width - 2 * inset, smax(radius - inset, 0))
    high = float(top) - Z_TOLERANCE_MM
    open_there = [
        pocket_shape(p, q) for q in layout.pockets if q.z_top > band and q.z_bottom < high
    ]
    open_there += [notch_footprint(n) for n in layout.notches if n.z_top > band]
    # The hollows shrunk a hundredth: flush with the dividers' faces, CGAL fails to close
    # the cut; grown, a divider-wide wall would read 0.79 mm and sit on the knife edge of
    # the opening below (kept by one kernel, erased by the other). Shrunk, it reads 0.81.
    hollow = offset(delta=-0.01)(hollow_shape(p, layout))
    material = difference()(inside, hollow, *open_there)
    # Opened with round offsets, as the thin-wall check erodes: a square one keeps the
    # tips of wedges (where a slanted edge meets a divider) thinner than the wall.
    # The check's own radius (0.39) left 0.46 mm spots at draft quality in the custom tin.
    half = p.checks.min_wall_mm / 2 - SLIVER_SLACK_MM
    rounded = {"_fn": SLIVER_FACETS}
    printable = offset(r=half, **rounded)(offset(r=-half, **rounded)(material))
    return translate([0, 0, bottom])(
        linear_extrude(height=top - bottom + EPSILON_MM)(difference()(_inner_outline(p), printable))
    )


def slivers(p: SquadronLeaderParams, layout: Layout) -> list[OpenSCADObject]:
    """Thin leftovers cut: in the template's recess, and above the wall up to it."""
    levels = _heights(p)
    lip_top = float(levels["lip_top"])
    lid_inset = p.box.wall_mm + p.box.lid_clearance_mm
    cuts = []
    recess = layout.on_top
    top_name = recess.levels[0] if recess is not None else layout.insert_level
    if layout.insert_top > lip_top + Z_TOLERANCE_MM:
        below = min(float(layout.insert_top), recess.z_bottom if recess else math.inf)
        if below > lip_top + Z_TOLERANCE_MM:
            cuts.append(
                _thin_cut(p, layout, lip_top, levels["lip_top"], levels[top_name], lid_inset)
            )
    if recess is not None:
        inset = lid_inset if recess.z_bottom >= lip_top else p.box.wall_mm
        bottom, top = (levels[name] for name in recess.levels)
        cuts.append(_thin_cut(p, layout, recess.z_bottom, bottom, top, inset))
    return cuts


def notch_footprint(notch: Notch) -> OpenSCADObject:
    """A finger notch seen from above, where it is full width."""
    across, along = round(notch.length, 4), round(2 * notch.radius, 4)
    size = [across, along] if notch.axis == "x" else [along, across]
    x, y = (round(v, 4) for v in notch.centre)
    return translate([x, y])(square(size, center=True))


def build(design: SquadronLeaderDesign) -> OpenSCADObject:
    p = design.params
    layout = design.layout
    cuts = [
        rebate(p),
        *pockets(p, layout),
        hollows(p, layout),
        *(finger_notch(n) for n in layout.notches),
    ]
    space = open_space(p, layout)
    if space is not None:
        cuts.append(space)
    cuts += slivers(p, layout)
    return union()(difference()(body(p), *cuts), *fillers(layout))


def fillers(layout: Layout) -> list[OpenSCADObject]:
    """Ribs under piles and stops in slots (stowing.fillers): nothing rattles."""
    added = getattr(layout, "fillers", ())
    return [
        translate([0, 0, round(f.z_bottom - EPSILON_MM, 4)])(
            linear_extrude(height=round(f.z_top - f.z_bottom + EPSILON_MM, 4))(
                polygon([list(point) for point in f.points])
            )
        )
        for f in added
    ]

"""Squadron Leader's fits as tolerance coupons (`squadron-cad tolerance`).

Each fit prints once as its mate (the piece that does not change with the clearance) and
once per ladder step as a small piece cut by the part modules' own geometry (one socket,
the ruler's slot, the stat clip, the lid's outline) with only the clearance parameter
set to the step's value. A step carries its value in raised numerals. Coupons are cut
small (thin stubs of the ruler and the box) so the whole plate prints in minutes: only
the sizes that make the fit are the parts' own.

Frames: every step and mate is built so that the step, placed as built, sits on its mate
as built (the peg's mate and the lid's frame are raised by their floor, which `measure`
knows), so a clearance is measured between the two meshes as rendered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shapely
import trimesh
from solid2 import (
    circle,
    cube,
    difference,
    intersection,
    linear_extrude,
    rotate,
    translate,
    union,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks import meshgeo
from squadron_cad.checks.fits import signed_gap
from squadron_cad.components.ruler_joint.measure import measure_joint
from squadron_cad.components.ruler_joint.shape import JointShape, joint_shape, joint_slot, joint_tab
from squadron_cad.components.stat_card.shape import clip_profile, clip_shape
from squadron_cad.geometry.expr import Number, smin
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text, rounded_rectangle
from squadron_cad.kit import Coupon
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import (
    altitude_token,
    box_lid,
    plane_token,
)
from squadron_cad.kits.squadron_leader.parts.stat_dial import dial_layout

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

LABEL_HEIGHT_MM = 2.5  # numerals: the norm's least letter is 2 mm
LABEL_RAISE_MM = 0.2  # one layer: a colour change at it or a glance shows the numerals
PROBE_MM = 0.3  # sections are taken this far above a piece's base

PEG_TILE_MM = 5.4  # the round socket tile's diameter; its label sits over the socket
SOCKET_ROOF_MM = 0.4
PEG_BASE_MM = (5.0, 5.0, 0.8)  # the peg's tile

JOINT_THICKNESS_MM = 0.8  # a ruler stub: the joint is an extruded outline
JOINT_BODY_MM = 3.0  # stub behind the tab's shoulder
JOINT_MARGIN_MM = 0.6  # stub between the slot's end and the label, and after it

CLIP_WIDTH_MM = 1.2  # a slice of the clip's profile (no window, no bump): the sliding gap
# The label tag on a clip's back (along u, w, z), as high as the slice: its numerals stand
# on the coupon's top face, where the plate's picture draws them darker.
CLIP_TAG_MM = (5.0, 3.2, CLIP_WIDTH_MM)
CARD_STUB_MM = 6.0  # the card finger the clips are tried on

LID_BOX_MM = (9.0, 6.4)  # a small box top: rim, rebate and ledge are the box's own
LID_COUPON_RADIUS_MM = 2.4  # at most the box's corner radius
LID_COUPON_THICKNESS_MM = 0.6
LEDGE_MM = 0.6  # the frame's floor the lid rests on


def label_text(value: float) -> str:
    """The value in mm, without the leading zero (".25"): shorter numerals print faster."""
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text


def label(value: float, p: SquadronLeaderParams, z: Number) -> OpenSCADObject:
    """The step's value in raised numerals on the face at height z, centred on x = y = 0."""
    text = centred_text(label_text(value), LABEL_HEIGHT_MM, p.text.stroke_mm)
    return translate([0, 0, z - EPSILON_MM])(
        linear_extrude(height=LABEL_RAISE_MM + EPSILON_MM)(text)
    )


def _centred_box(length: Number, width: Number, height: Number) -> OpenSCADObject:
    return translate([-length / 2, -width / 2, 0])(cube([length, width, height]))


def _section(mesh: trimesh.Trimesh, z: float) -> shapely.MultiPolygon:
    return meshgeo.section(mesh, z)


# ---- peg in socket ---------------------------------------------------------------------------


def socket_step(design: SquadronLeaderDesign, value: float) -> OpenSCADObject:
    """A round tile with one token socket cut up from its underside, as under every
    token; the label sits on the roof over the socket."""
    p = design.params
    height = p.stacking.socket_depth_mm + SOCKET_ROOF_MM
    tile = linear_extrude(height=height)(circle(d=PEG_TILE_MM))
    return union()(difference()(tile, plane_token.one_socket(p)), label(value, p, height))


def peg_mate(design: SquadronLeaderDesign) -> OpenSCADObject:
    """One altitude-token peg standing on a small tile."""
    p = design.params
    length, width, height = PEG_BASE_MM
    return union()(
        _centred_box(length, width, height), translate([0, 0, height])(altitude_token.one_peg(p))
    )


def measure_peg(
    _design: SquadronLeaderDesign, step: trimesh.Trimesh, mate: trimesh.Trimesh
) -> float:
    """Socket minus peg on the diameter: twice the gap between them at equal heights."""
    socket_side = _section(step, PROBE_MM)
    peg = _section(mate, PEG_BASE_MM[2] + PROBE_MM)
    return 2 * signed_gap(peg, socket_side)


# ---- ruler joint -----------------------------------------------------------------------------


def _slot_stub_length(p: SquadronLeaderParams) -> Number:
    return (
        p.ruler.tab_length_mm + p.ruler.joint_clearance_mm + 2 * JOINT_MARGIN_MM + LABEL_HEIGHT_MM
    )


def _joint_slab(shape: JointShape, body: OpenSCADObject) -> OpenSCADObject:
    """The bottom JOINT_THICKNESS_MM of a joint solid: the outline the side clearance acts on,
    under the snap ridges at mid-height (they hold the real joint down; the coupon tests the
    side fit)."""
    slab = translate([-50, -50, 0])(cube([100, 100, JOINT_THICKNESS_MM]))
    return intersection()(body, slab) if shape.thickness > JOINT_THICKNESS_MM else body


def slot_step(design: SquadronLeaderDesign, value: float) -> OpenSCADObject:
    """A ruler stub with the real slot at its near end (x = 0), as on sections 2 and 3."""
    p = design.params
    shape = joint_shape(p.ruler)
    width = p.ruler_width_mm
    length = _slot_stub_length(p)
    stub = translate([0, -width / 2, 0])(cube([length, width, JOINT_THICKNESS_MM]))
    slot = joint_slot(shape, value, p.ruler.joint_axial_clearance_mm)
    at = length - JOINT_MARGIN_MM - LABEL_HEIGHT_MM / 2
    numerals = translate([at, 0, 0])(rotate([0, 0, 90])(label(value, p, JOINT_THICKNESS_MM)))
    return union()(difference()(stub, slot), numerals)


def tab_mate(design: SquadronLeaderDesign) -> OpenSCADObject:
    """A ruler stub ending in the real tab (shoulder at x = 0), as on sections 1 and 2."""
    p = design.params
    shape = joint_shape(p.ruler)
    width = p.ruler_width_mm
    stub = translate([-JOINT_BODY_MM, -width / 2, 0])(
        cube([JOINT_BODY_MM, width, JOINT_THICKNESS_MM])
    )
    return union()(stub, _joint_slab(shape, joint_tab(shape, 0)))


def measure_slot(
    _design: SquadronLeaderDesign, step: trimesh.Trimesh, mate: trimesh.Trimesh
) -> float:
    """Tab to slot wall, per side, with the shoulders butted: how far the slot moves
    sideways before it meets the tab (the ruler's own measure)."""
    return measure_joint(mate, step, ("left", "right")).lateral_mm


# ---- stat clip on its card -------------------------------------------------------------------


def clip_step(design: SquadronLeaderDesign, value: float) -> OpenSCADObject:
    """A short slice of the stat clip's own profile, with a flat label tag on its back
    (away from the card). The window and the detent bump are left off: the coupon tests
    the gap the clip slides with."""
    p = design.params
    d = p.stat_dial
    spine_outer = -value - d.clip_spine_thickness_mm
    middle = d.card_thickness_mm / 2
    length, width, height = CLIP_TAG_MM
    tag = translate([spine_outer - length, middle - width / 2, 0])(
        cube([length + EPSILON_MM, width, height])
    )
    numerals = translate([spine_outer - length / 2, middle, 0])(label(value, p, height))
    profile = clip_profile(clip_shape(dial_layout(p)), value)
    return union()(linear_extrude(height=CLIP_WIDTH_MM)(profile), tag, numerals)


def card_mate(design: SquadronLeaderDesign) -> OpenSCADObject:
    """A stub of one card finger, as thick and as wide as the card's rows."""
    d = design.params.stat_dial
    return cube([CARD_STUB_MM, d.row_width_mm, d.card_thickness_mm])


def measure_clip(
    design: SquadronLeaderDesign, step: trimesh.Trimesh, mate: trimesh.Trimesh
) -> float:
    """The clip's opening between its jaws (away from the window and the bump) less the
    card's thickness, halved: the running gap on each face the clip slides with."""
    layout = design.dial
    across = shapely.LineString([(layout.jaw_length / 2, -1e3), (layout.jaw_length / 2, 1e3)])
    jaws = _section(step, CLIP_WIDTH_MM / 2).intersection(across)
    spans = sorted(shapely.get_coordinates(jaws)[:, 1].tolist())
    if len(spans) < 4:
        return float("nan")
    opening = spans[2] - spans[1]
    return (opening - float(mate.extents[2])) / 2


# ---- lid in box ------------------------------------------------------------------------------


def _lid_box(p: SquadronLeaderParams) -> tuple[Number, Number, Number]:
    """The small box whose top the lid coupons drop into: the real box's corner radius."""
    _length, _width, radius = box_lid.box_outer(p)
    return LID_BOX_MM[0], LID_BOX_MM[1], smin(radius, LID_COUPON_RADIUS_MM)


def lid_step(design: SquadronLeaderDesign, value: float) -> OpenSCADObject:
    """The box's tongue on a small box (the real rule: box_lid.tongue_outline), a thin
    plate that the lid's lip (the mate) drops over."""
    p = design.params
    plate = linear_extrude(height=LID_COUPON_THICKNESS_MM)(
        rounded_rectangle(*box_lid.tongue_outline(p, _lid_box(p)))
    )
    return union()(plate, label(value, p, LID_COUPON_THICKNESS_MM))


def lid_mate(design: SquadronLeaderDesign) -> OpenSCADObject:
    """The lid's lip on a small box: the outline less the lip's width (box.rim_mm, as the
    real lid's lip) over a ledge."""
    p = design.params
    length, width, radius = _lid_box(p)
    rim, wall = p.box.rim_mm, p.box.wall_mm
    height = LEDGE_MM + LID_COUPON_THICKNESS_MM
    body = linear_extrude(height=height)(rounded_rectangle(length, width, radius))
    opening = translate([0, 0, -EPSILON_MM])(
        linear_extrude(height=height + 2 * EPSILON_MM)(
            rounded_rectangle(length - 2 * wall, width - 2 * wall, radius - wall)
        )
    )
    rebate = translate([0, 0, LEDGE_MM])(
        linear_extrude(height=LID_COUPON_THICKNESS_MM + EPSILON_MM)(
            rounded_rectangle(length - 2 * rim, width - 2 * rim, radius - rim)
        )
    )
    return difference()(body, opening, rebate)


def measure_lid(
    _design: SquadronLeaderDesign, step: trimesh.Trimesh, mate: trimesh.Trimesh
) -> float:
    """Lid edge to rebate wall, per side, the lid resting on the ledge."""
    lid = _section(step, LID_COUPON_THICKNESS_MM / 2)
    frame = _section(mate, LEDGE_MM + LID_COUPON_THICKNESS_MM / 2)
    return signed_gap(lid, frame)


COUPONS = (
    Coupon(
        fit="peg",
        key="stacking.peg_socket_clearance_mm",
        title="altitude peg in its socket (on the diameter)",
        step=socket_step,
        mate=peg_mate,
        measure=measure_peg,
        fit_range="checks.stack_fit",
        sides=2,
        how="press the peg tile into each socket tile: choose the tightest that lifts off freely",
    ),
    Coupon(
        fit="joint",
        key="ruler.joint_clearance_mm",
        title="range ruler joint, tab in slot (per side)",
        step=slot_step,
        mate=tab_mate,
        measure=measure_slot,
        fit_range="checks.ruler_joint_fit",
        how="slide the tab into each slot from above: choose the tightest that seats by hand",
    ),
    Coupon(
        fit="clip",
        key="stat_dial.clip_clearance_mm",
        title="stat clip on its card (per side)",
        step=clip_step,
        mate=card_mate,
        measure=measure_clip,
        fit_range="checks.clip_fit",
        how="slide each clip along the card stub: choose the tightest that slides freely",
    ),
    Coupon(
        fit="lid",
        key="box.lid_clearance_mm",
        title="lid's lip over the box's tongue (per side)",
        step=lid_step,
        mate=lid_mate,
        measure=measure_lid,
        fit_range="checks.lid_fit",
        how="drop the lip frame over each tongue plate: the tightest that drops on and lifts off",
    ),
)

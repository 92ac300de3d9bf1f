"""Squadron Leader's fits as tolerance coupons (`squadron-cad tolerance`).

Each fit prints once as its mate (the piece that does not change with the clearance) and
once per ladder step as a small piece cut by the part modules' own geometry (one socket,
the lid's outline; the ruler's slot and the stat clip are the components' coupons, which
Squadrons shares) with only the clearance parameter
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
    linear_extrude,
    translate,
    union,
)
from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks import meshgeo
from squadron_cad.checks.fits import signed_gap
from squadron_cad.components import coupon_label
from squadron_cad.components.ruler_joint.coupon import joint_coupon
from squadron_cad.components.stat_card.coupon import clip_coupon
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.components.tray_lid.coupon import (
    SMALL_BOX_MM,
    SMALL_RADIUS_MM,
    lid_fit_coupon,
    lip_frame,
    tongue_plate,
)
from squadron_cad.geometry.expr import Number, smin
from squadron_cad.kit import Coupon
from squadron_cad.kits.squadron_leader.geometry.lid import box_outer
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import (
    altitude_token,
    plane_token,
)

if TYPE_CHECKING:
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

PROBE_MM = 0.3  # sections are taken this far above a piece's base

PEG_TILE_MM = 5.4  # the round socket tile's diameter; its label sits over the socket
SOCKET_ROOF_MM = 0.4
PEG_BASE_MM = (5.0, 5.0, 0.8)  # the peg's tile


def label(value: float, p: SquadronLeaderParams, z: Number) -> OpenSCADObject:
    """The step's value in raised numerals on the face at height z, centred on x = y = 0."""
    return coupon_label.label(value, p.text.stroke_mm, z)


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


# ---- lid in box ------------------------------------------------------------------------------


def _lid_box(p: SquadronLeaderParams) -> tuple[Number, Number, Number]:
    """The small box whose top the lid coupons drop into: the real box's corner radius."""
    _length, _width, radius = box_outer(p)
    return SMALL_BOX_MM[0], SMALL_BOX_MM[1], smin(radius, SMALL_RADIUS_MM)


def lid_step(design: SquadronLeaderDesign, value: float) -> OpenSCADObject:
    """The box's tongue on a small box (the real rule: the outline less the lid's lip and
    its clearance, box_lid.tongue_outline), a thin plate the lid's lip (the mate) drops over."""
    p = design.params
    inset = p.box.rim_mm + p.box.lid_clearance_mm
    return tongue_plate(_lid_box(p), inset, value, p.text.stroke_mm)


def lid_mate(design: SquadronLeaderDesign) -> OpenSCADObject:
    """The lid's lip on a small box: the outline less the lip's width (box.rim_mm, as the
    real lid's lip) over a ledge."""
    p = design.params
    return lip_frame(_lid_box(p), p.box.wall_mm, p.box.rim_mm)


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
    joint_coupon(lambda design: design.params.ruler, lambda design: design.params.ruler_width_mm),
    # The clip's profile needs only the card's section (not the mark the card carries).
    clip_coupon(lambda design: DialLayout(design.params.stat_dial, design.params.text)),
    lid_fit_coupon("box.lid_clearance_mm", lid_step, lid_mate),
)

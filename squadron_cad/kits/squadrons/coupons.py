"""The kit's fits as tolerance coupons (`squadron-cad tolerance --kit squadrons`): the
components' own (the ruler's joint, the tracker's clip, the box's lid), cut from the
parts' geometry with only the clearance set to each step's value."""

from __future__ import annotations

from squadron_cad.components.ruler_joint.coupon import joint_coupon
from squadron_cad.components.stat_card.coupon import clip_coupon
from squadron_cad.components.stat_card.shape import DialLayout
from squadron_cad.components.tray_lid.coupon import lid_coupon

COUPONS = (
    joint_coupon(lambda design: design.params.ruler, lambda design: design.params.ruler.width_mm),
    # The clip's profile needs only the card's section (not the tag the tracker carries).
    clip_coupon(lambda design: DialLayout(design.params.stat_dial, design.params.text)),
    lid_coupon(lambda design: (design.params.tin, design.params.box), "box"),
)

"""The label every component's tolerance coupon carries: its step's value in raised
numerals (`squadron-cad tolerance`)."""

from __future__ import annotations

from solid2 import linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.geometry.expr import Number
from squadron_cad.geometry.shapes import EPSILON_MM, centred_text

LABEL_HEIGHT_MM = 2.5  # numerals: the norm's least letter is 2 mm
LABEL_RAISE_MM = 0.2  # one layer: a colour change at it or a glance shows the numerals


def label_text(value: float) -> str:
    """The value in mm, without the leading zero (".25"): shorter numerals print faster."""
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text


def label(value: float, stroke: Number, z: Number) -> OpenSCADObject:
    """The step's value in raised numerals on the face at height z, centred on x = y = 0."""
    text = centred_text(label_text(value), LABEL_HEIGHT_MM, stroke)
    return translate([0, 0, z - EPSILON_MM])(
        linear_extrude(height=LABEL_RAISE_MM + EPSILON_MM)(text)
    )

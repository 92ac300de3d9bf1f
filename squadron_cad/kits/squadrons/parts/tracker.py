"""The ship tracker: the stat card component (squadron_cad.components.stat_card) with a
Command row and a Hit Points row, 0..6, and its clip."""

from __future__ import annotations

from typing import Any

from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.stat_card import shape
from squadron_cad.components.stat_card.shape import DialLayout


def tracker_layout(p: Any) -> DialLayout:
    return DialLayout(p.stat_dial, p.text)


def build_card(design: Any) -> OpenSCADObject:
    return shape.card(tracker_layout(design.params))


def build_clip(design: Any) -> OpenSCADObject:
    return shape.clip(tracker_layout(design.params))

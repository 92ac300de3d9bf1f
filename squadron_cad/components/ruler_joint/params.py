"""The parameter section of a sectioned ruler: its strip, its marks and its snap joint.

A kit embeds it under its own key (both kits today: `ruler`) and adds its own fields; the
messages name keys under that section.
"""

from __future__ import annotations

from typing import Annotated

from squadron_cad.fit.shortfall import mm_down_to_hundredth
from squadron_cad.geometry.expr import Number
from squadron_cad.params import LENGTH_EPSILON_MM, Mm, Section, mm

SIDE_WALL_MIN_MM = 0.8  # slot wall left beside the tab's head


class SectionedRulerParams(Section):
    thickness_mm: Annotated[Mm, mm("Thickness of the range ruler", 1, 20)]
    mark_width_mm: Annotated[Mm, mm("Width of the range marks", 0.3, 5)]
    mark_depth_mm: Annotated[Mm, mm("Depth of the range marks", 0.2, 5)]
    numeral_height_mm: Annotated[Mm, mm("Height of the range numerals", 1, 30)]
    tab_width_mm: Annotated[Mm, mm("Joint tab width at its root (its neck)", 0.8, 30)]
    tab_length_mm: Annotated[Mm, mm("Joint tab length: neck, then head, half each", 0.8, 30)]
    tab_flare_mm: Annotated[
        Mm,
        mm(
            "The tab's head is this much wider than its neck, per side: the shoulders the "
            "pull bears on",
            0,
            5,
            allow_zero=True,
        ),
    ]
    joint_clearance_mm: Annotated[
        Mm, mm("Gap between tab and slot, per side", 0, 1, allow_zero=True)
    ]
    joint_axial_clearance_mm: Annotated[
        Mm,
        mm(
            "Gap where the tab's head bears when the ruler is pulled: each joint stretches "
            "this much",
            0,
            1,
            allow_zero=True,
        ),
    ]
    joint_snap_mm: Annotated[
        Mm,
        mm(
            "How far the snap ridges stand out from the tab's neck; past the joint clearance "
            "they hold the sections together until pushed apart",
            0,
            2,
            allow_zero=True,
        ),
    ]

    @property
    def tab_tip_width_mm(self) -> Number:
        return self.tab_width_mm + 2 * self.tab_flare_mm


def check_joint(
    ruler: SectionedRulerParams, width_mm: Number, width_source: str, section_mm: Number
) -> None:
    """The joint's cross-field rules in a ruler `width_mm` wide (`width_source` says where
    that width comes from) whose sections are `section_mm` long: a ValueError naming the
    keys when a rule is broken."""
    side_wall = (width_mm - ruler.tab_tip_width_mm - 2 * ruler.joint_clearance_mm) / 2
    if side_wall < SIDE_WALL_MIN_MM - LENGTH_EPSILON_MM:
        raise ValueError(
            f"ruler.tab_width_mm ({ruler.tab_width_mm}) + 2 x ruler.tab_flare_mm "
            f"({ruler.tab_flare_mm}) + 2 x ruler.joint_clearance_mm "
            f"({ruler.joint_clearance_mm}) leaves {mm_down_to_hundredth(side_wall)} mm of slot "
            f"wall "
            f"in a {mm_down_to_hundredth(width_mm)} mm ruler ({width_source}); "
            f"{SIDE_WALL_MIN_MM:g} mm is needed"
        )
    if ruler.tab_flare_mm <= ruler.joint_clearance_mm:
        raise ValueError(
            f"ruler.tab_flare_mm ({ruler.tab_flare_mm}) must exceed ruler.joint_clearance_mm "
            f"({ruler.joint_clearance_mm}): the tab's head catches on the slot's shoulders "
            "only by the difference, or the ruler pulls apart"
        )
    if (
        not ruler.joint_clearance_mm
        < ruler.joint_snap_mm
        < (ruler.tab_flare_mm + ruler.joint_clearance_mm)
    ):
        raise ValueError(
            f"ruler.joint_snap_mm ({ruler.joint_snap_mm}) must exceed ruler.joint_clearance_mm "
            f"({ruler.joint_clearance_mm}), or the sections lift apart, and stay under "
            f"ruler.tab_flare_mm + ruler.joint_clearance_mm, or the tab cannot drop in"
        )
    if ruler.joint_axial_clearance_mm >= ruler.tab_length_mm / 2:
        raise ValueError(
            f"ruler.joint_axial_clearance_mm ({ruler.joint_axial_clearance_mm}) must be under "
            f"half of ruler.tab_length_mm ({ruler.tab_length_mm})"
        )
    if ruler.tab_length_mm >= section_mm / 2:
        raise ValueError(
            f"ruler.tab_length_mm ({ruler.tab_length_mm}) must be under half a ruler part"
        )
    if ruler.mark_depth_mm > ruler.thickness_mm - 1:
        raise ValueError(
            f"ruler.mark_depth_mm ({ruler.mark_depth_mm}) must leave 1 mm of "
            f"ruler.thickness_mm ({ruler.thickness_mm})"
        )

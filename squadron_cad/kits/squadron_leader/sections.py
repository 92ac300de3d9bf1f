"""Squadron Leader's parameter sections, and the sizes derived from them.

Each section validates on its own; `SquadronLeaderSections` gathers them with the sizes the
rules derive from the token width (`constants` names the ratios). The cross-section rules
(`rules`) and the defaults that follow the token (`following`) read this module, and
`params.SquadronLeaderParams` runs them: this module sits below all three.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from squadron_cad.components.ruler_joint.params import SectionedRulerParams
from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.geometry.expr import Number, cos_deg, smin, sqrt
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.params import (
    ChecksParams,
    Deg,
    DiceParams,
    FitRange,
    KitParamsBase,
    Mm,
    Section,
    TinParams,
    check_font,
    deg,
    mm,
    ratio,
)

TOKEN_WIDTH_RANGE_MM = (16, 120)  # every width in it builds with the defaults (following.py)


class TokenParams(Section):
    width_mm: Annotated[
        Mm,
        mm(
            "Octagon width across the corners (any width in range builds with the defaults, "
            "which follow it)",
            TOKEN_WIDTH_RANGE_MM[0],
            TOKEN_WIDTH_RANGE_MM[1],
        ),
    ]
    height_mm: Annotated[Mm, mm("Thickness of every token", 1.5, 20)]
    bottom_chamfer_mm: Annotated[
        Mm, mm("Chamfer on the bottom edge against elephant's foot", 0, 1.5, allow_zero=True)
    ]

    @property
    def radius_mm(self) -> Number:
        return self.width_mm / 2

    @property
    def across_flats_mm(self) -> Number:
        return self.width_mm * cos_deg(constants.OCTAGON_CORNER_OFFSET_DEG)

    @model_validator(mode="after")
    def _chamfer_fits(self) -> TokenParams:
        if self.bottom_chamfer_mm > self.height_mm / 4:
            raise ValueError(
                f"token.bottom_chamfer_mm ({self.bottom_chamfer_mm}) must be at most a quarter "
                f"of token.height_mm ({self.height_mm})"
            )
        return self


class PlaneParams(Section):
    silhouette_length_mm: Annotated[Mm, mm("Plane silhouette length, nose to tail", 3, 120)]
    silhouette_span_mm: Annotated[Mm, mm("Plane silhouette wingspan", 3, 120)]
    silhouette_height_mm: Annotated[Mm, mm("How far the silhouette stands proud", 0.2, 5)]
    groove_width_mm: Annotated[Mm, mm("Width of the firing-arc and guide grooves", 0.4, 5)]
    groove_depth_mm: Annotated[Mm, mm("Depth of the firing-arc and guide grooves", 0.2, 5)]
    guide_start_mm: Annotated[
        Mm, mm("Forward guides start this far ahead of the centre", 0, 60, allow_zero=True)
    ]
    hollow_depth_mm: Annotated[
        Mm,
        mm(
            "Depth of the hidden recess under the token centre (saves filament; 0 = solid)",
            0,
            20,
            allow_zero=True,
        ),
    ]


class StackingParams(Section):
    peg_diameter_mm: Annotated[Mm, mm("Peg diameter at its base", 0.8, 20)]
    peg_height_mm: Annotated[Mm, mm("How far a peg stands proud", 0.3, 10)]
    peg_tip_diameter_mm: Annotated[Mm, mm("Flat tip of the tapered peg", 0, 20, allow_zero=True)]
    peg_socket_clearance_mm: Annotated[
        Mm, mm("Socket minus peg, on the diameter", 0, 2, allow_zero=True)
    ]
    socket_extra_depth_mm: Annotated[
        Mm, mm("Socket deeper than the peg is tall, so faces seat flat", 0, 3, allow_zero=True)
    ]
    socket_chamfer_mm: Annotated[
        Mm, mm("Chamfer at the socket mouth against elephant's foot", 0, 1, allow_zero=True)
    ]
    facets: Annotated[int, Field(ge=6, le=64, description="Facets around a peg or socket")]

    @property
    def socket_diameter_mm(self) -> Number:
        return self.peg_diameter_mm + self.peg_socket_clearance_mm

    @property
    def socket_depth_mm(self) -> Number:
        return self.peg_height_mm + self.socket_extra_depth_mm

    @property
    def peg_taper_mm(self) -> Number:
        """Radius lost per mm of height along the peg's side."""
        return (self.peg_diameter_mm - self.peg_tip_diameter_mm) / 2 / self.peg_height_mm

    @property
    def socket_tip_diameter_mm(self) -> Number:
        return self.socket_diameter_mm - 2 * self.peg_taper_mm * self.socket_depth_mm

    @model_validator(mode="after")
    def _peg_shape(self) -> StackingParams:
        if self.peg_tip_diameter_mm >= self.peg_diameter_mm:
            raise ValueError(
                f"stacking.peg_tip_diameter_mm ({self.peg_tip_diameter_mm}) must be smaller "
                f"than stacking.peg_diameter_mm ({self.peg_diameter_mm})"
            )
        if self.socket_tip_diameter_mm < 0:
            raise ValueError(
                "stacking.socket_extra_depth_mm is too deep for the peg's taper: the socket "
                "would close before its bottom; lower it or raise stacking.peg_tip_diameter_mm"
            )
        side_angle = math.degrees(math.atan(self.peg_taper_mm))
        if side_angle > 60:
            raise ValueError(
                f"the peg's side leans {side_angle:.0f} deg: stacking.peg_height_mm "
                f"({self.peg_height_mm}) is too low for stacking.peg_diameter_mm "
                f"({self.peg_diameter_mm}) minus stacking.peg_tip_diameter_mm; a peg that flat "
                "does not locate"
            )
        return self


class AltitudeParams(Section):
    hole_scale: Annotated[float, ratio("Centre hole as a fraction of the octagon", 0, 0.9)]


class MarkParams(Section):
    """Each player's mark (player_colours.mark): raised on the plane token beside the
    silhouette, and standing in a recess, flush with the top, on the altitude tokens
    (their top carries the token above) and the stat card (the clips slide over it)."""

    plane_size_mm: Annotated[
        Mm, mm("Player mark on the plane token, across (at most: less on a small token)", 2, 10)
    ]
    token_size_mm: Annotated[
        Mm,
        mm(
            "Player mark on altitude tokens and stat card, across (at most: less where the "
            "ring or the label column is narrower)",
            2,
            10,
        ),
    ]
    frame_mm: Annotated[Mm, mm("Recess around a flush mark, each side", 0.3, 2)]


class TemplateParams(Section):
    thickness_mm: Annotated[Mm, mm("Thickness of the move templates", 1, 20)]
    notch_clearance_mm: Annotated[
        Mm, mm("Notch larger than the token, per side", 0, 2, allow_zero=True)
    ]
    bank_angle_deg: Annotated[Deg, deg("Heading change of a bank", 0, 90)]
    turn_angle_deg: Annotated[Deg, deg("Heading change of a turn", 0, 180)]
    chevron_width_mm: Annotated[Mm, mm("Chevron width across the template", 1, 60)]
    chevron_length_mm: Annotated[Mm, mm("Chevron depth along the travel", 0.5, 40)]
    chevron_stroke_mm: Annotated[Mm, mm("Chevron arm width", 0.4, 10)]
    chevron_pitch_mm: Annotated[Mm, mm("Spacing of the cost chevrons", 0.5, 40)]
    guide_groove_width_mm: Annotated[Mm, mm("Edge grooves on the all-in-one template", 0.2, 5)]
    guide_groove_depth_mm: Annotated[Mm, mm("Depth of those grooves, on each face", 0.2, 5)]

    @model_validator(mode="after")
    def _chevrons_fit(self) -> TemplateParams:
        if self.chevron_stroke_mm * 2 > self.chevron_width_mm:
            raise ValueError(
                f"templates.chevron_stroke_mm ({self.chevron_stroke_mm}) must be at most half "
                f"of templates.chevron_width_mm ({self.chevron_width_mm})"
            )
        if self.chevron_stroke_mm > self.chevron_length_mm:
            raise ValueError(
                f"templates.chevron_stroke_mm ({self.chevron_stroke_mm}) must be at most "
                f"templates.chevron_length_mm ({self.chevron_length_mm})"
            )
        if self.guide_groove_depth_mm * 2 >= self.thickness_mm:
            raise ValueError(
                f"templates.guide_groove_depth_mm ({self.guide_groove_depth_mm}) is cut from "
                f"both faces, so it must be under half of templates.thickness_mm "
                f"({self.thickness_mm})"
            )
        return self


class BoxParams(Section):
    tin_clearance_mm: Annotated[
        Mm, mm("Gap between box and tin on every side and at the top", 0, 10, allow_zero=True)
    ]
    wall_mm: Annotated[Mm, mm("Box wall thickness", 0.8, 10)]
    floor_mm: Annotated[Mm, mm("Box floor thickness", 0.4, 10)]
    lid_thickness_mm: Annotated[Mm, mm("Thickness of the lid's top (the tray's floor)", 0.6, 10)]
    lid_tray_depth_mm: Annotated[
        Mm,
        mm(
            "Depth of the lid turned over as a dice tray (its rim above its floor); at least "
            "6, and half a rolled die's size keeps it in",
            6,
            60,
        ),
    ]
    lid_lip_mm: Annotated[
        Mm, mm("Height of the lip locating the lid on the box wall (the box's tongue)", 0.6, 10)
    ]
    lid_clearance_mm: Annotated[
        Mm, mm("Gap between the lid's lip and the box's tongue, per side", 0, 1, allow_zero=True)
    ]
    rim_mm: Annotated[
        Mm, mm("Thickness of the lid's lip, lapping the box's tongue from outside", 0.4, 10)
    ]
    pocket_clearance_mm: Annotated[
        Mm, mm("Gap around each item in its pocket, per side", 0, 3, allow_zero=True)
    ]
    divider_mm: Annotated[Mm, mm("Thickness of pocket walls", 0.4, 10)]
    divider_height_mm: Annotated[Mm, mm("Height of pocket walls above the floor", 0.5, 100)]
    headroom_mm: Annotated[
        Mm, mm("Gap between the tallest item and the lid", 0, 10, allow_zero=True)
    ]
    max_rattle_mm: Annotated[
        Mm,
        mm(
            "Most free travel a stowed piece may have in the closed box, up and sideways",
            0.1,
            20,
        ),
    ]
    title: Annotated[str, Field(max_length=40, description="Text engraved on the lid")]
    title_height_mm: Annotated[Mm, mm("Height of the lid title letters", 2, 40)]
    leave_out: Annotated[
        tuple[Literal["template", "dice", "ruler", "dials"], ...],
        Field(
            strict=False,
            max_length=4,
            description="Pieces carried outside the box, for a tin too small to hold them",
        ),
    ]

    @model_validator(mode="after")
    def _rim_fits(self) -> BoxParams:
        check_font("box.title", self.title)
        if self.rim_mm + self.lid_clearance_mm >= self.wall_mm:
            raise ValueError(
                f"box.rim_mm ({self.rim_mm}) plus box.lid_clearance_mm "
                f"({self.lid_clearance_mm}) must be less than box.wall_mm ({self.wall_mm}): "
                "the rest of the wall is the box's tongue the lid's lip laps"
            )
        once = list(dict.fromkeys(self.leave_out))
        if len(once) < len(self.leave_out):
            twice = next(piece for piece in once if self.leave_out.count(piece) > 1)
            raise ValueError(
                f"box.leave_out ([{', '.join(self.leave_out)}]) names {twice} more than once: "
                f"name each piece once, e.g. [{', '.join(once)}]"
            )
        return self


class SquadronChecksParams(ChecksParams):
    """The engine's check limits plus the clearance range of each of this kit's fits."""

    stack_fit: FitRange
    ruler_joint_fit: FitRange
    clip_fit: FitRange
    lid_fit: FitRange


WALL_MM = 0.8  # least wall the rules leave around a socket, a slot, a hole: two perimeters
MOUTH_WALL_MM = 0.4  # least wall at a socket's chamfered mouth


def peg_circle_radius(token: Any, socket_diameter: Number, socket_chamfer: Number) -> Number:
    """Where the pegs and sockets stand: sqrt(2) * width / 4 (the reference design), moved
    inward on a token too small to leave a socket WALL_MM of wall to its edge."""
    edge = token.across_flats_mm / 2 - WALL_MM - socket_diameter / 2 - socket_chamfer
    return smin(sqrt(2) * token.width_mm / 4, edge)


class SquadronLeaderSections(KitParamsBase):
    """Every section of a Squadron Leader build, and the sizes derived from them
    (params.SquadronLeaderParams adds the rules across sections)."""

    token: TokenParams
    plane: PlaneParams
    stacking: StackingParams
    altitude: AltitudeParams
    marks: MarkParams
    templates: TemplateParams
    ruler: SectionedRulerParams
    stat_dial: StatCardParams
    dice: DiceParams
    tin: TinParams
    box: BoxParams
    checks: SquadronChecksParams

    # Sizes the rules derive from the token width (constants names the ratios).
    @property
    def template_length_mm(self) -> Number:
        return self.token.width_mm * constants.TEMPLATE_LENGTH_TOKENS

    @property
    def notch_offset_mm(self) -> Number:
        return self.token.width_mm / constants.NOTCH_OFFSET_DIVISOR

    @property
    def straight_move_mm(self) -> Number:
        return self.template_length_mm + 2 * self.notch_offset_mm

    @property
    def ruler_length_mm(self) -> Number:
        return self.template_length_mm * constants.RULER_LENGTH_TEMPLATES

    @property
    def ruler_width_mm(self) -> Number:
        return self.token.width_mm / constants.RULER_WIDTH_DIVISOR

    @property
    def guide_offset_mm(self) -> Number:
        return self.token.width_mm / constants.GUIDE_OFFSET_DIVISOR

    @property
    def peg_circle_radius_mm(self) -> Number:
        return peg_circle_radius(
            self.token,
            self.stacking.socket_diameter_mm,
            self.stacking.socket_chamfer_mm,
        )

    @property
    def bank_inner_radius_mm(self) -> Number:
        return self.token.width_mm * constants.BANK_INNER_RADIUS_TOKENS

    @property
    def turn_inner_radius_mm(self) -> Number:
        return self.token.width_mm * constants.TURN_INNER_RADIUS_TOKENS

    @property
    def stack_height_mm(self) -> Number:
        """A plane on its altitude tokens, pegs seated, silhouette included."""
        tokens = constants.ALTITUDE_TOKENS_PER_STACK + 1
        return tokens * self.token.height_mm + self.plane.silhouette_height_mm

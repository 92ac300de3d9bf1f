"""Squadron Leader's parameter model: the game's sections on top of the engine's.

Values come from this kit's default.yaml, then a tin preset, any --params files, then --set
overrides (see `squadron_cad.resolve`). Derived sizes are properties computed from the
rules' ratios in `constants`, never typed twice. Cross-field rules raise messages that name
every key involved, because a maker reads them at a terminal.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from squadron_cad.components.ruler_joint.params import SectionedRulerParams, check_joint
from squadron_cad.components.stat_card.params import StatCardParams
from squadron_cad.geometry.expr import Number, cos_deg, sqrt
from squadron_cad.kits.squadron_leader import constants as C
from squadron_cad.params import (
    LENGTH_EPSILON_MM,
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


class TokenParams(Section):
    width_mm: Annotated[Mm, mm("Octagon width across the corners", 12, 120)]
    height_mm: Annotated[Mm, mm("Thickness of every token", 1.5, 20)]
    bottom_chamfer_mm: Annotated[
        Mm, mm("Chamfer on the bottom edge against elephant's foot", 0, 1.5, allow_zero=True)
    ]

    @property
    def radius_mm(self) -> Number:
        return self.width_mm / 2

    @property
    def across_flats_mm(self) -> Number:
        return self.width_mm * cos_deg(C.OCTAGON_CORNER_OFFSET_DEG)

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


PICK_ROOM_MM = 1.0  # least room left on each side of a counter in its hex, to pick it up


class SquadronLeaderParams(KitParamsBase):
    """Everything a Squadron Leader build needs. Sections mirror the kit's default.yaml."""

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
        return self.token.width_mm * C.TEMPLATE_LENGTH_TOKENS

    @property
    def notch_offset_mm(self) -> Number:
        return self.token.width_mm / C.NOTCH_OFFSET_DIVISOR

    @property
    def straight_move_mm(self) -> Number:
        return self.template_length_mm + 2 * self.notch_offset_mm

    @property
    def ruler_length_mm(self) -> Number:
        return self.template_length_mm * C.RULER_LENGTH_TEMPLATES

    @property
    def ruler_width_mm(self) -> Number:
        return self.token.width_mm / C.RULER_WIDTH_DIVISOR

    @property
    def guide_offset_mm(self) -> Number:
        return self.token.width_mm / C.GUIDE_OFFSET_DIVISOR

    @property
    def peg_circle_radius_mm(self) -> Number:
        return sqrt(2) * self.token.width_mm / 4

    @property
    def bank_inner_radius_mm(self) -> Number:
        return self.token.width_mm * C.BANK_INNER_RADIUS_TOKENS

    @property
    def turn_inner_radius_mm(self) -> Number:
        return self.token.width_mm * C.TURN_INNER_RADIUS_TOKENS

    @property
    def stack_height_mm(self) -> Number:
        """A plane on its altitude tokens, pegs seated, silhouette included."""
        tokens = C.ALTITUDE_TOKENS_PER_STACK + 1
        return tokens * self.token.height_mm + self.plane.silhouette_height_mm

    @model_validator(mode="after")
    def _cross_section_rules(self) -> SquadronLeaderParams:
        for rule in _CROSS_RULES:
            rule(self)
        return self


def _sockets_fit_token(kit: SquadronLeaderParams) -> None:
    socket_r = kit.stacking.socket_diameter_mm / 2 + kit.stacking.socket_chamfer_mm
    outer_wall = kit.token.across_flats_mm / 2 - (kit.peg_circle_radius_mm + socket_r)
    if outer_wall < 0.8:
        raise ValueError(
            f"stacking.peg_diameter_mm ({kit.stacking.peg_diameter_mm}) with its clearance and "
            f"chamfer leaves {outer_wall:.2f} mm of wall to the token edge at token.width_mm "
            f"({kit.token.width_mm}); at least 0.8 mm is needed"
        )
    if kit.stacking.socket_depth_mm > kit.token.height_mm - 0.8:
        raise ValueError(
            f"stacking.peg_height_mm + stacking.socket_extra_depth_mm "
            f"({float(kit.stacking.socket_depth_mm):g}) must leave 0.8 mm under a socket in "
            f"token.height_mm ({kit.token.height_mm})"
        )


def _hole_clears_sockets(kit: SquadronLeaderParams) -> None:
    hole_half = kit.token.across_flats_mm * kit.altitude.hole_scale / 2
    socket_r = kit.stacking.socket_diameter_mm / 2
    wall = kit.peg_circle_radius_mm - socket_r - hole_half
    mouth_wall = wall - kit.stacking.socket_chamfer_mm
    if wall < 0.8 or mouth_wall < 0.4:
        raise ValueError(
            f"altitude.hole_scale ({kit.altitude.hole_scale}) leaves {wall:.2f} mm between the "
            f"centre hole and the sockets ({mouth_wall:.2f} mm at the chamfered mouth, "
            f"stacking.socket_chamfer_mm {kit.stacking.socket_chamfer_mm}); at least 0.8 mm "
            "(0.4 mm at the mouth) is needed"
        )


def _silhouette_fits(kit: SquadronLeaderParams) -> None:
    flats = kit.token.across_flats_mm
    for key, value in (
        ("plane.silhouette_length_mm", kit.plane.silhouette_length_mm),
        ("plane.silhouette_span_mm", kit.plane.silhouette_span_mm),
    ):
        if value > flats:
            raise ValueError(
                f"{key} ({value}) must fit on the token: at most its width across the flats "
                f"({float(flats):.2f} at token.width_mm {kit.token.width_mm})"
            )
    if kit.plane.groove_depth_mm > kit.token.height_mm - 1:
        raise ValueError(
            f"plane.groove_depth_mm ({kit.plane.groove_depth_mm}) must leave 1 mm of "
            f"token.height_mm ({kit.token.height_mm})"
        )
    if kit.plane.hollow_depth_mm and (
        kit.plane.hollow_depth_mm + kit.plane.groove_depth_mm > kit.token.height_mm - 0.8
    ):
        raise ValueError(
            f"plane.hollow_depth_mm ({kit.plane.hollow_depth_mm}) plus plane.groove_depth_mm "
            f"({kit.plane.groove_depth_mm}) must leave 0.8 mm of token.height_mm "
            f"({kit.token.height_mm})"
        )
    if kit.plane.guide_start_mm >= flats / 2:
        raise ValueError(
            f"plane.guide_start_mm ({kit.plane.guide_start_mm}) must be inside the token "
            f"(under {float(flats) / 2:.2f} mm from the centre)"
        )


MARK_WALL_MM = 0.4  # least wall left beside a player's mark


MARK_MIN_MM = 2.0  # a smaller mark is not told apart by shape


def plane_mark_mm(kit: SquadronLeaderParams) -> float:
    """The plane token's mark, across: marks.plane_size_mm, or what the top leaves
    beside the silhouette (MARK_WALL_MM inside its edge)."""
    x, y = (float(kit.token.width_mm) * f for f in C.PLANE_MARK_AT_WIDTHS)
    room = 2 * (float(kit.token.across_flats_mm) / 2 - MARK_WALL_MM - math.hypot(x, y))
    return min(float(kit.marks.plane_size_mm), room)


def token_mark_mm(kit: SquadronLeaderParams) -> float:
    """The flush mark of the altitude tokens and the stat card, across: marks.token_size_mm,
    or what the altitude token's ring and the card's label column leave around its recess."""
    ring = float(kit.token.across_flats_mm) * (1 - kit.altitude.hole_scale) / 2
    column = float(kit.stat_dial.label_width_mm)
    room = min(ring, column) - 2 * MARK_WALL_MM - 2 * float(kit.marks.frame_mm)
    return min(float(kit.marks.token_size_mm), room)


def _marks_fit(kit: SquadronLeaderParams) -> None:
    """Each player's mark lies on its face, at least MARK_MIN_MM across: the plane token's
    inside the top, a flush mark's recess inside the altitude token's ring and the stat
    card's label column (a mark shrinks to the room there, down to that least size)."""
    if plane_mark_mm(kit) < MARK_MIN_MM:
        raise ValueError(
            f"the plane token's top leaves {plane_mark_mm(kit):.2f} mm for a player's mark "
            f"beside the silhouette (token.width_mm {kit.token.width_mm}); it needs "
            f"{MARK_MIN_MM:g}: a wider token"
        )
    if token_mark_mm(kit) < MARK_MIN_MM:
        raise ValueError(
            f"the altitude token's ring and stat_dial.label_width_mm leave "
            f"{token_mark_mm(kit):.2f} mm for a player's mark inside marks.frame_mm "
            f"({kit.marks.frame_mm}); it needs {MARK_MIN_MM:g}: a smaller frame or a wider token"
        )


def _ruler_joint_fits(kit: SquadronLeaderParams) -> None:
    ruler = kit.ruler
    check_joint(ruler, kit.ruler_width_mm, "token.width_mm / 4", kit.template_length_mm)
    if ruler.numeral_height_mm > kit.ruler_width_mm - 1:
        raise ValueError(
            f"ruler.numeral_height_mm ({ruler.numeral_height_mm}) must be at least 1 mm less "
            f"than the ruler width ({float(kit.ruler_width_mm):.2f} = token.width_mm / 4)"
        )


def _text_depths_fit(kit: SquadronLeaderParams) -> None:
    thinnest = min(
        ("ruler.thickness_mm", kit.ruler.thickness_mm),
        ("stat_dial.card_thickness_mm", kit.stat_dial.card_thickness_mm),
        ("box.lid_thickness_mm", kit.box.lid_thickness_mm),
        key=lambda item: item[1],
    )
    if kit.text.depth_mm > thinnest[1] - 0.6 + LENGTH_EPSILON_MM:
        raise ValueError(
            f"text.depth_mm ({kit.text.depth_mm}) must leave 0.6 mm under the engraving in "
            f"{thinnest[0]} ({thinnest[1]})"
        )
    dial = kit.stat_dial
    if kit.text.depth_mm + dial.detent_depth_mm > dial.card_thickness_mm - 0.6 + LENGTH_EPSILON_MM:
        raise ValueError(
            f"text.depth_mm ({kit.text.depth_mm}) + stat_dial.detent_depth_mm "
            f"({dial.detent_depth_mm}) must leave 0.6 mm of stat_dial.card_thickness_mm "
            f"({dial.card_thickness_mm})"
        )


def _template_features_fit(kit: SquadronLeaderParams) -> None:
    templates = kit.templates
    if templates.chevron_width_mm > kit.token.width_mm - 2:
        raise ValueError(
            f"templates.chevron_width_mm ({templates.chevron_width_mm}) must leave 1 mm each "
            f"side on a template token.width_mm ({kit.token.width_mm}) wide"
        )
    room = kit.template_length_mm - 2 * (kit.token.across_flats_mm / 2 - kit.notch_offset_mm)
    needed = templates.chevron_length_mm + 2 * templates.chevron_pitch_mm
    if needed > room:
        raise ValueError(
            f"three chevrons (templates.chevron_length_mm {templates.chevron_length_mm} + "
            f"2 x templates.chevron_pitch_mm {templates.chevron_pitch_mm}) need {needed:g} mm "
            f"but only {float(room):.1f} mm lie between the notches"
        )


def _box_fits_tin(kit: SquadronLeaderParams) -> None:
    box, tin = kit.box, kit.tin
    smallest = min(tin.inner_length_mm, tin.inner_width_mm) - 2 * box.tin_clearance_mm
    if smallest < kit.token.width_mm + 2 * box.wall_mm:
        raise ValueError(
            f"the tin (tin.inner_length_mm {tin.inner_length_mm} x tin.inner_width_mm "
            f"{tin.inner_width_mm}) minus box.tin_clearance_mm is smaller than one token "
            f"(token.width_mm {kit.token.width_mm}) in its box walls"
        )
    height = tin.inner_depth_mm - box.tin_clearance_mm
    lid = box.lid_thickness_mm + box.lid_tray_depth_mm + box.lid_lip_mm
    if lid + box.floor_mm >= height:
        need = lid + box.floor_mm
        tray = f"box.lid_tray_depth_mm {box.lid_tray_depth_mm:g}"
        if box.lid_tray_depth_mm <= _least("lid_tray_depth_mm") + LENGTH_EPSILON_MM:
            tray += " (its least)"
        raise ValueError(
            f"the tin is too shallow for the box's lid and floor: box.lid_thickness_mm "
            f"{box.lid_thickness_mm:g} + {tray} + box.lid_lip_mm {box.lid_lip_mm:g} + "
            f"box.floor_mm {box.floor_mm:g} = {need:g} mm, but tin.inner_depth_mm "
            f"{tin.inner_depth_mm:g} less box.tin_clearance_mm {box.tin_clearance_mm:g} leaves "
            f"{height:g} mm; for the lid and floor alone, use a tin deeper than "
            f"{need + box.tin_clearance_mm:g} mm (tin.inner_depth_mm)"
            f"{_shallow_hints(kit, need - height)}"
        )
    if "dice" in box.leave_out:  # carried outside the box: their size asks nothing of it
        return
    # What the stowing solver leaves a die: the tin less its clearance, the floor, the
    # lid and the headroom under it (a die rule looser than that sent makers from one
    # refusal to the next).
    least = (
        kit.dice.size_mm + box.tin_clearance_mm + box.floor_mm + box.lid_thickness_mm
        + box.headroom_mm
    )  # fmt: skip
    if tin.inner_depth_mm < least - LENGTH_EPSILON_MM:
        raise ValueError(
            f"dice.size_mm ({kit.dice.size_mm}) is deeper than the box can hold in "
            f"tin.inner_depth_mm ({tin.inner_depth_mm}) after box.tin_clearance_mm, "
            f"box.floor_mm, box.lid_thickness_mm and box.headroom_mm; try box.leave_out: "
            f"[dice], or for the dice alone a tin at least {least:g} mm deep "
            "(tin.inner_depth_mm)"
        )


_HINTING = False  # set while a refusal's hints are tried, so trying one offers none


def _least(name: str) -> float:
    """A box length's least allowed value (its field's bound)."""
    for bound in BoxParams.model_fields[name].metadata:
        for attr in ("ge", "gt"):
            if getattr(bound, attr, None) is not None:
                return float(getattr(bound, attr))
    return 0.0


def _shallow_hints(kit: SquadronLeaderParams, short: float) -> str:
    """Besides a deeper tin: one box length lowered enough, above its least value, each
    tried on the whole model so only a change that is then accepted is offered (a lid
    tray at its least of 6 is not)."""
    global _HINTING
    if _HINTING:
        return ""
    offered = []
    _HINTING = True
    try:
        for name in ("lid_tray_depth_mm", "lid_lip_mm", "lid_thickness_mm", "floor_mm"):
            value = math.floor((getattr(kit.box, name) - short) * 10 - 1e-6) / 10
            if value < _least(name):
                continue
            data = kit.model_dump()
            data["box"][name] = value
            try:
                type(kit).model_validate(data)
            except ValueError:
                continue
            offered.append(f"box.{name} at most {value:g}")
    finally:
        _HINTING = False
    return "".join(f", or give {hint}" for hint in offered)


def _clearances_reach_their_fits(kit: SquadronLeaderParams) -> None:
    """A clearance under its fit's least value prints tight or fused: refused, not warned."""
    clearances = (  # key, value, sides it is shared between, fit
        ("stacking.peg_socket_clearance_mm", kit.stacking.peg_socket_clearance_mm, 2, "stack_fit"),
        ("ruler.joint_clearance_mm", kit.ruler.joint_clearance_mm, 1, "ruler_joint_fit"),
        ("stat_dial.clip_clearance_mm", kit.stat_dial.clip_clearance_mm, 1, "clip_fit"),
        ("box.lid_clearance_mm", kit.box.lid_clearance_mm, 1, "lid_fit"),
        ("box.pocket_clearance_mm", kit.box.pocket_clearance_mm, 1, "pocket_fit"),
    )
    for key, value, sides, fit_key in clearances:
        least = getattr(kit.checks, fit_key).min_mm
        if value <= 0 or value / sides < least - LENGTH_EPSILON_MM:
            on_diameter = " on the diameter" if sides == 2 else ""
            raise ValueError(
                f"{key} ({float(value):g}{on_diameter}) is under checks.{fit_key}.min_mm "
                f"({least:g} per side): the parts would print fused or too tight; "
                f"give at least {max(least * sides, 0.01):g}"
            )


def _text_meets_the_norms(kit: SquadronLeaderParams) -> None:
    """Engraving below the checks' limits would fail every build: refused up front."""
    checks = kit.checks
    texts = (
        ("text.depth_mm", kit.text.depth_mm, "min_text_depth_mm"),
        ("text.stroke_mm", kit.text.stroke_mm, "min_text_stroke_mm"),
        ("ruler.numeral_height_mm", kit.ruler.numeral_height_mm, "min_text_height_mm"),
        ("stat_dial.numeral_height_mm", kit.stat_dial.numeral_height_mm, "min_text_height_mm"),
        ("box.title_height_mm", kit.box.title_height_mm, "min_text_height_mm"),
    )
    for key, value, limit in texts:
        least = getattr(checks, limit)
        if value < least - LENGTH_EPSILON_MM:
            raise ValueError(
                f"{key} ({value:g}) is under checks.{limit} ({least:g}): engraving that small "
                f"does not print legibly; give at least {least:g}"
            )


def _hex_holds_the_counter(kit: SquadronLeaderParams) -> None:
    """A plane counter, or the printed token at any turn, must fit its hex with room."""
    least = kit.token.width_mm + 2 * PICK_ROOM_MM
    if kit.paper.hex_across_flats_mm < least - LENGTH_EPSILON_MM:
        raise ValueError(
            f"paper.hex_across_flats_mm ({kit.paper.hex_across_flats_mm:g}) is smaller than "
            f"the plane counter: it must be at least token.width_mm ({kit.token.width_mm:g}) "
            f"+ {2 * PICK_ROOM_MM:g} mm ({least:g}) so a counter fits with room to pick it up"
        )


_CROSS_RULES = (
    _clearances_reach_their_fits,
    _text_meets_the_norms,
    _sockets_fit_token,
    _hole_clears_sockets,
    _silhouette_fits,
    _marks_fit,
    _ruler_joint_fits,
    _text_depths_fit,
    _template_features_fit,
    _box_fits_tin,
    _hex_holds_the_counter,
)

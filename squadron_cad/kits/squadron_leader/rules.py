"""Squadron Leader's cross-section rules: each refuses, in one line naming every key
involved, a combination of parameters the parts cannot be built from (`SquadronLeaderParams` runs
them all after its sections validate)."""

from __future__ import annotations

import math

from squadron_cad.components.ruler_joint.params import check_joint
from squadron_cad.fit.shortfall import mm_down_to_hundredth, mm_down_to_tenth
from squadron_cad.kits.squadron_leader.mark_room import MARK_MIN_MM, plane_mark_mm, token_mark_mm
from squadron_cad.kits.squadron_leader.sections import (
    MOUTH_WALL_MM,
    WALL_MM,
    BoxParams,
    SquadronLeaderSections,
)
from squadron_cad.params import LENGTH_EPSILON_MM


def _sockets_fit_token(kit: SquadronLeaderSections) -> None:
    """The pegs' circle keeps each socket WALL_MM from the token's edge (it moves inward on
    a small token); the 8 sockets on it must keep that wall between neighbours too."""
    stacking = kit.stacking
    circle = float(kit.peg_circle_radius_mm)
    between = 2 * circle * math.sin(math.radians(45 / 2)) - stacking.socket_diameter_mm
    mouths = between - 2 * stacking.socket_chamfer_mm
    if between < WALL_MM - LENGTH_EPSILON_MM or mouths < MOUTH_WALL_MM - LENGTH_EPSILON_MM:
        raise ValueError(
            f"stacking.peg_diameter_mm ({stacking.peg_diameter_mm}) with its clearance: the 8 "
            f"sockets, {mm_down_to_hundredth(circle)} mm from the centre of a token.width_mm "
            f"({kit.token.width_mm}) token, leave {mm_down_to_hundredth(between)} mm between "
            f"neighbours ({mm_down_to_hundredth(mouths)} at their chamfered mouths); at least "
            f"{WALL_MM:g} mm ({MOUTH_WALL_MM:g} at the mouths) is needed: a smaller peg or a "
            "wider token"
        )
    if stacking.socket_depth_mm > kit.token.height_mm - WALL_MM + LENGTH_EPSILON_MM:
        raise ValueError(
            f"stacking.peg_height_mm + stacking.socket_extra_depth_mm "
            f"({float(stacking.socket_depth_mm):g}) must leave {WALL_MM:g} mm under a socket in "
            f"token.height_mm ({kit.token.height_mm})"
        )


def _hole_clears_sockets(kit: SquadronLeaderSections) -> None:
    flats = float(kit.token.across_flats_mm)
    socket_r = kit.stacking.socket_diameter_mm / 2
    chamfer = kit.stacking.socket_chamfer_mm
    wall = float(kit.peg_circle_radius_mm) - socket_r - flats * kit.altitude.hole_scale / 2
    mouth_wall = wall - chamfer
    if wall < WALL_MM - LENGTH_EPSILON_MM or mouth_wall < MOUTH_WALL_MM - LENGTH_EPSILON_MM:
        largest = (
            2
            * (wall + flats * kit.altitude.hole_scale / 2 - max(WALL_MM, MOUTH_WALL_MM + chamfer))
            / flats
        )
        hint = (
            f"give altitude.hole_scale at most {mm_down_to_hundredth(largest)}"
            if largest >= 0.01
            else "a smaller stacking.peg_diameter_mm or a wider token"
        )
        raise ValueError(
            f"altitude.hole_scale ({kit.altitude.hole_scale}) leaves "
            f"{mm_down_to_hundredth(wall)} mm between the centre hole and the sockets "
            f"({mm_down_to_hundredth(mouth_wall)} mm at the "
            f"chamfered mouth, stacking.socket_chamfer_mm {chamfer}); at least {WALL_MM:g} mm "
            f"({MOUTH_WALL_MM:g} mm at the mouth) is needed: {hint}"
        )


def _silhouette_fits(kit: SquadronLeaderSections) -> None:
    flats = kit.token.across_flats_mm
    for key, value in (
        ("plane.silhouette_length_mm", kit.plane.silhouette_length_mm),
        ("plane.silhouette_span_mm", kit.plane.silhouette_span_mm),
    ):
        if value > flats:
            raise ValueError(
                f"{key} ({value}) must fit on the token: at most its width across the flats "
                f"({mm_down_to_hundredth(flats)} at token.width_mm {kit.token.width_mm})"
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
            f"(under {mm_down_to_hundredth(flats / 2)} mm from the centre)"
        )


def _marks_fit(kit: SquadronLeaderSections) -> None:
    """Each player's mark lies on its face, at least MARK_MIN_MM across: the plane token's
    inside the top, a flush mark's recess inside the altitude token's ring and the stat
    card's label column (a mark shrinks to the room there, down to that least size)."""
    if plane_mark_mm(kit) < MARK_MIN_MM:
        raise ValueError(
            f"the plane token's top leaves {mm_down_to_hundredth(plane_mark_mm(kit))} mm for a "
            "player's mark "
            f"beside the silhouette (token.width_mm {kit.token.width_mm}); it needs "
            f"{MARK_MIN_MM:g}: a wider token"
        )
    if token_mark_mm(kit) < MARK_MIN_MM:
        raise ValueError(
            f"the altitude token's ring and stat_dial.label_width_mm leave "
            f"{mm_down_to_hundredth(token_mark_mm(kit))} mm for a player's mark inside "
            f"marks.frame_mm "
            f"({kit.marks.frame_mm}); it needs {MARK_MIN_MM:g}: a smaller frame or a wider token"
        )


def _ruler_joint_fits(kit: SquadronLeaderSections) -> None:
    ruler = kit.ruler
    check_joint(ruler, kit.ruler_width_mm, "token.width_mm / 4", kit.template_length_mm)
    if ruler.numeral_height_mm > kit.ruler_width_mm - 1:
        raise ValueError(
            f"ruler.numeral_height_mm ({ruler.numeral_height_mm}) must be at least 1 mm less "
            f"than the ruler width ({mm_down_to_hundredth(kit.ruler_width_mm)} = "
            "token.width_mm / 4)"
        )


def _text_depths_fit(kit: SquadronLeaderSections) -> None:
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


def _template_features_fit(kit: SquadronLeaderSections) -> None:
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
            f"but only {mm_down_to_tenth(room)} mm lie between the notches"
        )


def _box_fits_tin(kit: SquadronLeaderSections) -> None:
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


def _shallow_hints(kit: SquadronLeaderSections, short: float) -> str:
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


def _clearances_reach_their_fits(kit: SquadronLeaderSections) -> None:
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


def _text_meets_the_norms(kit: SquadronLeaderSections) -> None:
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


CROSS_RULES = (
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
)

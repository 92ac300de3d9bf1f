"""Per player: a plane counter, four altitude counters and a stat record, for the hex mat.

The plane counter is a hexagon as wide across its flats as the token (so either fits a
hex), its nose and a solid arrow on one flat: the side it faces. The player's letter is
drawn in our stroke font, large and black: counters read in black and white and by
colour-blind players; the player's colour, if printed, is only a light tint behind.
Altitude counters (1..4) are the token's octagon at half its width, to lay on the plane
counter's centre. The stat record is the 3D stat card's outline and engraving, at 1:1: a
pencil or a paper clip marks each value.
"""

from __future__ import annotations

import math
import string

from shapely import affinity
from shapely.geometry import Polygon

from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.sheets import outlines
from squadron_cad.kits.squadron_leader.sheets.style import body, ink
from squadron_cad.paper.drawing import BLACK, drawing, tint
from squadron_cad.paper.fonts import stroke_text
from squadron_cad.paper.sheet import Piece, PieceSheet

LETTER_HEIGHT_MM = 6.0
LETTER_STROKE_MM = 1.1
ARROW_DEPTH_MM = 4.0
ARROW_HALF_WIDTH_MM = 4.5
ALTITUDE_NUMERAL_MM = 7.0
ALTITUDE_STROKE_MM = 1.2
# The letter, the silhouette and the arrow keep SYMBOL_GAP_MM from each other (at 0.68 of
# the token's silhouette, 0.6 mm forward, the letter's "A" ran 1.0 mm from the tail, which
# read as touching, and the nose 0.3 mm from the arrow); letters A-H stay 1.7 mm inside
# the cut line.
SILHOUETTE_SCALE = 0.55  # of the token's
SILHOUETTE_SHIFT_MM = 0.5  # forward
SYMBOL_GAP_MM = 1.5
TINT_STRENGTH = 0.25  # share of the player's colour in the counter's fill


def player_letter(index: int) -> str:
    return string.ascii_uppercase[index]


def player_tint(p: SquadronLeaderParams, index: int) -> str:
    colours = p.player_colours
    if colours is None or index >= len(colours):
        return "#ffffff"
    return tint(colours[index].hex, TINT_STRENGTH)


def counter_hexagon(across_flats: float) -> Polygon:
    """A hexagon with a flat facing +x (the nose), corners at 30 + 60 k degrees."""
    radius = across_flats / math.sqrt(3)
    return Polygon(
        [
            (
                radius * math.cos(math.radians(30 + 60 * i)),
                radius * math.sin(math.radians(30 + 60 * i)),
            )
            for i in range(6)
        ]
    )


def facing_arrow(across_flats: float) -> Polygon:
    """A solid arrow against the front flat, tip first."""
    front = across_flats / 2 - 1.2
    return Polygon(
        [
            (front, 0.0),
            (front - ARROW_DEPTH_MM, ARROW_HALF_WIDTH_MM),
            (front - ARROW_DEPTH_MM, -ARROW_HALF_WIDTH_MM),
        ]
    )


def plane_counter(p: SquadronLeaderParams, index: int) -> Piece:
    flats = float(p.token.across_flats_mm)
    letter = player_letter(index)
    shape = counter_hexagon(flats)
    plane = affinity.translate(
        outlines.silhouette(
            p.plane.silhouette_length_mm * SILHOUETTE_SCALE,
            p.plane.silhouette_span_mm * SILHOUETTE_SCALE,
        ),
        SILHOUETTE_SHIFT_MM,
        0,
    )
    # the letter sits on the rear, clear of an altitude counter laid on the centre, its
    # right edge SYMBOL_GAP_MM behind the tail whatever its width
    _strokes, width_em = layout_text(letter)
    width = width_em * (LETTER_HEIGHT_MM - LETTER_STROKE_MM) + LETTER_STROKE_MM
    letter_x = plane.bounds[0] - SYMBOL_GAP_MM - width / 2
    letter_strokes = stroke_text(
        letter,
        LETTER_HEIGHT_MM,
        LETTER_STROKE_MM,
        BLACK,
        "engrave",
        at=(letter_x, 0.0),
        tag="player-letter",
    )
    items = [
        *body(shape, "plane-counter", fill=player_tint(p, index)),
        *ink(facing_arrow(flats), "engrave", "facing-arrow"),
        *ink(plane, "engrave", "silhouette"),
        *letter_strokes,
    ]
    return Piece(
        f"plane_counter_{letter.lower()}", f"Player {letter}: plane", drawing(items), new_row=True
    )


def altitude_counter(p: SquadronLeaderParams, index: int, altitude: int) -> Piece:
    width = p.token.width_mm / 2
    shape = outlines.octagon(width)
    numeral = stroke_text(
        str(altitude),
        ALTITUDE_NUMERAL_MM,
        ALTITUDE_STROKE_MM,
        BLACK,
        "engrave",
        tag="altitude-numeral",
    )
    letter = player_letter(index)
    items = [*body(shape, "altitude-counter", fill=player_tint(p, index)), *numeral]
    return Piece(
        f"altitude_counter_{letter.lower()}{altitude}",
        f"{letter}: altitude {altitude}",
        drawing(items),
    )


def stat_record(p: SquadronLeaderParams, index: int) -> Piece:
    shape = outlines.stat_card(p)
    d = p.stat_dial
    marks = []
    for text, x, y in outlines.stat_card_text(p):
        marks += stroke_text(
            text,
            d.numeral_height_mm,
            p.text.stroke_mm,
            BLACK,
            "engrave",
            at=(x, y),
            tag="stat-text",
        )
    letter = player_letter(index)
    names = ", ".join(constants.stat_names(d.labels))
    items = [*body(shape, "stat-record", fill=player_tint(p, index)), *marks]
    return Piece(f"stat_record_{letter.lower()}", f"{letter}: stats ({names})", drawing(items))


def counters_sheet(p: SquadronLeaderParams) -> PieceSheet:
    pieces = []
    for index in range(p.players):
        pieces.append(plane_counter(p, index))
        pieces += [altitude_counter(p, index, altitude) for altitude in range(1, 5)]
        pieces.append(stat_record(p, index))
    return PieceSheet(
        "counters",
        "Counters for the hex mat",
        tuple(pieces),
        notes=(
            "Per player: a plane counter (its arrow and nose point at the hex side it "
            "faces), four altitude counters to lay on its centre (none: altitude 0), and a "
            "stat record: mark each value with a pencil or slide a paper clip along its row. "
            "Glue the page onto card before cutting.",
        ),
    )

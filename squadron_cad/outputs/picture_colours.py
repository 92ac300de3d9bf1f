"""The pictures' colours: each player's, the shared parts', and a piece's colour made to
stand out from the box's grey in every shade the light gives its faces (CIE76 in CIELAB).
"""

from __future__ import annotations

import numpy as np

from squadron_cad.kit import Part
from squadron_cad.params import COLOUR_NAMES, KitParamsBase, hex_channels

NEUTRAL = COLOUR_NAMES["silver"]  # the box and shared parts in scenes, under coloured parts
FALLBACK_PLAYER_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "orange", "purple")


def player_colours(params: KitParamsBase) -> list[tuple[str, str]]:
    """(name, #rrggbb) for each player, from player_colours or a fixed palette."""
    if params.player_colours:
        chosen = [(c.name, c.hex) for c in params.player_colours]
    else:
        chosen = [(name, COLOUR_NAMES[name]) for name in FALLBACK_PLAYER_COLOURS]
    return [chosen[i % len(chosen)] for i in range(params.players)]


def part_colour(params: KitParamsBase) -> str:
    """The colour of shared parts' own pictures (previews.colour)."""
    return _hex(params.previews.colour)


def own_colour(part: Part | None, params: KitParamsBase) -> str:
    """The colour a part's own picture shows it in: a player's part in player 1's colour
    (as on the table), any other in previews.colour."""
    if part is not None and part.colour == "player":
        return player_colours(params)[0][1]
    return part_colour(params)


def _hex(colour: str) -> str:
    return COLOUR_NAMES.get(colour.lower(), colour.lower())


# CIE76 difference a piece keeps from the box's colour: a white piece (15) reads against the
# silver box at a glance, a silver one (0) vanished.
MIN_DELTA_E = 12.0


BOX_SHADES = (0.4, 0.55, 0.7, 0.85, 1.0)  # the box's faces, lit or turned from the light
PIECE_FALLBACK = COLOUR_NAMES["orange"]  # when neither a piece's colour nor previews.colour will


def standing_out(colour: str, params: KitParamsBase, box: str = NEUTRAL) -> str:
    """The colour, or one that stands out from the box's when too close to it in any of
    its shades (a grey piece vanished among the grey box's walls and shadows):
    previews.colour, else orange."""
    for candidate in (colour, part_colour(params)):
        if box_contrast(candidate, box) >= MIN_DELTA_E:
            return candidate
    return PIECE_FALLBACK


def box_contrast(colour: str, box: str = NEUTRAL) -> float:
    """The least CIE76 difference of a colour from the box's colour in any of its shades."""
    return min(delta_e(colour, shade(box, factor)) for factor in BOX_SHADES)


def delta_e(first: str, second: str) -> float:
    """CIE76 difference of two sRGB colours (#rrggbb): the distance in CIELAB (D65)."""
    return float(np.linalg.norm(np.subtract(_lab(first), _lab(second))))


def _lab(colour: str) -> tuple[float, float, float]:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb(colour)]
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear  # fmt: skip
    white = (0.95047, 1.0, 1.08883)
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
         for t in (xyz[i] / white[i] for i in range(3))]  # fmt: skip
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def shade(colour: str, factor: float) -> str:
    """#rrggbb scaled towards black."""
    return "#" + "".join(f"{round(v * factor):02x}" for v in hex_channels(colour))


def rgb(colour: str) -> tuple[float, float, float]:
    red, green, blue = (value / 255 for value in hex_channels(colour))
    return red, green, blue

"""Squadron Leader's fixed facts: the game's geometry and the ratios its rules fix.

Each says where it comes from: the reference design (the Squadron Leader v2 files and
rules by Tim Smith). Tunable defaults live in this kit's default.yaml.
"""

from __future__ import annotations

from pathlib import Path

from squadron_cad.constants import NORMS, OCTAGON_CORNER_OFFSET_DEG, OCTAGON_SIDES

__all__ = ["NORMS", "OCTAGON_CORNER_OFFSET_DEG", "OCTAGON_SIDES"]  # used with the game's

GAME_CREDIT = "Squadron Leader by Tim Smith (Wollivan), CC BY-SA 4.0"
# The kit's defaults (KIT.defaults): `following` scales the defaults that follow from them.
DEFAULTS_FILE = Path(__file__).resolve().parent / "default.yaml"

# The token is the engine's regular octagon, flats facing +x, +y and the diagonals
# (the reference design's core dimensions).

# Ratios the game's rules fix (the reference design and its rules): a straight template
# is three tokens long, a seated token's centre sits a sixth of a token beyond a template
# end, the ruler is three templates long and a quarter token wide, the forward guides are
# an eighth of a token off the centre line, and the peg/socket circle has radius
# sqrt(2) * width / 4.
TEMPLATE_LENGTH_TOKENS = 3
NOTCH_OFFSET_DIVISOR = 6
RULER_LENGTH_TEMPLATES = 3
RULER_WIDTH_DIVISOR = 4
GUIDE_OFFSET_DIVISOR = 8
BANK_INNER_RADIUS_TOKENS = 3
TURN_INNER_RADIUS_TOKENS = 1
MOVE_COSTS = {"straight": 1, "bank": 2, "turn": 3}
ALTITUDE_TOKENS_PER_STACK = 4
# The stats' names by their letters on the card. The current rules call the fourth stat
# Manoeuvrability; older rules called it Speed (presets/older-rules.yaml).
STAT_NAMES = {
    "H": "Health",
    "D": "Defense",
    "A": "Attack",
    "M": "Manoeuvrability",
    "S": "Speed",
}


def stat_names(labels: tuple[str, ...]) -> list[str]:
    """The names of the card's rows (a label without a known name stands for itself)."""
    return [STAT_NAMES.get(label, label) for label in labels]


# The player's mark on the plane token: behind the right wing, clear of silhouette, grooves
# and rim, as fractions of the token width (3.6 mm free around it at the default size).
PLANE_MARK_AT_WIDTHS = (-0.18, -0.27)

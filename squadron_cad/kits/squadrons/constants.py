"""What the Squadrons rules fix (Cadence Wargame System core rules, quoted in issue 14).

These are the game's facts, not parameters: a maker does not change the inch or the
45-degree pivot. Sizes a maker may change (base size, token thickness) are parameters.
"""

from __future__ import annotations

GAME_CREDIT = (
    "Squadrons, Cadence Wargame System (cadence.games); an unofficial accessory of our own design"
)

INCH_MM = 25.4
RULER_LENGTH_IN = 16  # the longest weapon range
RULER_LABELS_IN = (1, 6, 8, 12, 16)  # target over 1"; ranges 6", 8", 12", 16"

# Movement: basic 6", upgrades 7" and 8"; Advance may be 2" forward; Evasion up to 2"
# left or right; Boost adds up to 3" when the ship does not pivot.
GAUGE_LENGTH_IN = 8
GAUGE_LABELS: tuple[tuple[int, str], ...] = ((2, "2"), (3, "+3"), (6, "6"), (7, "7"), (8, "8"))
# Each word names a tick and is centred under it: Advance and Evasion are 2" moves; Boost
# adds up to 3" (measured on from where the move ends, to the "+3" tick).
GAUGE_WORDS: tuple[tuple[int, str], ...] = ((2, "ADV/EVA"), (3, "BOOST +3"))

PIVOT_LIMIT_DEG = 45  # a Vehicle pivots up to 45 degrees per action
ADVANCE_PIVOT_DEG = 180  # Advance: 2" forward and a pivot of exactly 180 degrees
ZONE_DEG = 90  # four 90-degree zones: front, rear, left, right

OBJECTIVE_NAMES = ("SCAN", "RECOVER", "DESTROY")
DESTROY_PROFILE = "D4+ T4"  # Defence 4+, Toughness 4; Hit Points 2 are the notches
DESTROY_HIT_POINTS = 2
ENTRY_MARKERS = 2

# Ship numbers that read as another number when the base is turned 180 degrees: each gets
# a bar under it (the usual 6. and 9. of dice and pool balls), so ship 6 is not ship 9.
UNDERLINED_NUMBERS = (6, 9)

TRACKER_LABELS = ("C", "H")  # Command Points and Hit Points, each 0..6
TRACKER_MAX = 6

RULER_SECTIONS = 4  # 4-inch sections: each seam on an inch tick, each under 110 mm long


# The part names the registry, the stowing and the checks share.
OBJECTIVE_PARTS = ("objective_scan", "objective_recover", "objective_destroy", "entry_marker")


def base_part(number: int) -> str:
    return f"ship_base_{number}"


def ruler_part(index: int) -> str:
    return f"range_ruler_{index}"

"""What the Squadrons rules fix (Cadence Wargame System core rules, quoted in issue 14).

These are the game's facts, not parameters: a maker does not change the inch or the
45-degree pivot. Sizes a maker may change (base size, token thickness) are parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

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
ENTRY_MARKERS = 2  # what one mission's player places at least (kept for readers of old kits)


# ---- the missions: what each puts on the table (quoted in issue 34) ---------------------------
# The markers the kit prints follow from these: as many of each kind as the most demanding
# mission has on the table at once (markers_needed). A marker's kind is its part's stem:
# "scan" is objective_scan, "entry" the entry_marker.


@dataclass(frozen=True)
class Mission:
    number: int
    placed: dict[str, int]  # markers set out before the first round, by kind
    # (from kind, to kind, up to how many): a marker replaced during play by one of another
    # kind; the new ones are extra markers, the old go back in the box
    becomes: tuple[tuple[str, str, int], ...] = ()
    entry_per_player: int = 0  # entry points each player places
    entry_shared: int = 0  # entry points placed besides those per player


ROUNDS = 4  # a game lasts four rounds
MISSION_CHANGE_ROUNDS = (2, 3)  # the rounds on which the missions' tables change

MISSIONS: tuple[Mission, ...] = (
    # 1: four Scan objectives; a scanned one becomes a Destroy objective; two entry points
    # per player.
    Mission(1, {"scan": 4}, (("scan", "destroy", 4),), entry_per_player=2),
    # 2: two Destroy objectives; 1 + 2 entry points (one side's and the other's: 3 at any
    # player count, never more than mission 1's two per player from 2 players on).
    Mission(2, {"destroy": 2}, entry_shared=3),
    # 3: five Scan objectives, replaced by up to five Recover objectives.
    Mission(3, {"scan": 5}, (("scan", "recover", 5),)),
)  # fmt: skip
MARKER_KINDS = ("scan", "recover", "destroy", "entry")
OBJECTIVE_KINDS = MARKER_KINDS[:3]  # the table's; entry points are the players' own


def mission_markers(mission: Mission, players: int) -> dict[str, int]:
    """Each kind of marker the mission needs at once: those placed, those that replace
    them, and its entry points for `players`."""
    needed = dict.fromkeys(MARKER_KINDS, 0)
    for kind, count in mission.placed.items():
        needed[kind] += count
    for _old, new, most in mission.becomes:
        needed[new] += most
    needed["entry"] += mission.entry_per_player * players + mission.entry_shared
    return needed


def markers_needed(players: int) -> dict[str, int]:
    """Each kind of marker as the most demanding mission needs it, for `players`."""
    each = [mission_markers(mission, players) for mission in MISSIONS]
    return {kind: max(needed[kind] for needed in each) for kind in MARKER_KINDS}


# Ship numbers that read as another number when the base is turned 180 degrees: each gets
# a bar under it (the usual 6. and 9. of dice and pool balls), so ship 6 is not ship 9.
UNDERLINED_NUMBERS = (6, 9)

TRACKER_LABELS = ("C", "H")  # Command Points and Hit Points, each 0..6
TRACKER_MAX = 6
MARK_FRAME_MM = 0.6  # the recess round a flush player's mark: at least a text stroke
MISSION_LABEL = "R"  # the mission tracker's row: the round, 1..ROUNDS
LEGEND_MARGIN_MM = 0.8  # a change round's triangle stays this far inside its band

# The Squadron Leader's marker: a plate with a star, threaded on the leader's flight peg.
FLAGSHIP_INNER_RATIO = 0.5  # the star's inner corners, as a share of its points' radius
FLAGSHIP_HOLE_PLAY_MM = 0.3  # the peg slides through its hole with this much to spare

RULER_SECTIONS = 4  # 4-inch sections: each seam on an inch tick, each under 110 mm long


# The part names the registry, the stowing and the checks share.
OBJECTIVE_PARTS = ("objective_scan", "objective_recover", "objective_destroy", "entry_marker")
MARKER_PARTS = dict(zip(MARKER_KINDS, OBJECTIVE_PARTS, strict=True))  # kind -> its part


def base_part(number: int) -> str:
    return f"ship_base_{number}"


def card_part(number: int) -> str:
    return f"tracker_card_{number}"


def ruler_part(index: int) -> str:
    return f"range_ruler_{index}"

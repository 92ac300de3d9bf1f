"""What the Space Planes kit fixes: its credit line, the rules' counts and the names of its
parts and of the pieces a player buys (shown as blocks in the layout)."""

from __future__ import annotations

GAME_CREDIT = (
    "Space Planes, Tabletop Gaming's Microgame of the Month (tabletopgaming.co.uk); "
    "unofficial, no rules text or art"
)

MIN_PLAYERS, MAX_PLAYERS = 2, 6  # the rules: "a wargame for two to six players"
MAX_SHIPS = 6  # the rules: "up to six cubes", shared evenly among the players

DECK = "card_deck"  # bought pieces: not parts, shown as blocks in the layout
DIE = "plane_die"
GAUGE = "joker_gauge"
CUBE = "cubeship"
HOLDER = "die_holder"
BOX = "box"
LID = "box_lid"


def ships_per_player(players: int) -> int:
    """Six cubes shared evenly: each player gets the same number, the rest stay out."""
    return MAX_SHIPS // players

"""What the Space Planes kit fixes: its credit line and the names of its parts and of the
pieces a player buys (shown as blocks in the layout)."""

from __future__ import annotations

GAME_CREDIT = (
    "Space Planes, Tabletop Gaming's Microgame of the Month (tabletopgaming.co.uk); "
    "unofficial, no rules text or art"
)

DECK = "card_deck"  # bought pieces: not parts, shown as blocks in the layout
DIE = "plane_die"
GAUGE = "joker_gauge"
HOLDER = "die_holder"
BOX = "box"
LID = "box_lid"
MAX_SHIPS = 6


def cube_part(number: int) -> str:
    return f"cubeship_{number}"

"""What a Squadron Leader player buys rather than prints, for the BOM."""

from __future__ import annotations

from squadron_cad.kit import Purchase
from squadron_cad.kits.squadron_leader.params import KitParams


def purchases(p: KitParams) -> list[Purchase]:
    """The dice (params.dice), and the optional playmat."""
    dice = p.dice
    wanted = []
    colours = {colour: n for colour, n in dice.colours.items() if n > 0}
    if colours:
        mix = ", ".join(f"{n} {colour}" for colour, n in colours.items())
        detail = f"{dice.size_mm:g} mm d{dice.sides}: {mix}; the box has a pocket for them"
        wanted.append(Purchase("dice", sum(colours.values()), detail))
    playmat = "any mat or cloth to fly over; not needed to play"
    return [*wanted, Purchase("playmat (optional)", None, playmat)]

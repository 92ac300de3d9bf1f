"""One-line refusals: which piece does not fit, by how many mm, and what to try instead."""

from __future__ import annotations

import math
from dataclasses import dataclass

from squadron_cad.fit.shortfall import mm_up_to_tenth
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

EPS = 1e-6


@dataclass(frozen=True)
class Shortfall:
    """How much bigger the box's inside would have to be (mm; corner: per corner)."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    corner: float = 0.0
    radius_to: float | None = None  # corners only: the largest tin corner radius that fits

    @property
    def cost(self) -> float:
        # A corner short by c needs about 2c more length and width to clear.
        return self.x + self.y + self.z if self.x + self.y + self.z > EPS else 2 * self.corner

    def text(self, p: SquadronLeaderParams) -> str:
        tin = p.tin
        if math.isinf(self.x):  # no growth searched for holds it: no figure to give
            return (
                f"more room than a tin up to 300 mm bigger gives (tin.inner_length_mm "
                f"{tin.inner_length_mm:g}, tin.inner_width_mm {tin.inner_width_mm:g})"
            )
        wanted = [
            (self.x, "length", "tin.inner_length_mm", tin.inner_length_mm),
            (self.y, "width", "tin.inner_width_mm", tin.inner_width_mm),
            (self.z, "depth", "tin.inner_depth_mm", tin.inner_depth_mm),
        ]
        parts = [
            (f"{mm_up_to_tenth(amount)} mm more {word}", f"{key} {value:g}")
            for amount, word, key, value in wanted
            if amount > EPS
        ]
        if not parts and self.radius_to is not None:
            parts = [
                (
                    "tighter rounded corners",
                    f"tin.corner_radius_mm {self.radius_to:g} or less, now "
                    f"{tin.corner_radius_mm:g}",
                )
            ]
        if not parts:
            parts = [
                (
                    f"{mm_up_to_tenth(self.corner)} mm more room in the rounded corners",
                    f"tin.corner_radius_mm {tin.corner_radius_mm:g}",
                )
            ]
        needs = " and ".join(need for need, _ in parts)
        keys = ", ".join(key for _, key in parts)
        return f"{needs} ({keys})"


def from_margins(margins: dict[str, float]) -> Shortfall:
    over_x, over_y = max(-margins["x"], 0.0), max(-margins["y"], 0.0)
    over_z = max(-margins["z"], 0.0)
    if over_x + over_y + over_z > EPS:
        return Shortfall(x=over_x, y=over_y, z=over_z)
    return Shortfall(corner=max(-margins["corner"], 0.0))


def alone(
    fx: float, fy: float, fz: float, length: float, width: float, depth: float
) -> Shortfall | None:
    """How much an fx x fy x fz piece misses the inside by on its own (best way round)."""
    if fz > depth + EPS:
        return Shortfall(z=fz - depth)
    options = []
    for a, b in ((fx, fy), (fy, fx)):
        over_x, over_y = max(a - length, 0.0), max(b - width, 0.0)
        if over_x <= EPS and over_y <= EPS:
            return None
        options.append(Shortfall(x=over_x, y=over_y))
    return min(options, key=lambda s: s.cost)


def piece_name(p: SquadronLeaderParams, kind: str) -> str:
    """The pieces of one kind, as the subject of 'need(s) ...'."""
    players, dice = p.players, p.dice.count
    names = {
        "stacks": f"the {players} plane stacks need" if players > 1 else "the plane stack needs",
        "dials": f"the {players} stat dials need" if players > 1 else "the stat dial needs",
        "dice": f"the {dice} dice need" if dice > 1 else "the die needs",
        "ruler": "the range ruler sections need",
        "template": "the move template needs",
    }
    return names[kind]


def hints(
    p: SquadronLeaderParams,
    kind: str,
    shortfall: Shortfall,
    single: bool = False,
    players: int | None = None,
    dice: int | None = None,
) -> str:
    """What to try: `players`, the most players whose pieces fit (None: none fewer do);
    `dice`, the most dice with which everything fits (None: fewer do not help)."""
    tries = []
    if dice is not None and kind != "dice" and not single:
        given = ", ".join(f"{colour} {n}" for colour, n in p.dice.colours.items() if n)
        tries.append(f"at most {dice} dice (dice.colours asks {p.dice.count}: {given})")
    if players is not None and not single:
        tries.append(f"players: {players}")
    if kind != "stacks":
        carried = sorted({*p.box.leave_out, kind})
        tries.append(f"box.leave_out: [{', '.join(carried)}]")
    if shortfall.z > EPS:
        tries.append("a deeper tin")
    elif shortfall.corner > EPS and shortfall.cost == 2 * shortfall.corner:
        tries.append("a tin with tighter corners")
    else:
        tries.append("a bigger tin")
    return ", or ".join(tries)


def message(
    p: SquadronLeaderParams,
    kind: str,
    shortfall: Shortfall,
    single: bool = False,
    players: int | None = None,
    deeper: float | None = None,
    dice: int | None = None,
) -> str:
    """`deeper`: mm more tin depth with which everything fits (None: no depth would)."""
    subject = single_piece_name(kind) if single else piece_name(p, kind)
    tries = hints(p, kind, shortfall, single, players, dice)
    depth = ""
    if deeper is not None:
        target = f"{p.tin.inner_depth_mm + float(mm_up_to_tenth(deeper)):g}"
        depth = f", or everything fits in a tin {mm_up_to_tenth(deeper)} mm deeper"
        tries = f"tin.inner_depth_mm: {target}, or {tries}"
    return f"the tin is too small: {subject} {shortfall.text(p)}{depth}; try {tries}"


def single_piece_name(kind: str) -> str:
    """One piece of a kind, alone in the box, as the subject of 'needs ...'."""
    names = {
        "stacks": "even a single token needs",
        "dials": "a stat dial needs",
        "dice": "a die needs",
        "ruler": "a range ruler section needs",
        "template": "the move template needs",
    }
    return names[kind]

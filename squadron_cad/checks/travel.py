"""What every free-travel measure shares: the four ways a stowed piece is slid, when two
faces touch, a piece as the measure sees it from above, and how far a unit can move.

The engine's tray check (checks.tray_play) measures on the rendered meshes; a kit's own
stowing may measure on its layout's exact geometry, without rendering: both report in
these terms, so a rattle reads the same either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from shapely.geometry import Polygon

from squadron_cad.checks.findings import Finding, verdict

DIRECTIONS = {"+x": (1.0, 0.0), "-x": (-1.0, 0.0), "+y": (0.0, 1.0), "-y": (0.0, -1.0)}
TOUCH_MM = 1e-4  # closer than this, two faces touch
COARSE_MM = 0.25  # the sweep's step before it bisects to the collision
FINE_MM = 0.005  # the sweep's last step: a travel this close over the limit is at it
REACH_MM = 30.0  # travel beyond this is reported as this


@dataclass(frozen=True)
class Body:
    """One piece in the closed box: what it covers seen from above, and its heights."""

    name: str
    unit: str
    footprint: Polygon
    z_low: float
    z_high: float

    @cached_property
    def inside(self) -> Polygon:
        """The footprint shrunk by the touch tolerance: what may not overlap anything."""
        return self.footprint.buffer(-TOUCH_MM)


@dataclass(frozen=True)
class Travel:
    """How far a unit (or the lid) moves up and each way sideways before it meets anything."""

    name: str
    up: float
    sideways: dict[str, float]

    @property
    def worst(self) -> float:
        return max(self.up, *self.sideways.values())

    def describe(self) -> str:
        ways = ", ".join(f"{way} {value:.2f}" for way, value in self.sideways.items())
        return f"up {self.up:.2f}, {ways} mm"


def rattle_finding(travel: Travel, limit: float, key: str) -> Finding:
    """A unit's travel against the rattle limit (`key` names the parameter)."""
    ok = travel.worst <= limit + FINE_MM
    return Finding(
        travel.name,
        "rattle",
        travel.describe(),
        f"at most {limit:g} mm each way, lid closed ({key})",
        verdict(ok),
        "" if ok else f"moves {travel.worst:.2f} mm in the closed box: it rattles",
    )

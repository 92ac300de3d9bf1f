"""How big a player's mark can be: on the plane token's top beside the silhouette, and
flush in the altitude tokens' ring and the stat card's label column. The rules refuse a
mark smaller than MARK_MIN_MM; the parts draw it this size.
"""

from __future__ import annotations

import math

from squadron_cad.kits.squadron_leader import constants
from squadron_cad.kits.squadron_leader.geometry.icons import PLANE_SILHOUETTE
from squadron_cad.kits.squadron_leader.sections import SquadronLeaderSections

MARK_WALL_MM = 0.4  # least wall left beside a player's mark
# The raised silhouette (opened by the least wall, parted by the guides) stands up to this
# much outside its drawn outline (0.24 mm measured on a 16 mm token).
SILHOUETTE_GROWTH_MM = 0.3
MARK_MIN_MM = 2.0  # a smaller mark is not told apart by shape


def plane_mark_mm(kit: SquadronLeaderSections) -> float:
    """The plane token's mark, across: marks.plane_size_mm, or what the top leaves
    beside the silhouette (MARK_WALL_MM inside its edge, checks.min_mark_clearance_mm from
    the silhouette: on a 16 mm token the 3.6 mm mark ran 0.3 mm from its tail)."""
    x, y = (float(kit.token.width_mm) * f for f in constants.PLANE_MARK_AT_WIDTHS)
    room = 2 * (float(kit.token.across_flats_mm) / 2 - MARK_WALL_MM - math.hypot(x, y))
    length, span = float(kit.plane.silhouette_length_mm), float(kit.plane.silhouette_span_mm)
    parts = [[(u * length, v * span) for u, v in part] for part in PLANE_SILHOUETTE]
    clear = distance_to_outline(parts, (x, y)) - kit.checks.min_mark_clearance_mm
    return min(float(kit.marks.plane_size_mm), room, 2 * (clear - SILHOUETTE_GROWTH_MM))


def distance_to_outline(
    parts: list[list[tuple[float, float]]], point: tuple[float, float]
) -> float:
    """How far the point lies from the union of the polygons (0 inside one), in plain
    Python: every parameter check runs this, and shapely's import alone took 73 ms."""
    px, py = point
    nearest = math.inf
    for ring in parts:
        inside = False
        for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
            if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
            dx, dy = x2 - x1, y2 - y1
            length2 = dx * dx + dy * dy
            t = (
                0.0
                if length2 == 0
                else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / length2))
            )
            nearest = min(nearest, math.hypot(px - x1 - t * dx, py - y1 - t * dy))
        if inside:
            return 0.0
    return nearest


def token_mark_mm(kit: SquadronLeaderSections) -> float:
    """The flush mark of the altitude tokens and the stat card, across: marks.token_size_mm,
    or what the altitude token's ring and the card's label column leave around its recess."""
    ring = float(kit.token.across_flats_mm) * (1 - kit.altitude.hole_scale) / 2
    column = float(kit.stat_dial.label_width_mm)
    room = min(ring, column) - 2 * MARK_WALL_MM - 2 * float(kit.marks.frame_mm)
    return min(float(kit.marks.token_size_mm), room)

"""Regions of a section narrower than a wall: the thin-wall check's and the engraved
text's measure. A section is opened by the wall (a region narrower than that disappears);
what the opening loses is a thin spot when it is longer than it is wide.
"""

from __future__ import annotations

import math

import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from squadron_cad.checks import meshgeo

WIDTH_GRID_MM = 0.03  # sampling step when measuring a thin region's width
EROSION_SLACK_MM = 0.02  # a wall of exactly the minimum must survive the opening
# The opening's polygonal circles leave a film under a micron along straight faces; it joined
# a divider's two tapered ends into one "wall" 16.6 mm long and 0.02 mm wide (measured on a
# Manifold box). Grown back by this much, the film is gone; a real thin wall is lost whole.
FILM_MM = 1e-3


def thin_spots(section: MultiPolygon, wall: float) -> list[tuple[float, float, Polygon]]:
    """Regions of a section narrower than `wall`: (width, length, region).

    The widest circle inside a lost region tells a wall (as long as its area over that
    width) from a sharp corner or a wedge's tip (short); the width reported is that of the
    rectangle with the region's area and outline, which corners do not inflate.
    """
    radius = (wall - EROSION_SLACK_MM) / 2
    # The opening grown by the film in one buffer: a disk grown by another is the disk of
    # both radii (a third buffer cost 12 % of the check).
    opened = section.buffer(-radius, quad_segs=8).buffer(radius + FILM_MM, quad_segs=8)
    boundary = section.boundary
    spots = []
    for lost in meshgeo.polygons(section.difference(opened)):
        # Half the outline bounds a region's length: corner slivers are too short to matter.
        if lost.area < 1e-3 or lost.exterior.length / 2 < wall:
            continue
        if _surely_a_corner(lost, boundary, wall):
            continue
        points = meshgeo.grid_points(lost, WIDTH_GRID_MM)
        nearby = boundary.intersection(lost.envelope.buffer(wall))  # only walls close by
        widest = 2 * meshgeo.farthest_distance(points, nearby, WIDTH_GRID_MM / 2)
        if lost.area / max(widest, 1e-6) < wall:
            continue  # shorter than it is wide: a corner, not a wall
        width = min(stroke_width(lost), widest)
        spots.append((width, lost.area / max(width, 1e-6), lost))
    return spots


def _surely_a_corner(lost: Polygon, boundary: BaseGeometry, wall: float) -> bool:
    """The corner test below, decided from one of its sample points when that is enough:
    the point's distance to the whole outline is at most its distance to the walls close
    by, which is at most the farthest point's. Most lost regions are corners (1844 of 1927
    in five builds); this settles 1787 of them without measuring up to 4000 points each."""
    point = meshgeo.one_grid_point(lost, WIDTH_GRID_MM)
    if point is None:
        return False
    least_widest = 2 * shapely.distance(boundary, shapely.points(point))
    return bool(lost.area / max(least_widest, 1e-6) < wall)


def stroke_width(glyph: Polygon) -> float:
    """Width of the rectangle with the glyph's area and outline length: a stroke of width w
    and length L has A = w L and P = 2 (w + L), so w = (P/2 - sqrt(P^2/4 - 4 A)) / 2."""
    half = glyph.length / 2
    return (half - math.sqrt(max(half * half - 4 * glyph.area, 0.0))) / 2

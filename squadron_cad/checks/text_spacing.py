"""Engraved text that prints: the space left between its strokes and inside its letters.

Measured on the part's section just under its top face, where the letters are cut:

- gap: the narrowest land of material between two engraved strokes or letters (or a
  letter and the part's edge): two letters 0.17 mm apart run together, the land between
  them is thinner than the nozzle lays a line;
- counter: the narrowest island of material an engraved letter encloses (inside a 0, 6,
  8): an island under one nozzle line across does not print, the hole fills in.

Limits: params.checks.min_text_gap_mm and min_text_counter_mm (sources in constants.NORMS).
"""

from __future__ import annotations

from dataclasses import dataclass

import shapely
import trimesh
from shapely.geometry import Point, Polygon
from shapely.strtree import STRtree

from squadron_cad.checks import meshgeo

TOP_SECTION_BELOW_MM = 0.05  # the section a hair under the top face, inside every engraving
TOUCH_MM = 0.01  # a lost land this close to a letter lies between letters (or beside one)


@dataclass(frozen=True)
class Narrowest:
    """The narrowest spot found, and where (x, y in the part's frame)."""

    width_mm: float
    at: tuple[float, float]

    def where(self) -> str:
        return f"at ({self.at[0]:.1f}, {self.at[1]:.1f})"


ThinSpots = list[tuple[float, float, Polygon]]  # (width, length, region): thin_spots' answer


def letter_gap(glyphs: list[Polygon], thin: ThinSpots, limit: float) -> Narrowest | None:
    """The narrowest land beside engraved letters: between two of them, or a thin spot of
    the top's material (`thin`: narrow.thin_spots at the limit) touching one (the
    strokes of one letter, a letter and the part's edge)."""
    found = _closest_pair(glyphs, limit)
    letters = shapely.union_all(glyphs)
    for width, _length, region in thin:
        if region.distance(letters) <= TOUCH_MM and (found is None or width < found.width_mm):
            point = region.representative_point()
            found = Narrowest(width, (point.x, point.y))
    return found


def _closest_pair(glyphs: list[Polygon], limit: float) -> Narrowest | None:
    """The two engraved regions closest together, when under twice the limit apart."""
    tree = STRtree(glyphs)
    best: Narrowest | None = None
    for index, glyph in enumerate(glyphs):
        for other in tree.query(glyph, predicate="dwithin", distance=2 * limit):
            if other <= index:
                continue
            line = shapely.shortest_line(glyph, glyphs[other])
            if best is None or line.length < best.width_mm:
                middle = line.interpolate(0.5, normalized=True)
                best = Narrowest(float(line.length), (middle.x, middle.y))
    return best


def narrowest_counter(glyphs: list[Polygon], material: shapely.Geometry) -> Narrowest | None:
    """The narrowest island of material inside an engraved letter: the diameter of the
    widest circle it holds (the width a nozzle must lay)."""
    found: Narrowest | None = None
    for glyph in glyphs:
        for ring in glyph.interiors:
            for island in meshgeo.polygons(Polygon(ring).intersection(material)):
                if island.area < 1e-4:
                    continue
                radius_line = shapely.maximum_inscribed_circle(island, 0.005)
                centre = Point(radius_line.coords[0])
                width = 2 * radius_line.length
                if found is None or width < found.width_mm:
                    found = Narrowest(width, (centre.x, centre.y))
    return found


def top_material(mesh: trimesh.Trimesh, top: float) -> shapely.Geometry:
    """The part's material a hair under its top face (letters are holes in it)."""
    return meshgeo.section(mesh, top - TOP_SECTION_BELOW_MM)

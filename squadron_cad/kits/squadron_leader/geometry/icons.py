"""Our own top-down WW1 biplane silhouette (Camel/SPAD-like), designed for this project.

Normalised so the union of the polygons spans x in [-0.5, 0.5] (nose at +x) and y in
[-0.5, 0.5] (wingspan). It is printed at about 17.4 mm x 20.6 mm, where 1.3 mm is the smallest
feature a 0.4 mm nozzle renders cleanly: ~0.075 in x and ~0.065 in y. Every part and every gap
below respects that. Polygons are simple, counter-clockwise and may overlap; their union is
the silhouette.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shapely.geometry import Polygon

PolygonPoints = tuple[tuple[float, float], ...]


def _mirror_y(half: PolygonPoints) -> PolygonPoints:
    """Close a left-right symmetric outline from its +y half, given front to back (CCW)."""
    return half + tuple((x, -y) for x, y in reversed(half))


# Propeller seen edge-on: a bar across the nose, 0.075 deep (1.3 mm) so it survives printing.
_PROPELLER: PolygonPoints = _mirror_y(((0.5, 0.17), (0.485, 0.19), (0.44, 0.19), (0.425, 0.17)))

# Fuselage: prop hub (0.07 wide = 1.44 mm) into a rounded rotary-engine cowling, then a taper
# to the tail post, i.e. the rudder seen edge-on poking out behind the elevators. The gap
# between propeller and cowling is 0.08 = 1.4 mm.
_FUSELAGE: PolygonPoints = _mirror_y(
    ((0.45, 0.035), (0.345, 0.035), (0.345, 0.045), (0.325, 0.075), (0.3, 0.08), (-0.5, 0.035))
)

# Upper wing: straight leading/trailing edges, chamfered tips, trailing corner cut more than the
# leading one for the raked period look. Chord 0.24, like a Camel's relative to its length.
_UPPER_WING: PolygonPoints = _mirror_y(((0.27, 0.46), (0.24, 0.5), (0.08, 0.5), (0.03, 0.465)))

# Lower wing: staggered back and slightly shorter, so from above only a strip behind the upper
# wing's trailing edge shows (0.08 deep = 1.4 mm). That step is the biplane cue.
_LOWER_WING: PolygonPoints = _mirror_y(((0.16, 0.44), (-0.01, 0.44), (-0.05, 0.41)))

# Tailplane + elevators as one outline: swept, rounded leading edge; straight trailing edge
# with the elevator cut-out around the rudder post (gap 0.065 = 1.34 mm each side).
_TAILPLANE: PolygonPoints = _mirror_y(
    (
        (-0.3, 0.03),
        (-0.335, 0.12),
        (-0.38, 0.18),
        (-0.43, 0.2),
        (-0.465, 0.18),
        (-0.475, 0.1),
        (-0.43, 0.1),
    )
)

PLANE_SILHOUETTE: tuple[PolygonPoints, ...] = (
    _FUSELAGE,
    _UPPER_WING,
    _LOWER_WING,
    _TAILPLANE,
    _PROPELLER,
)


def silhouette_union() -> "Polygon":
    """The silhouette as one shapely polygon (union of PLANE_SILHOUETTE)."""
    from shapely.geometry import Polygon
    from shapely.ops import unary_union

    return unary_union([Polygon(p) for p in PLANE_SILHOUETTE])

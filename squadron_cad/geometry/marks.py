"""Player marks: simple symbols, our own polygons, that tell players' pieces apart by
their shape (not only their colour), so they read in one colour and to colour-blind eyes.

Each outline is normalised to fit a circle of diameter 1 centred on the origin; a part
scales it to its mark size. The shapes are chunky (no feature under 0.3 of the size) so
they survive a 0.4 mm nozzle at a few millimetres.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

if TYPE_CHECKING:
    from shapely.geometry import Polygon
    from solid2.core.object_base import OpenSCADObject

    from squadron_cad.geometry.expr import Number

MarkName = Literal["circle", "triangle", "cross", "star", "square", "diamond", "ring", "chevron"]
MARKS: tuple[MarkName, ...] = get_args(MarkName)  # the default order: player 1 gets a circle
Outline = tuple[tuple[tuple[float, float], ...], ...]  # outer ring, then holes


def _round(points: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    return tuple((round(x, 3), round(y, 3)) for x, y in points)


def _regular(sides: int, radius: float, start_deg: float) -> tuple[tuple[float, float], ...]:
    return _round(
        [
            (
                radius * math.cos(math.radians(start_deg + 360 * k / sides)),
                radius * math.sin(math.radians(start_deg + 360 * k / sides)),
            )
            for k in range(sides)
        ]
    )


def _star(points: int, outer: float, inner: float) -> tuple[tuple[float, float], ...]:
    corners = []
    for k in range(2 * points):
        radius = outer if k % 2 == 0 else inner
        angle = math.radians(90 + 180 * k / points)
        corners.append((radius * math.cos(angle), radius * math.sin(angle)))
    return _round(corners)


def _cross(arm: float) -> tuple[tuple[float, float], ...]:
    a, r = arm / 2, math.sqrt(0.25 - (arm / 2) ** 2)  # arm ends on the unit circle's edge
    return _round(
        [(a, -r), (a, -a), (r, -a), (r, a), (a, a), (a, r), (-a, r), (-a, a),
         (-r, a), (-r, -a), (-a, -a), (-a, -r)]
    )  # fmt: skip


def _chevron() -> tuple[tuple[float, float], ...]:
    # A V pointing up, arms 0.3 thick: an arrowhead that tells which way is forward.
    return _round([(0.0, 0.48), (0.4, 0.0), (0.4, -0.28), (0.0, 0.12), (-0.4, -0.28), (-0.4, 0.0)])


_CIRCLE = _regular(32, 0.5, 0.0)
OUTLINES: dict[MarkName, Outline] = {
    "circle": (_CIRCLE,),
    "triangle": (_regular(3, 0.5, 90.0),),  # point up
    "cross": (_cross(0.34),),
    "star": (_star(5, 0.5, 0.24),),
    "square": (_regular(4, 0.5, 45.0),),
    "diamond": (_round([(0.0, 0.5), (-0.34, 0.0), (0.0, -0.5), (0.34, 0.0)]),),  # tall rhombus
    "ring": (_CIRCLE, _regular(32, 0.28, 0.0)),
    "chevron": (_chevron(),),
}


class WithPlayerColours(Protocol):
    """What a mark is read from: any kit's parameters (each player's colour may name one)."""

    @property
    def player_colours(self) -> Sequence[Any] | None: ...


def player_mark(params: WithPlayerColours, index: int) -> MarkName:
    """Player `index`'s mark (0-based): their own, else the default order's."""
    colours = params.player_colours
    chosen = colours[index].mark if colours and index < len(colours) else None
    return chosen or MARKS[index % len(MARKS)]


def mark_2d(name: MarkName, size: Number) -> OpenSCADObject:
    """The mark as a 2D OpenSCAD polygon, `size` across its circle, centred on the origin."""
    from solid2 import polygon, scale

    rings = OUTLINES[name]
    points = [list(point) for ring in rings for point in ring]
    paths, start = [], 0
    for ring in rings:
        paths.append(list(range(start, start + len(ring))))
        start += len(ring)
    return scale([size, size])(polygon(points, paths if len(rings) > 1 else None))


def mark_shape(name: MarkName, size: float, centre: tuple[float, float] = (0.0, 0.0)) -> Polygon:
    """The mark as a shapely polygon (for checks): `size` across, at `centre`."""
    from shapely.geometry import Polygon

    outer, *holes = OUTLINES[name]

    def placed(ring: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
        return [(centre[0] + size * x, centre[1] + size * y) for x, y in ring]

    return Polygon(placed(outer), [placed(hole) for hole in holes])


def flush_mark(name: MarkName, size: Number, frame: Number, depth: Number) -> OpenSCADObject:
    """What to cut from a top face at z = 0 so the mark stands in a recess `depth` deep,
    flush with the face: its outline grown by `frame`, less the mark. The face stays
    flat (a piece stacked on it still seats) and the mark reads by its shadow line."""
    from solid2 import difference, linear_extrude, offset, polygon, scale, translate

    from squadron_cad.geometry.shapes import EPSILON_MM

    outer = scale([size, size])(polygon([list(point) for point in OUTLINES[name][0]]))
    channel = difference()(offset(r=frame)(outer), mark_2d(name, size))
    return translate([0, 0, -depth])(linear_extrude(height=depth + EPSILON_MM)(channel))

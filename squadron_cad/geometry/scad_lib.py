"""Our small OpenSCAD library: modules the parts call, written into each file that uses them.

Each emitted .scad file is self-contained (it opens in the OpenSCAD GUI on its own), so the
modules a part calls are copied into it. The Python wrappers return solidpython2 objects
that call these modules with named arguments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from solid2.core.object_base import ObjectBase, OpenSCADObject


@dataclass(frozen=True)
class ScadModule:
    name: str
    source: str
    uses: tuple[str, ...] = ()


class ModuleCall(OpenSCADObject):
    """A call to one of our modules; the emitter copies its definition into the file."""

    def __init__(self, module: ScadModule, **params: object) -> None:
        super().__init__(module.name, params)
        self.module = module


OCTAGON = ScadModule(
    "octagon",
    """\
// Regular octagon, `width` across the corners; flats face the axes and diagonals.
module octagon(width) {
    rotate(22.5) circle(d = width, $fn = 8);
}
""",
)

CHAMFERED_PRISM = ScadModule(
    "chamfered_prism",
    """\
// Extrude a convex 2D child, with a 45 degree chamfer on the bottom edge.
module chamfered_prism(height, chamfer) {
    if (chamfer > 0) {
        hull() {
            translate([0, 0, chamfer]) linear_extrude(height = height - chamfer) children();
            linear_extrude(height = chamfer) offset(delta = -chamfer) children();
        }
    } else {
        linear_extrude(height = height) children();
    }
}
""",
)

RING_SEGMENT = ScadModule(
    "ring_segment",
    """\
// Flat annulus between two radii, from start_deg to end_deg; arcs follow $fa.
module ring_segment(r_inner, r_outer, start_deg, end_deg) {
    steps = max(2, ceil(abs(end_deg - start_deg) / $fa));
    angles = [for (i = [0:steps]) start_deg + (end_deg - start_deg) * i / steps];
    polygon(concat(
        [for (a = angles) r_outer * [cos(a), sin(a)]],
        [for (i = [steps:-1:0]) r_inner * [cos(angles[i]), sin(angles[i])]]
    ));
}
""",
)

ARC_LINE = ScadModule(
    "arc_line",
    """\
// A groove-width band along a circular arc (radius r, centred on the origin).
module arc_line(r, width, start_deg, end_deg) {
    ring_segment(r - width / 2, r + width / 2, start_deg, end_deg);
}
""",
    uses=("ring_segment",),
)

STROKES = ScadModule(
    "strokes",
    """\
// Our stroke font: each path is a polyline in em units (cap height 1), drawn at
// `height` with round ends `width` wide. Drawn by squadron_cad, not taken from a font.
module strokes(paths, height, width) {
    for (path = paths) for (i = [0:len(path) - 2]) hull() {
        translate(path[i] * height) circle(d = width, $fn = 8);
        translate(path[i + 1] * height) circle(d = width, $fn = 8);
    }
}
""",
)

SOCKET = ScadModule(
    "socket",
    """\
// Tapered socket cut up from z = 0, with a 45 degree mouth chamfer against elephant's foot.
module socket(diameter, tip_diameter, depth, chamfer, facets) {
    taper = (diameter - tip_diameter) / 2 / depth;
    r_chamfer = diameter / 2 - taper * chamfer;
    e = 0.01;
    rotate_extrude($fn = facets) polygon([
        [0, -e], [r_chamfer + chamfer + e, -e], [r_chamfer + chamfer, 0],
        [r_chamfer, chamfer], [tip_diameter / 2, depth], [0, depth]
    ]);
}
""",
)

ROUNDED_RECTANGLE = ScadModule(
    "rounded_rectangle",
    """\
// Centred rectangle with rounded corners: the hull of its four corner circles, so a
// radius of half the shorter side gives a stadium or a disc (offsetting the zero-size
// square between the centres gives nothing). Facets a multiple of 4, OpenSCAD's count
// rounded up: a vertex on each axis keeps the sides flat at the full size.
module rounded_rectangle(size, radius) {
    r = min(radius, size[0] / 2, size[1] / 2);
    if (r > 0) {
        sides = $fn > 0 ? max($fn, 3) : ceil(max(min(360 / $fa, 2 * PI * r / $fs), 5));
        hull() for (x = [-1, 1], y = [-1, 1])
            translate([x * (size[0] / 2 - r), y * (size[1] / 2 - r)])
                circle(r = r, $fn = 4 * ceil(sides / 4));
    } else {
        square(size, center = true);
    }
}
""",
)

MODULES: dict[str, ScadModule] = {
    m.name: m
    for m in (
        OCTAGON,
        CHAMFERED_PRISM,
        RING_SEGMENT,
        ARC_LINE,
        STROKES,
        SOCKET,
        ROUNDED_RECTANGLE,
    )
}


def modules_used(root: ObjectBase) -> list[ScadModule]:
    """Definitions a tree needs, dependencies first, each once."""
    names: list[str] = []
    for node in _walk(root):
        if isinstance(node, ModuleCall):
            _add_with_dependencies(node.module.name, names)
    return [MODULES[name] for name in names]


def _add_with_dependencies(name: str, names: list[str]) -> None:
    if name in names:
        return
    for dependency in MODULES[name].uses:
        _add_with_dependencies(dependency, names)
    names.append(name)


def _walk(node: ObjectBase) -> Iterable[ObjectBase]:
    yield node
    for child in getattr(node, "_children", []):
        yield from _walk(child)

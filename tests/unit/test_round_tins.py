"""Round, near-round and oval tins, for every kit: the layout keeps every pocket inside the
box's rounded inner wall, and the box's outline inside the tin's. (The renders of such
boxes are measured in tests/unit/test_scad_lib.py and the kits' integration tests.)"""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import MultiPoint, Point

from squadron_cad.errors import InputError
from squadron_cad.fit import simple
from squadron_cad.fit.layout import BoxShape
from squadron_cad.fit.layout_io import rounded_rect_points
from squadron_cad.fit.units import Piece, Unit
from squadron_cad.geometry import frames
from squadron_cad.kit import design_of
from squadron_cad.resolve import resolve

# Per kit: the sides of a round tin that holds it and of an oval one, and any other key.
KITS = {
    "squadron-leader": ((150, 150), (170, 120), []),
    "space-planes": ((150, 150), (250, 120), []),
    # Its box holds the table's pieces only (the squadrons have ship boxes): the 203 mm
    # gauge lies along a 260 x 120 stadium (at 250 its pockets' corners reach the ends).
    "squadrons": ((230, 230), (260, 120), ["tin.inner_depth_mm=40"]),
}
# Which tin, and how far its corner radius is short of half its width: exactly round, a
# tenth and half a mm short of round, an oval's stadium and a near-stadium.
SHAPES = {
    "round": (0, 0.0),
    "round-0.1": (0, 0.1),
    "round-0.5": (0, 0.5),
    "stadium": (1, 0.0),
    "stadium-0.5": (1, 0.5),
}


def outside_by(points: np.ndarray, length: float, width: float, radius: float) -> float:
    """How far the farthest point lies outside a centred rounded rectangle (<= 0: inside),
    measured as the distance to the hull of its corner centres, less the radius."""
    hx, hy = length / 2 - radius, width / 2 - radius
    centres = MultiPoint([(hx, hy), (-hx, hy), (-hx, -hy), (hx, -hy)]).convex_hull
    return max(centres.distance(Point(x, y)) - radius for x, y in points)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("kit", list(KITS))
def test_round_and_oval_tins_hold_every_kit_inside_the_walls(kit: str, shape: str) -> None:
    """Space Planes in a 150 mm round tin once had its pockets 4.2 mm through the wall."""
    which, short = SHAPES[shape]
    length, width = KITS[kit][which]
    radius = width / 2 - short
    extra = KITS[kit][2]
    sizes = [f"tin.inner_length_mm={length}", f"tin.inner_width_mm={width}"]
    params = resolve(kit=kit, overrides=[*sizes, f"tin.corner_radius_mm={radius}", *extra])
    layout = design_of(params).layout
    box, tin = layout.box, params.tin
    pockets = np.vstack([pocket.points for pocket in layout.pockets if not pocket.on_top])
    inner = (box.inner_length, box.inner_width, box.inner_radius)
    assert outside_by(pockets, *inner) <= 1e-6
    assert layout.margins["corner"] >= 0
    outline = rounded_rect_points(box.length, box.width, box.radius, steps=90)
    tin_inside = (tin.inner_length_mm, tin.inner_width_mm, tin.corner_radius_mm)
    assert outside_by(outline, *tin_inside) <= -params.box.tin_clearance_mm + 1e-6


def _squares(count: int, side: float) -> list[Unit]:
    bounds = ((0.0, 0.0, 0.0), (side, side, 5.0))
    return [
        Unit(
            f"u{k}",
            "flat",
            (side, side, 5.0),
            (Piece(f"u{k}", "block", frames.identity(), bounds),),
        )
        for k in range(count)
    ]


def _round_box(radius: float) -> BoxShape:
    return BoxShape(150, 150, 20, radius, 2.0, 1.2, 0.0, 0.0)  # no gap: box radius = tin's


def test_pockets_through_a_round_corner_are_refused_naming_the_radius_that_fits() -> None:
    """Four 52 mm squares fit a 146 mm box's length and width, not its round inside; the
    tin radius the refusal names lets them fit."""
    pieces = _squares(4, 52)
    with pytest.raises(InputError, match="into the box's rounded corners") as refused:
        simple.stow(_round_box(75), pieces, clearance=0.3, divider=1.2, box_part="b", lid_part=None)
    figure = str(refused.value).split("tin.corner_radius_mm ")[1].split(" ")[0]
    tin_radius = float(figure)
    layout = simple.stow(
        _round_box(tin_radius),
        pieces,
        clearance=0.3,
        divider=1.2,
        box_part="b",
        lid_part=None,
    )
    assert layout.margins["corner"] >= 0

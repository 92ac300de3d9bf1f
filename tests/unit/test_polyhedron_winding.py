"""Polyhedra we list by hand face outward, as OpenSCAD's convention says (clockwise seen
from outside): CGAL repairs a reversed one silently, the Manifold backend keeps it."""

from __future__ import annotations

import pytest
import trimesh

from squadron_cad.geometry.shapes import v_prism


def outward_volume(points: list[list[float]], faces: list[list[int]]) -> float:
    """Signed volume with OpenSCAD's winding (clockwise from outside): positive if right."""
    triangles = [
        [face[0], face[i + 1], face[i]] for face in faces for i in range(1, len(face) - 1)
    ]  # each fan triangle reversed into trimesh's counter-clockwise convention
    return float(trimesh.Trimesh(points, triangles, process=False).volume)


@pytest.mark.parametrize(("length", "half_base", "height"), [(10, 2, 3), (1, 0.5, 0.2)])
def test_v_prism_faces_point_outward(length: float, half_base: float, height: float) -> None:
    params = v_prism(length, half_base, height)._params
    volume = outward_volume(params["points"], params["faces"])
    assert volume == pytest.approx(length * half_base * height)  # base 2h x height / 2

"""Our OpenSCAD library's modules, rendered by the real OpenSCAD and measured: a test file
for the library file (geometry/scad_lib.py)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
import trimesh

from squadron_cad.geometry import scad_lib
from squadron_cad.render import openscad

pytestmark = pytest.mark.skipif(shutil.which("openscad") is None, reason="no OpenSCAD")

QUALITY = {"draft": "$fa = 12; $fs = 1;", "final": "$fa = 3; $fs = 0.3;"}  # as emit writes

# (length, width, radius): a round tin's disc, near-discs, stadiums (oval tins), a plain tin
ROUNDED = [
    (150, 150, 75),
    (150, 150, 74.9),
    (150, 150, 74.5),
    (200, 120, 60),
    (200, 120, 59.9),
    (100, 60, 8),
    (100, 60, 0),
    (9.4, 9.4, 4.7),  # a small disc: facets from $fs
]


def _extruded(call: str, quality: str, tmp_path: Path) -> trimesh.Trimesh:
    source = f"{QUALITY[quality]}\n{scad_lib.ROUNDED_RECTANGLE.source}\n"
    source += f"linear_extrude(height = 1) {call};\n"
    target = tmp_path / "shape.stl"
    openscad.render(openscad.locate(), "shape", source, target, timeout_s=60)
    return trimesh.load_mesh(target)


@pytest.mark.parametrize(
    ("length", "width", "radius", "quality"),
    [(*size, "draft") for size in ROUNDED] + [(*size, "final") for size in ROUNDED[:4]],
)
def test_a_rounded_rectangle_has_its_full_size_and_rounded_area(
    length: float, width: float, radius: float, quality: str, tmp_path: Path
) -> None:
    """Round and near-round corners included: a radius of half the shorter side once made
    an empty shape (a round tin's box and lid failed to render, or lost their wall)."""
    mesh = _extruded(f"rounded_rectangle([{length}, {width}], {radius})", quality, tmp_path)
    assert mesh.is_watertight
    assert len(mesh.split(only_watertight=False)) == 1
    assert mesh.extents[0] == pytest.approx(length, abs=1e-3)  # flat at the full size
    assert mesh.extents[1] == pytest.approx(width, abs=1e-3)
    ideal = length * width - (4 - math.pi) * radius**2
    assert mesh.volume <= ideal + 1e-3  # facets cut inside the true outline, never out
    assert mesh.volume == pytest.approx(ideal, rel=0.01)

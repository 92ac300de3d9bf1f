"""A laser file's layers and a mesh's sections as shapely regions, to hold the paper edition's
pieces against their 3D parts (tests/ is on the path: see tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh
from lxml import etree
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from squadron_cad.paper.measure import parse_path_data

SVG = "{http://www.w3.org/2000/svg}"


def layer_rings(svg_file: Path, name: str) -> list[list[tuple[float, float]]]:
    """Every closed ring of the layer (an SVG group by id), in mm, y up."""
    root = etree.parse(str(svg_file)).getroot()
    height = float(root.get("viewBox").split()[3])
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == name)
    return [
        ring for path in group.iter(f"{SVG}path") for ring in parse_path_data(path.get("d"), height)
    ]


def layer(svg_file: Path, name: str) -> BaseGeometry:
    """The region the layer's rings enclose (even-odd: a hole's ring cuts it out)."""
    return xor([Polygon(ring) for ring in layer_rings(svg_file, name)])


def section(mesh: trimesh.Trimesh, height: float) -> BaseGeometry:
    """The mesh's solid where the plane z = height cuts it (empty above it)."""
    cut = mesh.section(plane_origin=[0, 0, height], plane_normal=[0, 0, 1])
    if cut is None:
        return Polygon()
    planar, to_3d = cut.to_2D(to_2D=np.eye(4))
    assert np.allclose(to_3d[:2, :2], np.eye(2))
    return xor(planar.polygons_closed)


def xor(polygons) -> BaseGeometry:
    region: BaseGeometry = Polygon()
    for polygon in polygons:
        if polygon is not None and polygon.area > 0:
            region = region.symmetric_difference(polygon.buffer(0))
    return region

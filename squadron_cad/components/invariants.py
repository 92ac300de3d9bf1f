"""The invariant record every kit writes into the manifest, and the meshes it may measure.

An invariant is one rule of the game measured on the meshes:
`{name, expected, measured, tolerance, ok}`; a measure that could not be taken (None or
NaN) fails.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import trimesh

from squadron_cad.checks import meshgeo

Invariant = dict[str, object]


def invariant(name: str, expected: float, measured: float | None, tolerance: float) -> Invariant:
    if measured is None or math.isnan(measured):
        kept, ok = None, False
    else:
        kept = round(float(measured), 4) + 0.0
        ok = abs(measured - expected) <= tolerance + 1e-9
    return {
        "name": name,
        "expected": round(float(expected), 4),
        "measured": kept,
        "tolerance": round(tolerance, 6),
        "ok": bool(ok),
    }


def is_valid_solid(mesh: trimesh.Trimesh | None) -> bool:
    """Present and a valid closed solid (the mesh checks report the others)."""
    return mesh is not None and meshgeo.is_valid_solid(meshgeo.solid_of(mesh))


def valid_solids(meshes: Mapping[str, trimesh.Trimesh]) -> dict[str, trimesh.Trimesh]:
    """The meshes a kit's checks can measure: the closed, valid solids."""
    return {name: mesh for name, mesh in meshes.items() if is_valid_solid(mesh)}


def unmeasured(meshes: Mapping[str, trimesh.Trimesh]) -> list[Invariant]:
    """A failed invariant for each part that is no closed solid, so none goes unmeasured."""
    return [
        invariant(f"{name}: a closed solid to measure", 1, 0, 0)
        for name in sorted(set(meshes) - set(valid_solids(meshes)))
    ]

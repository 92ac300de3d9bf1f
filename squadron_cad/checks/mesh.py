"""Mesh validity: closed, consistently wound, positive volume, the declared bodies,
a flat face on the bed and inside the print volume."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import trimesh

from squadron_cad.bed import Bed, place_mesh
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.errors import ToolError

BED_TOLERANCE_MM = 1e-3
MIN_BED_CONTACT_FRACTION = 0.15  # of the part's footprint: less and it tips or peels


BedSize = Bed  # the print volume, as squadron_cad.bed models it


def load_mesh(path: Path) -> trimesh.Trimesh:
    try:  # read the bytes here: given a path, trimesh treats a failed open as mesh text
        data = Path(path).read_bytes()
    except OSError as error:
        raise ToolError(f"cannot read mesh {path}: {error.strerror}") from error
    try:
        mesh = trimesh.load_mesh(io.BytesIO(data), file_type="stl")
    except ValueError as error:
        raise ToolError(f"cannot read mesh {path}: {error}") from error
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ToolError(f"{path} holds no mesh")
    return mesh


def mesh_findings(
    part: str, mesh: trimesh.Trimesh, bodies: int, bed: BedSize, instead: str | None = None
) -> list[Finding]:
    """The mesh checks; `instead` names what to print when an optional part misses the bed."""
    return [
        _watertight(part, mesh),
        _winding(part, mesh),
        _volume(part, mesh),
        _bodies(part, mesh, bodies),
        _flat_on_bed(part, mesh),
        _fits_bed(part, mesh, bed, instead),
    ]


def _watertight(part: str, mesh: trimesh.Trimesh) -> Finding:
    ok = bool(mesh.is_watertight)
    open_edges = 0 if ok else len(trimesh.grouping.group_rows(mesh.edges_sorted, require_count=1))
    return Finding(
        part,
        "watertight",
        f"{open_edges} open edges",
        "0 open edges",
        verdict(ok),
        "" if ok else f"the mesh has {open_edges} open edges (holes)",
    )


def _winding(part: str, mesh: trimesh.Trimesh) -> Finding:
    ok = bool(mesh.is_winding_consistent)
    return Finding(
        part,
        "winding",
        "consistent" if ok else "inconsistent",
        "consistent",
        verdict(ok),
        "" if ok else "face normals disagree: some faces are flipped",
    )


def _volume(part: str, mesh: trimesh.Trimesh) -> Finding:
    volume = float(mesh.volume)
    ok = volume > 0 and bool(mesh.is_volume)
    return Finding(
        part,
        "volume",
        round(volume, 2),
        "> 0 mm3, a closed solid",
        verdict(ok),
        "" if ok else f"volume {volume:.2f} mm3: not a printable solid (inside out or open)",
    )


def count_bodies(mesh: trimesh.Trimesh) -> int:
    return len(mesh.split(only_watertight=False))


def _bodies(part: str, mesh: trimesh.Trimesh, expected: int) -> Finding:
    found = count_bodies(mesh)
    ok = found == expected
    return Finding(
        part,
        "bodies",
        found,
        expected,
        verdict(ok),
        "" if ok else f"{found} separate bodies where {expected} expected (loose islands?)",
    )


def bed_contact_area(mesh: trimesh.Trimesh) -> float:
    """Area of the downward faces lying on z = min z."""
    z_min = mesh.bounds[0][2]
    on_bed = np.all(np.abs(mesh.triangles[:, :, 2] - z_min) < BED_TOLERANCE_MM, axis=1)
    downward = mesh.face_normals[:, 2] < -0.999
    return float(mesh.area_faces[on_bed & downward].sum())


def footprint_area(mesh: trimesh.Trimesh) -> float:
    hull = trimesh.path.polygons.projected(mesh, normal=[0, 0, 1])
    return float(hull.convex_hull.area) if hull is not None else 0.0


def _flat_on_bed(part: str, mesh: trimesh.Trimesh) -> Finding:
    z_min = float(mesh.bounds[0][2])
    contact = bed_contact_area(mesh)
    footprint = footprint_area(mesh)
    fraction = contact / footprint if footprint > 0 else 0.0
    ok = abs(z_min) < BED_TOLERANCE_MM and fraction >= MIN_BED_CONTACT_FRACTION
    return Finding(
        part,
        "flat_on_bed",
        f"z min {z_min:.3f}, contact {contact:.0f} mm2 ({fraction:.0%} of footprint)",
        f"z min 0, contact at least {MIN_BED_CONTACT_FRACTION:.0%}",
        verdict(ok),
        ""
        if ok
        else f"the part does not sit flat on the bed (z min {z_min:.3f} mm, "
        f"{fraction:.0%} of its footprint touches)",
    )


def _fits_bed(part: str, mesh: trimesh.Trimesh, bed: Bed, instead: str | None = None) -> Finding:
    """Fits at some turn about z (the bed model), as the slicer and the plates place it."""
    x, y, z = (float(v) for v in mesh.extents)
    placed = place_mesh(mesh, bed)
    turned = f", turned {placed.turn_deg:g} deg" if placed.fits and placed.turn_deg else ""
    message = (
        f"{x:.1f} x {y:.1f} x {z:.1f} mm does not fit the {bed.describe()} bed at any turn "
        "(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)"
    )
    if instead:
        message += f"; print {instead} instead"
    return Finding(
        part,
        "fits_bed",
        f"{x:.1f} x {y:.1f} x {z:.1f}{turned}",
        f"within {bed.describe()}",
        verdict(placed.fits, failing="warning" if instead else "error"),
        "" if placed.fits else message,
    )

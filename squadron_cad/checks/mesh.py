"""Mesh validity: closed, consistently wound, positive volume, the declared bodies,
a flat face on the bed and inside the print volume."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
import trimesh

from squadron_cad.bed import Bed, place_mesh
from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.checks.meshgeo import solid_of
from squadron_cad.checks.stlbytes import binary_stl_problem
from squadron_cad.errors import ToolError

BED_TOLERANCE_MM = 1e-3
MIN_BED_CONTACT_FRACTION = 0.15  # of the part's footprint: less and it tips or peels


BedSize = Bed  # the print volume, as squadron_cad.bed models it


def load_mesh(path: Path) -> trimesh.Trimesh:
    try:  # read the bytes here: given a path, trimesh treats a failed open as mesh text
        data = Path(path).read_bytes()
    except OSError as error:
        raise ToolError(f"cannot read mesh {path}: {error.strerror}") from error
    problem = binary_stl_problem(data)
    if problem is not None and not data.startswith(b"solid"):  # nor an ASCII STL
        raise ToolError(f"cannot read mesh {path}: {problem}")
    try:
        mesh = trimesh.load_mesh(io.BytesIO(data), file_type="stl")
    except (ValueError, ImportError) as error:  # ImportError: trimesh's text decoders
        raise ToolError(f"cannot read mesh {path}: {error}") from error
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ToolError(f"{path} holds no mesh")
    return mesh


def mesh_volume(mesh: trimesh.Trimesh) -> float:
    """The mesh's signed volume. trimesh works out the centre of mass with it, and a flat
    mesh's zero volume makes numpy warn on stderr: the mesh checks say what is wrong."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(mesh.volume)


def mesh_findings(
    part: str, mesh: trimesh.Trimesh, bodies: int, bed: BedSize, instead: str | None = None
) -> list[Finding]:
    """The mesh checks; `instead` names what to print when an optional part misses the bed."""
    solid = judge_solid(mesh)
    return [
        _watertight(part, mesh, solid),
        _winding(part, mesh, solid),
        _volume(part, solid),
        _bodies(part, mesh, bodies),
        _flat_on_bed(part, mesh),
        _fits_bed(part, mesh, bed, instead),
    ]


@dataclass(frozen=True)
class SolidVerdict:
    """How manifold3d, a robust kernel, reads a mesh: whether it is one closed, consistently
    wound manifold, and if so its bodies (components) and each body's signed volume."""

    status: str  # manifold3d's error name; "NoError" when it accepts the mesh
    body_volumes_mm3: tuple[float, ...]

    @property
    def accepted(self) -> bool:
        return self.status == "NoError" and len(self.body_volumes_mm3) > 0

    @property
    def bodies(self) -> int:
        return len(self.body_volumes_mm3)

    @property
    def volume_mm3(self) -> float:
        return float(sum(self.body_volumes_mm3))


def judge_solid(mesh: trimesh.Trimesh) -> SolidVerdict:
    """Validity as a robust kernel sees it, not as trimesh's welding by position sees it.

    Manifold's meshes keep zero-area triangles and zero-length edges where an overshoot
    plane was cut away; welded by position, their edges are shared by 4 or 6 triangles, so
    trimesh calls the mesh open and splits it into hundreds of bodies. manifold3d pairs each
    edge's half-edges and drops the degenerate triangles: a true hole or a flipped face is
    still refused (NotManifold), and an inside-out shell keeps its negative volume.
    """
    solid = solid_of(mesh)
    status = solid.status().name
    if status != "NoError":
        return SolidVerdict(status, ())
    return SolidVerdict(status, tuple(float(body.volume()) for body in solid.decompose()))


def _watertight(part: str, mesh: trimesh.Trimesh, solid: SolidVerdict) -> Finding:
    if solid.accepted:
        return Finding(part, "watertight", "0 open edges", "0 open edges", verdict(True), "")
    open_edges = len(trimesh.grouping.group_rows(mesh.edges_sorted, require_count=1))
    reason = (
        f"the mesh has {open_edges} open edges (holes)"
        if open_edges
        else f"the mesh is not one closed manifold ({solid.status})"
    )
    return Finding(
        part, "watertight", f"{open_edges} open edges", "0 open edges", verdict(False), reason
    )


def _winding(part: str, mesh: trimesh.Trimesh, solid: SolidVerdict) -> Finding:
    # manifold3d refuses a flipped face (its edges cannot pair); trimesh says which it is
    ok = solid.accepted or bool(mesh.is_winding_consistent)
    return Finding(
        part,
        "winding",
        "consistent" if ok else "inconsistent",
        "consistent",
        verdict(ok),
        "" if ok else "face normals disagree: some faces are flipped",
    )


def _volume(part: str, solid: SolidVerdict) -> Finding:
    inside_out = [v for v in solid.body_volumes_mm3 if v <= 0]
    ok = solid.accepted and solid.volume_mm3 > 0 and not inside_out
    if ok:
        message = ""
    elif inside_out:
        message = (
            f"{len(inside_out)} inside-out shell(s), {sum(inside_out):.2f} mm3: "
            "a polyhedron's faces are listed the wrong way round"
        )
    else:
        message = f"volume {solid.volume_mm3:.2f} mm3: not a printable solid (inside out or open)"
    return Finding(
        part,
        "volume",
        round(solid.volume_mm3, 2),
        "> 0 mm3, a closed solid",
        verdict(ok),
        message,
    )


def count_bodies(mesh: trimesh.Trimesh) -> int:
    """Bodies as manifold3d counts them; a mesh it refuses is counted by its connected faces
    (the watertight check has failed it already)."""
    solid = judge_solid(mesh)
    return solid.bodies if solid.accepted else len(mesh.split(only_watertight=False))


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
    """The area of the part's convex outline seen from above: the hull of its vertices
    (the hull of the projected faces, without unioning them first: 10-20 x quicker)."""
    return float(shapely.MultiPoint(mesh.vertices[:, :2]).convex_hull.area)


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

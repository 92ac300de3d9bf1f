"""Binary STL files as OpenSCAD writes them: read, verified, put in canonical order, and a
Manifold mesh cleaned of its zero-area slivers."""

from __future__ import annotations

from pathlib import Path

import manifold3d
import numpy as np

from squadron_cad.checks.stlbytes import STL_HEADER_BYTES, binary_stl_problem
from squadron_cad.errors import ToolError

_STL_HEADER = b"squadron_cad binary STL (triangles in canonical order)".ljust(80, b" ")
_STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("vertices", "<f4", (3, 3)), ("attribute", "<u2")])
# Edges shorter than this are collapsed when a Manifold mesh is cleaned: far below a
# printer's resolution (and a float32 STL's at 100 mm is 1e-5 mm), far above zero.
CLEAN_TOLERANCE_MM = 1e-4


def clean_stl(part: str, path: Path) -> bool:
    """Rewrite a Manifold-made STL without its degenerate triangles and zero-length edges.

    Manifold keeps zero-area triangles where an overshoot plane was cut away; welded by
    position they make edges shared by 4 or 6 triangles, which trimesh-based tools and some
    slicers read as holes. manifold3d reads the mesh as the kernel does and collapses edges
    shorter than CLEAN_TOLERANCE_MM. A mesh manifold3d refuses is left as it is, for the
    mesh checks to report. Returns whether the file was rewritten.
    """
    records = read_binary_stl(part, path.read_bytes())
    corners = records["vertices"].reshape(-1, 3)
    positions, index = np.unique(corners, axis=0, return_inverse=True)
    mesh = manifold3d.Mesh(
        vert_properties=positions.astype(np.float32),
        tri_verts=index.reshape(-1, 3).astype(np.uint32),
    )
    solid = manifold3d.Manifold(mesh)
    if solid.status() != manifold3d.Error.NoError or solid.is_empty():
        return False
    if hasattr(solid, "simplify"):  # manifold3d 3.x: collapse the slivers' short edges too
        solid = solid.simplify(CLEAN_TOLERANCE_MM)
    cleaned = solid.to_mesh()
    vertices = np.asarray(cleaned.vert_properties, dtype=np.float32)[:, :3]
    write_binary_stl(path, vertices[np.asarray(cleaned.tri_verts)])
    return True


def verify_binary_stl(part: str, path: Path) -> int:
    """The STL is whole and finite; its triangles are rewritten in a canonical order.

    OpenSCAD (CGAL) lists the same triangles in a different order from run to run; sorting
    them makes the same source give a byte-identical file.
    """
    data = path.read_bytes()
    records = read_binary_stl(part, data)
    path.write_bytes(_STL_HEADER + data[80:84] + _canonical(records).tobytes())
    return len(records)


def read_binary_stl(part: str, data: bytes) -> np.ndarray:
    """The triangle records of a whole, finite binary STL, or a ToolError."""
    size = len(data)
    if size < STL_HEADER_BYTES:
        raise ToolError(f"{part}: OpenSCAD wrote no mesh")
    if data[80:84] == bytes(4) or binary_stl_problem(data) is not None:
        raise ToolError(f"{part}: OpenSCAD wrote an empty or truncated STL ({size} bytes)")
    records = np.frombuffer(data, dtype=_STL_RECORD, offset=STL_HEADER_BYTES)
    if not np.isfinite(records["vertices"]).all():
        raise ToolError(f"{part}: OpenSCAD wrote a mesh with non-finite (NaN) vertices")
    return records


def write_binary_stl(path: Path, triangles: np.ndarray) -> None:
    """Triangles (n x 3 x 3, counter-clockwise from outside) as a binary STL at path."""
    records = np.zeros(len(triangles), dtype=_STL_RECORD)
    records["vertices"] = triangles
    edges = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    lengths = np.linalg.norm(edges, axis=1, keepdims=True)
    records["normal"] = np.divide(edges, lengths, out=np.zeros_like(edges), where=lengths > 0)
    path.write_bytes(_STL_HEADER + len(records).to_bytes(4, "little") + records.tobytes())


def _canonical(records: np.ndarray) -> np.ndarray:
    """Each triangle starting at its smallest vertex (winding kept), triangles sorted."""
    vertices = records["vertices"]
    first = np.lexsort((vertices[:, :, 2], vertices[:, :, 1], vertices[:, :, 0]), axis=-1)[:, 0]
    turn = (np.arange(3)[None, :] + first[:, None]) % 3
    out = records.copy()
    out["vertices"] = np.take_along_axis(vertices, turn[:, :, None], axis=1)
    out["attribute"] = 0
    flat = out["vertices"].reshape(len(out), 9)
    order = np.lexsort(flat.T[::-1])
    return out[order]

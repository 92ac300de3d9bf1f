"""A binary STL's size against its triangle count: what the render wrapper verifies
after OpenSCAD and what the mesh checks verify before trimesh reads a file (which takes a
damaged one for text). Here, below both, so neither imports the other."""

from __future__ import annotations

STL_HEADER_BYTES = 84  # an 80-byte header, then the triangle count
STL_TRIANGLE_BYTES = 50  # a normal, three corners (float32) and a 2-byte attribute


def binary_stl_problem(data: bytes) -> str | None:
    """What is wrong with data as a whole binary STL (its size must match its triangle
    count), or None."""
    size = len(data)
    if size < STL_HEADER_BYTES:
        return f"not an STL: {size} bytes, fewer than a binary STL's {STL_HEADER_BYTES}-byte header"
    triangles = int.from_bytes(data[80:84], "little")
    expected = STL_HEADER_BYTES + STL_TRIANGLE_BYTES * triangles
    if size != expected:
        return (
            f"a damaged binary STL: {triangles} triangles take {expected} bytes, "
            f"the file has {size}"
        )
    return None

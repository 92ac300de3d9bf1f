"""The mesh checks judge a solid as manifold3d (a robust kernel) reads it, not as trimesh's
welding by position does: Manifold's meshes keep zero-area triangles along cut-away
overshoot planes, which a weld turns into edges shared by 4 triangles."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from squadron_cad.checks.mesh import BedSize, count_bodies, judge_solid, mesh_findings

BED = BedSize(250, 210, 220)


def by_check(findings: list, check: str):
    return next(f for f in findings if f.check == check)


def block() -> trimesh.Trimesh:
    mesh = trimesh.creation.box([10, 10, 4])
    mesh.apply_translation([0, 0, 2])
    return mesh


def with_zero_area_sliver(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """Two zero-area triangles lying on one edge, facing each other, with a zero-length
    edge's worth of extra vertex: what Manifold leaves where an overshoot was cut away."""
    first, second = mesh.edges_unique[0]
    middle = mesh.vertices[[first, second]].mean(axis=0)
    vertices = np.vstack([mesh.vertices, middle])
    extra = len(vertices) - 1
    faces = np.vstack([mesh.faces, [[first, extra, second], [second, extra, first]]])
    return trimesh.Trimesh(vertices, faces, process=False)


def inside_out(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    return trimesh.Trimesh(mesh.vertices, mesh.faces[:, ::-1], process=False)


def test_a_zero_area_sliver_does_not_open_a_solid() -> None:
    slivered = with_zero_area_sliver(block())
    assert not slivered.is_watertight  # trimesh: the edge is shared by 4 triangles
    assert len(slivered.split(only_watertight=False)) == 2
    findings = mesh_findings("part", slivered, 1, BED)
    for check in ("watertight", "winding", "volume", "bodies"):
        assert not by_check(findings, check).failed, check
    assert count_bodies(slivered) == 1
    assert judge_solid(slivered).volume_mm3 == pytest.approx(400.0)


def test_an_inside_out_shell_inside_a_part_is_caught() -> None:
    # The stat dial clip's defect: a reversed polyhedron left as a stray shell inside.
    stray = inside_out(trimesh.creation.box([1, 1, 1]))
    stray.apply_translation([0, 0, 2])
    part = trimesh.util.concatenate([block(), stray])
    findings = mesh_findings("clip", part, 1, BED)
    volume = by_check(findings, "volume")
    assert volume.failed
    assert "inside-out shell" in volume.message
    assert "-1.00 mm3" in volume.message
    assert by_check(findings, "bodies").measured == 2


def test_a_part_inside_out_is_caught() -> None:
    findings = mesh_findings("part", inside_out(block()), 1, BED)
    assert by_check(findings, "volume").failed
    assert judge_solid(inside_out(block())).volume_mm3 == pytest.approx(-400.0)


def test_a_flipped_face_is_caught() -> None:
    mesh = block()
    faces = mesh.faces.copy()
    faces[0] = faces[0][::-1]
    flipped = trimesh.Trimesh(mesh.vertices, faces, process=False)
    findings = mesh_findings("part", flipped, 1, BED)
    assert by_check(findings, "winding").failed
    watertight = by_check(findings, "watertight")
    assert watertight.failed
    assert "not one closed manifold" in watertight.message


def test_a_hole_is_named_with_its_open_edges() -> None:
    mesh = block()
    holed = trimesh.Trimesh(mesh.vertices, mesh.faces[1:], process=False)
    watertight = by_check(mesh_findings("part", holed, 1, BED), "watertight")
    assert watertight.failed
    assert watertight.measured == "3 open edges"
    assert not judge_solid(holed).accepted


@pytest.mark.parametrize(("cut", "words"), [(1, "the file has 185"), (-110, "fewer than")])
def test_a_damaged_stl_is_named_as_such(tmp_path, cut: int, words: str) -> None:
    """A byte added or the file cut short: said plainly, not as trimesh's attempt to read
    it as text (it asked for a charset module)."""
    from squadron_cad.checks.mesh import load_mesh
    from squadron_cad.errors import ToolError
    from squadron_cad.render.stl import write_binary_stl

    path = tmp_path / "part.stl"
    write_binary_stl(path, np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]] * 2, dtype=float))
    data = path.read_bytes()
    path.write_bytes(data + b"x" * cut if cut > 0 else data[:cut])
    with pytest.raises(ToolError, match=words) as caught:
        load_mesh(path)
    assert "module" not in str(caught.value)

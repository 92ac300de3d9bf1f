"""The packed box on the real meshes: every piece rendered by the build, placed where the
solver says, clears every other piece and the box, stays under the lid, and the box sits in
its tin with the clearance. For the default tin, a preset and a user-measured tin."""

from __future__ import annotations

import json
import math
import shutil
from itertools import combinations
from pathlib import Path

import manifold3d
import numpy as np
import pytest
import trimesh

from squadron_cad.fit.layout import Layout
from squadron_cad.fit.layout_io import (
    layout_json,
    write_assembly,
    write_layout,
    write_layout_png,
)
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import items
from squadron_cad.kits.squadron_leader.stowing.tin_fit import solve
from squadron_cad.resolve import resolve

pytestmark = [
    pytest.mark.skipif(shutil.which("openscad") is None, reason="OpenSCAD is not installed"),
]

CONTENT_PARTS = (
    "plane_token",
    "altitude_token",
    "stat_dial_card",
    "stat_dial_clip",
    "range_ruler_1",
    "range_ruler_2",
    "range_ruler_3",
    "template_all",
)
TINS = {
    "default": (None, []),
    "v2-box": ("v2-box", []),
    "measured": (
        None,
        [
            "tin.name=measured",
            "tin.inner_length_mm=120",
            "tin.inner_width_mm=86",
            "tin.inner_depth_mm=22",
            "tin.corner_radius_mm=10",
            "tin.approximate=false",
        ],
    ),
    "altoids": ("altoids", []),  # one pilot's pieces; the rest left out
    "round": (  # a round tin, as params/tins/custom.yaml describes one: its lid once
        None,  # failed to render ("top level object is empty") and its box lost its wall
        ["tin.inner_length_mm=150", "tin.inner_width_mm=150", "tin.corner_radius_mm=75"],
    ),
    "deep": (  # deep enough for whole stacks: the template gets its own pocket
        None,
        [
            "tin.inner_length_mm=150",
            "tin.inner_width_mm=100",
            "tin.inner_depth_mm=30",
            "tin.corner_radius_mm=6",
        ],
    ),
}
APART_MM3 = 0.01  # two pieces (or a piece and the box) may share this much: float noise
SAME_UNIT_MM3 = 0.5  # a seated clip grips its card: stat_dial.grip_mm of interference


def _draft(tin: str | None, overrides: list[str]) -> SquadronLeaderParams:
    return resolve(overrides=["quality=draft", *overrides], tin=tin)


@pytest.fixture(scope="module")
def contents(tmp_path_factory: pytest.TempPathFactory, render_parts) -> Path:
    """The pieces once, at draft quality (the tins below change only the box)."""
    return render_parts(_draft(None, []), CONTENT_PARTS, tmp_path_factory.mktemp("fit") / "kit")


@pytest.fixture(scope="module", params=list(TINS))
def packed(
    request: pytest.FixtureRequest, contents: Path, render_parts, tmp_path_factory
) -> tuple[SquadronLeaderParams, Layout, Path]:
    """One output folder per tin: the pieces, its box and lid, and layout.json."""
    tin, overrides = TINS[request.param]
    params = _draft(tin, overrides)
    out = tmp_path_factory.mktemp(request.param)
    boxes = render_parts(params, ("box", "box_lid"), out / "box")
    (out / "stl").mkdir()
    for name in CONTENT_PARTS:
        shutil.copy(contents / f"{name}.stl", out / "stl" / f"{name}.stl")
    for name in ("box", "box_lid"):
        shutil.copy(boxes / f"{name}.stl", out / "stl" / f"{name}.stl")
    layout = solve(params)
    write_layout(layout, params, out)
    if request.param == "deep":
        assert layout.on_top is None
        assert "stacks whole" in layout.strategy
    return params, layout, out


def _solid(mesh: trimesh.Trimesh, matrix: np.ndarray | None = None) -> manifold3d.Manifold:
    solid = manifold3d.Manifold(
        manifold3d.Mesh(
            vert_properties=np.asarray(mesh.vertices, dtype=np.float32),
            tri_verts=np.asarray(mesh.faces, dtype=np.uint32),
        )
    )
    assert solid.status() == manifold3d.Error.NoError
    return solid if matrix is None else solid.transform(np.asarray(matrix)[:3, :])


def _shared(a: manifold3d.Manifold, b: manifold3d.Manifold) -> float:
    return float((a ^ b).volume())


def _placed(out: Path) -> list[tuple[str, manifold3d.Manifold, np.ndarray]]:
    """Every content of layout.json, loaded as an independent program would."""
    data = json.loads((out / "layout.json").read_text())
    meshes: dict[str, trimesh.Trimesh] = {}
    placed = []
    for entry in data["contents"]:
        if entry["stl"] not in meshes:
            meshes[entry["stl"]] = trimesh.load_mesh(out / entry["stl"])
        matrix = np.array(entry["transform"], dtype=float)
        solid = _solid(meshes[entry["stl"]], matrix)
        placed.append((entry["name"], solid, np.array(solid.bounding_box()).reshape(2, 3)))
    return placed


def _overlapping(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all(a[0] < b[1] - 1e-6) and np.all(b[0] < a[1] - 1e-6))


@pytest.mark.parametrize("name", CONTENT_PARTS)
def test_the_solver_knows_each_pieces_size(contents: Path, name: str) -> None:
    """items.part_bounds (what the solver packs) bounds the rendered mesh, snugly."""
    mesh = trimesh.load_mesh(contents / f"{name}.stl")
    low, high = (np.array(v) for v in items.part_bounds(_draft(None, []), name))
    assert np.all(mesh.bounds[0] >= low - 1e-3), name
    assert np.all(mesh.bounds[1] <= high + 1e-3), name
    assert np.all(mesh.bounds[0] - low <= 0.6), name  # no slack the box would carry for nothing
    assert np.all(high - mesh.bounds[1] <= 0.6), name


def test_box_and_lid_print_as_one_flat_body(
    packed: tuple[SquadronLeaderParams, Layout, Path],
) -> None:
    _, _, out = packed
    for name in ("box", "box_lid"):
        mesh = trimesh.load_mesh(out / "stl" / f"{name}.stl")
        assert mesh.is_watertight, name
        assert mesh.is_winding_consistent, name
        assert len(mesh.split(only_watertight=False)) == 1, name
        assert mesh.bounds[0][2] == pytest.approx(0.0, abs=1e-4)
        down = mesh.face_normals[:, 2] < -0.999
        on_bed = np.abs(mesh.triangles_center[:, 2]) < 1e-4
        assert mesh.area_faces[down & on_bed].sum() > 0.5 * mesh.extents[0] * mesh.extents[1]


def test_pieces_do_not_overlap(packed: tuple[SquadronLeaderParams, Layout, Path]) -> None:
    _, layout, out = packed
    unit_of = {placed.name: placed.unit for placed in layout.placements}
    pieces = _placed(out)
    for (name_a, a, box_a), (name_b, b, box_b) in combinations(pieces, 2):
        if not _overlapping(box_a, box_b):
            continue
        limit = SAME_UNIT_MM3 if unit_of[name_a] == unit_of[name_b] else APART_MM3
        assert _shared(a, b) <= limit, (name_a, name_b)


def test_pieces_stay_inside_the_box_and_under_the_lid(
    packed: tuple[SquadronLeaderParams, Layout, Path],
) -> None:
    _, layout, out = packed
    box = _solid(trimesh.load_mesh(out / "stl" / "box.stl"))
    lid = _solid(trimesh.load_mesh(out / "stl" / "box_lid.stl"), _lid_pose(out))
    low, high = np.array(box.bounding_box()).reshape(2, 3)
    assert _shared(box, lid) <= APART_MM3
    for name, solid, bounds in _placed(out):
        assert _shared(box, solid) <= APART_MM3, name
        assert _shared(lid, solid) <= APART_MM3, name
        assert np.all(bounds[0] >= low - 1e-4), name
        assert np.all(bounds[1][:2] <= high[:2] + 1e-4), name
        assert bounds[0][2] >= layout.box.floor - 1e-4, name
        assert bounds[1][2] <= layout.box.lid_bottom + 1e-4, name


def _lid_pose(out: Path) -> np.ndarray:
    return np.array(json.loads((out / "layout.json").read_text())["lid"]["transform"])


def test_the_box_sits_in_its_tin(packed: tuple[SquadronLeaderParams, Layout, Path]) -> None:
    params, _, out = packed
    mesh = trimesh.load_mesh(out / "stl" / "box.stl")
    tin, clearance = params.tin, params.box.tin_clearance_mm
    sides = (tin.inner_length_mm, tin.inner_width_mm, tin.corner_radius_mm)
    clearances = _inside_rounded_rect(mesh.vertices[:, :2], *sides)
    assert clearances.min() >= clearance - 1e-3
    # ...and fills it: a box that lost its outer wall (a round tin's did) stands farther in
    assert clearances.min() <= clearance + 0.05
    assert mesh.bounds[1][2] <= tin.inner_depth_mm - clearance + 1e-4
    lid = trimesh.load_mesh(out / "stl" / "box_lid.stl").apply_transform(_lid_pose(out))
    outline = np.vstack([mesh.vertices[:, :2], lid.vertices[:, :2]])
    assert _inside_rounded_rect(outline, *sides).min() >= clearance - 1e-3  # the lid closed


def _inside_rounded_rect(points: np.ndarray, length: float, width: float, r: float) -> np.ndarray:
    """Distance of each point inside a centred rounded rectangle's outline."""
    qx = np.abs(points[:, 0]) - (length / 2 - r)
    qy = np.abs(points[:, 1]) - (width / 2 - r)
    corner = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    return r - corner - np.minimum(np.maximum(qx, qy), 0)


def test_layout_outputs_load(packed: tuple[SquadronLeaderParams, Layout, Path]) -> None:
    params, layout, out = packed
    assert json.loads((out / "layout.json").read_text()) == json.loads(
        json.dumps(layout_json(layout, params))
    )
    picture = write_layout_png(layout, params, out / "layout.png")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assembly = write_assembly(layout, params, out, out / "layout_assembly.stl")
    mesh = trimesh.load_mesh(assembly)
    expected = 1 + len(layout.placements)  # the box and every piece
    assert len(mesh.split(only_watertight=False)) >= expected
    assert math.isclose(mesh.bounds[0][2], 0.0, abs_tol=1e-4)
    assert not list(out.rglob(".tmp-*"))

"""The whole kit, rendered by OpenSCAD and measured: physical facts, not snapshots."""

from __future__ import annotations

import json
import math
from pathlib import Path

import manifold3d
import numpy as np
import pytest
import shapely
import trimesh
from shapely.geometry import Polygon
from shapely.geometry import box as shapely_box
from shapely.ops import unary_union

from squadron_cad.checks.tin import tin_proof
from squadron_cad.kit import design_of
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.resolve import resolve

ACROSS_FLATS_26 = 26 * math.cos(math.radians(22.5))


def section(mesh: trimesh.Trimesh, z: float):
    """The part's cross-section at height z as one shapely geometry."""
    cut = mesh.section(plane_origin=[0, 0, z], plane_normal=[0, 0, 1])
    planar, to_3d = cut.to_2D()
    polygons = planar.polygons_full
    merged = unary_union(polygons)
    offset = to_3d[:2, 3]
    return trimesh_translate(merged, offset)


def trimesh_translate(geometry, offset):
    from shapely.affinity import translate

    return translate(geometry, xoff=float(offset[0]), yoff=float(offset[1]))


def to_manifold(mesh: trimesh.Trimesh) -> manifold3d.Manifold:
    return manifold3d.Manifold(
        manifold3d.Mesh(
            vert_properties=np.asarray(mesh.vertices, dtype=np.float32),
            tri_verts=np.asarray(mesh.faces, dtype=np.uint32),
        )
    )


def test_every_part_is_built_and_passes_its_checks(default_kit) -> None:
    built = {r.spec.name for r in default_kit.parts}
    assert built == {spec.name for spec in PARTS}
    for result in default_kit.parts:
        assert result.stl.stat().st_size > 84
        assert result.stl.read_bytes()[:5] != b"solid", "binary STL expected"
        failed = [f.line() for f in result.findings if f.failed]
        assert not failed, failed
        assert {f.check for f in result.findings} >= {
            "watertight",
            "winding",
            "volume",
            "bodies",
            "flat_on_bed",
            "fits_bed",
        }


def test_manifest_names_only_files_that_exist(default_kit) -> None:
    out = default_kit.out_dir
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["players"] == 2
    assert manifest["params"]["token"]["width_mm"] == 26
    for entry in manifest["parts"]:
        assert (out / entry["file"]).is_file()
        assert (out / entry["scad"]).is_file()
        assert entry["triangles"] > 0
        assert entry["volume_mm3"] > 0
        assert entry["render_seconds"] >= 0
    counts = {e["name"]: e["count"] for e in manifest["parts"]}
    assert counts["altitude_token"] == 8
    assert counts["stat_dial_clip"] == 8
    for name in manifest["layout"]["files"]:
        assert (out / name).stat().st_size > 0, name


def test_the_build_packs_every_printed_piece_in_layout_json(default_kit) -> None:
    """layout.json places as many of each part as the manifest says to print."""
    out = default_kit.out_dir
    manifest = json.loads((out / "manifest.json").read_text())
    layout = json.loads((out / "layout.json").read_text())
    placed: dict[str, int] = {}
    for item in layout["contents"]:
        assert (out / item["stl"]).is_file(), item["stl"]
        placed[Path(item["stl"]).stem] = placed.get(Path(item["stl"]).stem, 0) + 1
    printed = {e["name"]: e["count"] for e in manifest["parts"]}
    for part in ("plane_token", "altitude_token", "stat_dial_card", "stat_dial_clip"):
        assert placed[part] == printed[part], part
    assert placed["template_all"] == 1
    assert placed["die"] == 8
    assert min(layout["margins_mm"].values()) > 0


def test_plane_token_size(default_meshes) -> None:
    size = default_meshes["plane_token"].extents
    assert size[0] == pytest.approx(ACROSS_FLATS_26, abs=0.01)
    assert size[1] == pytest.approx(ACROSS_FLATS_26, abs=0.01)
    assert size[2] == pytest.approx(4 + 1.0, abs=1e-3)  # token + raised silhouette


def test_altitude_token_size_and_ring(default_meshes) -> None:
    mesh = default_meshes["altitude_token"]
    assert mesh.extents[0] == pytest.approx(ACROSS_FLATS_26, abs=0.01)
    assert mesh.extents[2] == pytest.approx(4 + 1.5, abs=1e-3)  # token + pegs
    ring = section(mesh, 2.0)
    hole_flats = ACROSS_FLATS_26 * 0.56
    assert ring.contains(shapely_box(-hole_flats / 2 + 0.5, -1, hole_flats / 2 - 0.5, 1)) is False


def test_straight_template_is_three_tokens_long(default_meshes) -> None:
    size = default_meshes["template_straight"].extents
    assert size[0] == pytest.approx(78, abs=0.01)
    assert size[1] == pytest.approx(26, abs=0.01)
    assert size[2] == pytest.approx(4, abs=1e-3)


def test_ruler_is_three_templates_long(default_meshes) -> None:
    size = default_meshes["range_ruler"].extents
    assert size == pytest.approx([234, 6.5, 4], abs=0.01)


def test_ruler_sections_assemble_to_the_same_length(default_meshes) -> None:
    tab = 5.0
    lengths = [default_meshes[f"range_ruler_{i}"].extents[0] for i in (1, 2, 3)]
    assert lengths == pytest.approx([78 + tab, 78 + tab, 78], abs=0.01)
    spans = [default_meshes[f"range_ruler_{i}"].bounds[:, 0] for i in (1, 2, 3)]
    assert spans[0][0] == pytest.approx(0, abs=1e-3)
    assert spans[2][1] + 2 * 78 == pytest.approx(234, abs=0.01)


def test_ruler_joint_has_its_clearance(default_meshes) -> None:
    """Below the snap ridges: the slot is the tab's head grown by the side clearance, and
    the head is wider than the neck (it cannot pull out). Play on every axis is measured
    in test_parts_hold."""
    clearance, z = 0.15, 0.5
    first = section(default_meshes["range_ruler_1"], z)
    second = trimesh_translate(section(default_meshes["range_ruler_2"], z), [78, 0])
    assert first.intersection(second).area == pytest.approx(0, abs=1e-6)

    def across(shape, x: float) -> list[float]:
        cut = shape.intersection(shapely_box(x, -10, x + 0.02, 10))
        return sorted({round(y, 4) for y in shapely.get_coordinates(cut)[:, 1]})

    head = across(first, 82.0)
    cheeks = across(second, 82.0)
    slot = min(y for y in cheeks if y > 0) - max(y for y in cheeks if y < 0)
    assert slot - (head[-1] - head[0]) == pytest.approx(2 * clearance, abs=0.02)
    neck = across(first, 79.0)
    assert head[-1] - head[0] > neck[-1] - neck[0] + 0.5


@pytest.mark.parametrize("turn_deg", range(0, 360, 45))
def test_altitude_tokens_stack_at_every_45_degrees(default_meshes, turn_deg: int) -> None:
    below = to_manifold(default_meshes["altitude_token"])
    above = (
        to_manifold(default_meshes["altitude_token"]).rotate([0, 0, turn_deg]).translate([0, 0, 4])
    )
    plane = to_manifold(default_meshes["plane_token"]).rotate([0, 0, turn_deg]).translate([0, 0, 4])
    pegs = below.trim_by_plane([0, 0, 1], 4.001)
    for top in (above, plane):
        assert (below ^ top).volume() == pytest.approx(0, abs=1e-3)
        gap = pegs.min_gap(top, 1.0)
        assert 0.05 < gap < 0.2, gap  # pegs clear their sockets, but locate


def test_peg_socket_clearance_on_the_diameter(default_meshes) -> None:
    """Peg and socket sections at the same height differ by the clearance parameter."""
    peg_z = 4 + 0.75
    pegs = section(default_meshes["altitude_token"], peg_z)
    sockets = section(default_meshes["plane_token"], 0.75)
    peg = (
        min(pegs.geoms, key=lambda g: g.centroid.distance(_peg_centre()))
        if hasattr(pegs, "geoms")
        else pegs
    )
    hole = _socket_hole_near(sockets, _peg_centre())
    peg_d = 2 * math.sqrt(peg.area / math.pi)
    socket_d = 2 * math.sqrt(hole.area / math.pi)
    assert socket_d - peg_d == pytest.approx(0.25, abs=0.03)


def _peg_centre():
    from shapely.geometry import Point

    r = math.sqrt(2) * 26 / 4
    return Point(r * math.cos(math.radians(45)), r * math.sin(math.radians(45)))


def _socket_hole_near(geometry, point) -> Polygon:
    holes = [
        Polygon(ring) for poly in getattr(geometry, "geoms", [geometry]) for ring in poly.interiors
    ]
    return min(holes, key=lambda h: h.centroid.distance(point))


def test_stat_dial_card_and_clip(default_meshes, default_kit) -> None:
    card = default_meshes["stat_dial_card"]
    dial = default_kit.params.stat_dial
    assert card.extents[2] == pytest.approx(dial.card_thickness_mm, abs=1e-3)
    clip = default_meshes["stat_dial_clip"]
    assert clip.extents[2] == pytest.approx(5.6, abs=1e-3)  # clip width, printed on its side


def test_box_sits_inside_the_tin(default_meshes, default_kit) -> None:
    tin = default_kit.params.tin
    box = default_meshes["box"]
    clearance = default_kit.params.box.tin_clearance_mm
    x, y, z = box.extents
    assert max(x, y) <= tin.inner_length_mm - 2 * clearance + 1e-3
    assert min(x, y) <= tin.inner_width_mm - 2 * clearance + 1e-3
    lid = default_meshes["box_lid"]
    assert z <= tin.inner_depth_mm - clearance + 1e-3
    # The lid is a cap whose skirt continues the box's wall (issue 19: turned over, a dice
    # tray): the box's outline, and closed its top lies at the box's height.
    assert lid.extents[:2] == pytest.approx([x, y], abs=1e-3)
    box_p = default_kit.params.box
    assert lid.extents[2] == pytest.approx(box_p.lid_thickness_mm + box_p.lid_tray_depth_mm)
    assert z <= tin.inner_depth_mm - clearance - box_p.lid_thickness_mm + 1e-3


def test_the_closed_box_is_measured_against_the_tin_given(default_meshes, default_kit) -> None:
    """check --set tin 60 x 60 once said '0 failing check(s)' of this 107 x 82 mm box."""
    built = design_of(default_kit.params)
    small = resolve(overrides=["tin.inner_length_mm=60", "tin.inner_width_mm=60"]).tin
    refused = [f for f in tin_proof(built, default_meshes, small) if f.failed]
    assert [(f.part, f.check) for f in refused] == [("box", "in_tin_outline")]
    assert "47.00 mm too long and 22.00 mm too wide" in refused[0].message
    own = {f.check: f for f in tin_proof(built, default_meshes, default_kit.params.tin)}
    assert all(f.severity == "ok" for f in own.values())
    box_p = default_kit.params.box  # the lid closed on top: as tall as the tin lets the box be
    tin = default_kit.params.tin
    assert own["in_tin_depth"].measured == pytest.approx(
        tin.inner_depth_mm - box_p.tin_clearance_mm, abs=1e-3
    )
    assert own["in_tin_corners"].measured == pytest.approx(box_p.tin_clearance_mm, abs=0.01)


def test_a_wider_token_scales_everything(wide_meshes) -> None:
    flats = 30 * math.cos(math.radians(22.5))
    assert wide_meshes["plane_token"].extents[0] == pytest.approx(flats, abs=0.02)
    assert wide_meshes["template_straight"].extents[0] == pytest.approx(90, abs=0.01)
    assert wide_meshes["range_ruler"].extents[:2] == pytest.approx([270, 7.5], abs=0.01)
    assert wide_meshes["altitude_token"].extents[2] == pytest.approx(5.5, abs=1e-3)

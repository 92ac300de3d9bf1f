"""Each player's mark on each of their pieces, measured on the rendered meshes: a region of
the mark's outline raised where the part's rules leave room, and differing in shape
between players (issue #18: "readable in one colour, not only by its colour")."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import trimesh
from helpers import TEST_JOBS
from shapely.geometry import MultiPolygon, Polygon

from squadron_cad.checks import meshgeo
from squadron_cad.geometry.marks import mark_shape, player_mark
from squadron_cad.kit import variant_name
from squadron_cad.kits.squadron_leader.geometry.dial import card_mark_centre
from squadron_cad.kits.squadron_leader.mark_room import plane_mark_mm, token_mark_mm
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts import altitude_token, plane_token
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

PLAYERS = 3
MARKED = ("plane_token", "altitude_token", "stat_dial_card")
MIN_IOU = 0.85  # measured mark against its polygon (draft facets, 0.01 mm overlaps)
MAX_IOU_BETWEEN_PLAYERS = 0.75


@pytest.fixture(scope="module")
def kit(tmp_path_factory, shared_cache: Path) -> BuildReport:
    params = resolve(overrides=["quality=draft", f"players={PLAYERS}"])
    options = BuildOptions(
        out_dir=tmp_path_factory.mktemp("marks"),
        only=MARKED,
        jobs=TEST_JOBS,
        slice=False,
        plates=False,
        previews=False,
        cache_dir=shared_cache,
    )
    return build(params, options)


def mesh_of(kit: BuildReport, part: str, player: int) -> trimesh.Trimesh:
    return trimesh.load(kit.out_dir / "stl" / f"{variant_name(part, player)}.stl", force="mesh")


def where(part: str, p: SquadronLeaderParams) -> tuple[tuple[float, float], float, float, float]:
    """The mark's centre, its size, the z of a section through it, and how far round its
    outline to look (the gap to anything else at that height)."""
    if part == "plane_token":
        x, y = plane_token.mark_centre(p)
        z = float(p.token.height_mm + p.plane.silhouette_height_mm / 2)
        return (float(x), float(y)), plane_mark_mm(p), z, 1.0
    if part == "altitude_token":
        x, y = altitude_token.mark_centre(p)
        z = float(p.token.height_mm - p.text.depth_mm / 2)
    else:
        x, y = card_mark_centre(p)
        z = float(p.stat_dial.card_thickness_mm - p.text.depth_mm / 2)
    return (float(x), float(y)), token_mark_mm(p), z, float(p.marks.frame_mm) / 2


def measured_mark(kit: BuildReport, part: str, player: int) -> Polygon | MultiPolygon:
    """The section through the raised mark, inside a band round its expected outline."""
    p = kit.params
    centre, size, z, reach = where(part, p)
    name = player_mark(p, player)
    window = mark_shape(name, size, centre).buffer(reach)
    return meshgeo.section(mesh_of(kit, part, player), z).intersection(window)


def iou(a: Polygon | MultiPolygon, b: Polygon | MultiPolygon) -> float:
    return float(a.intersection(b).area / a.union(b).area)


def test_the_builds_render_one_copy_per_player_and_the_representative_is_player_1s(
    kit: BuildReport,
) -> None:
    stl = kit.out_dir / "stl"
    for part in MARKED:
        copies = [stl / f"{variant_name(part, i)}.stl" for i in range(PLAYERS)]
        assert all(path.is_file() for path in copies), part
        assert (stl / f"{part}.stl").read_bytes() == copies[0].read_bytes(), part
        assert len({path.read_bytes() for path in copies}) == PLAYERS, part
    entries = {r.spec.name: r for r in kit.parts}
    assert set(entries) == set(MARKED), "a player's copy is no part of its own"
    assert len(kit.variants) == PLAYERS * len(MARKED)


@pytest.mark.parametrize("part", MARKED)
def test_each_players_mark_stands_on_each_of_their_pieces(kit: BuildReport, part: str) -> None:
    p = kit.params
    centre, size, _z, _reach = where(part, p)
    for player in range(PLAYERS):
        expected = mark_shape(player_mark(p, player), size, centre)
        found = measured_mark(kit, part, player)
        assert found.area == pytest.approx(expected.area, rel=0.1), (part, player)
        assert iou(found, expected) >= MIN_IOU, (part, player, iou(found, expected))


@pytest.mark.parametrize("part", ["altitude_token", "stat_dial_card"])
def test_a_flush_mark_stands_in_a_recess_and_leaves_the_top_flat(kit: BuildReport, part) -> None:
    """On faces the game needs flat (the token above sits there; clips slide past) the
    mark rises from a recess floor to the top face, no higher."""
    p = kit.params
    centre, size, z, _reach = where(part, p)
    mesh = mesh_of(kit, part, 1)
    top = mesh.bounds[1][2] if part == "stat_dial_card" else float(p.token.height_mm)
    assert z < top
    if part == "stat_dial_card":
        assert mesh.bounds[1][2] == pytest.approx(float(p.stat_dial.card_thickness_mm), abs=1e-3)
    outline = mark_shape(player_mark(p, 1), size, centre)
    recess = outline.buffer(float(p.marks.frame_mm) * 0.9).difference(outline.buffer(0.1))
    floor_z = float(top - p.text.depth_mm)
    below = meshgeo.section(mesh, floor_z - 0.1)
    assert below.intersection(recess).area == pytest.approx(recess.area, rel=0.05)
    assert meshgeo.section(mesh, z).intersection(recess).area < 0.05 * recess.area


def test_the_marks_of_two_players_differ_in_shape(kit: BuildReport) -> None:
    p = kit.params
    for part in MARKED:
        found = [measured_mark(kit, part, player) for player in range(PLAYERS)]
        for a, b in itertools.combinations(range(PLAYERS), 2):
            assert player_mark(p, a) != player_mark(p, b)
            assert iou(found[a], found[b]) < MAX_IOU_BETWEEN_PLAYERS, (part, a, b)


def report_marks(kit: BuildReport, out: Path) -> None:  # pragma: no cover - for the notes
    """The figures of the closing note: each mark's area and IoU."""
    lines = []
    p = kit.params
    for part in MARKED:
        centre, size, *_ = where(part, p)
        found = [measured_mark(kit, part, player) for player in range(PLAYERS)]
        for player, region in enumerate(found):
            expected = mark_shape(player_mark(p, player), size, centre)
            lines.append(
                f"{part} player {player + 1} {player_mark(p, player)}: area {region.area:.2f} "
                f"(polygon {expected.area:.2f}) mm2, IoU {iou(region, expected):.3f}"
            )
        for a, b in itertools.combinations(range(PLAYERS), 2):
            lines.append(f"{part} players {a + 1}/{b + 1}: IoU {iou(found[a], found[b]):.3f}")
    out.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("part", MARKED)
def test_every_players_mark_keeps_clear_of_the_labels(kit: BuildReport, part: str) -> None:
    """Measured on each player's copy (mark_clearance): the stat card's ring ran 0.58 mm
    from its "D" label, under checks.min_mark_clearance_mm (1.0)."""
    from squadron_cad.checks.mark_clearance import part_clearance
    from squadron_cad.kit import kit_of

    assert not [f.line() for f in kit.failures]
    p = kit.params
    meshes = {variant_name(part, i): mesh_of(kit, part, i) for i in range(PLAYERS)}
    found = part_clearance(kit_of(p).part(part), meshes, p)
    assert found is not None
    assert found.mm >= p.checks.min_mark_clearance_mm, (part, found)
    checked = [f for r in kit.parts for f in r.findings if f.check == "mark_clearance"]
    assert {f.part for f in checked} == set(MARKED)  # the build ran the check on each
    assert not any(f.failed for f in checked)

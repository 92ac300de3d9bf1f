"""The Squadrons kit really rendered, once for this module: the build passes with no
failing check, every invariant holds, and every piece fits its box pocket."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trimesh

from squadron_cad.build import BuildOptions, BuildReport, build
from squadron_cad.resolve import resolve

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> BuildReport:
    out = tmp_path_factory.mktemp("squadrons") / "kit"
    options = BuildOptions(out_dir=out, jobs=2, previews=False, slice=False, cache_dir=shared_cache)
    return build(resolve(kit="squadrons"), options)


@pytest.fixture(scope="module")
def invariants(kit: BuildReport) -> dict[str, dict]:
    data = json.loads((kit.out_dir / "manifest.json").read_text())
    return {item["name"]: item for item in data["invariants"]}


def test_the_kit_builds_with_no_failing_check(kit: BuildReport) -> None:
    assert kit.committed
    assert [f.line() for f in kit.failures] == []
    assert len(kit.parts) == 28
    counts = {r.spec.name: r.count for r in kit.parts}
    assert counts["ship_base_10"] == 2
    assert counts["ship_base_11"] == 0


def test_every_invariant_holds(invariants: dict[str, dict]) -> None:
    assert invariants, "the kit measured no invariant"
    assert [name for name, item in invariants.items() if not item["ok"]] == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("range ruler: inch ticks found", 15),
        ("range ruler: length (mm, 16 in)", 406.4),
        ("movement gauge: length (mm, 8 in)", 203.2),
        ("objective_scan: diameter (mm)", 40),
        ("objective_destroy: hit-point notches", 2),
        ("pivot guide: base overlap through a ±45° pivot (mm², worst)", 0),
        ("pivot guide: gap at the base's front corners (mm)", 0.3),
        ("pivot guide: ray at +45 (deg)", 45),
        ("pivot guide: ray at -45 (deg)", -45),
        ("pivot guide: centre mark on the forward axis (deg)", 0),
        ("tracker: values 0..6 held by a detent, both rows", 14),
    ],
)
def test_measured_values(invariants: dict[str, dict], name: str, expected: float) -> None:
    item = invariants[name]
    assert item["measured"] == pytest.approx(expected, abs=item["tolerance"] + 1e-9)


def test_ticks_and_lines_are_where_the_rules_put_them(invariants: dict[str, dict]) -> None:
    assert invariants["range ruler: worst tick off its 25.4 mm multiple (mm)"]["measured"] <= 0.1
    assert (
        invariants["ship bases: zone boundaries off 90 deg apart (deg, worst of 15 bases)"][
            "measured"
        ]
        <= 0.1
    )
    assert (
        invariants["ship bases: Fixed line off the forward axis (deg, worst of 15 bases)"][
            "measured"
        ]
        <= 0.1
    )


def test_every_piece_fits_its_pocket(kit: BuildReport) -> None:
    out: Path = kit.out_dir
    layout = json.loads((out / "layout.json").read_text())
    assert len(layout["contents"]) == 51
    box = trimesh.load_mesh(out / "stl" / "box.stl")
    for entry in layout["contents"]:
        piece = trimesh.load_mesh(out / entry["stl"])
        piece.apply_transform(entry["transform"])
        clash = trimesh.boolean.intersection([box, piece], engine="manifold")
        assert clash.is_empty or clash.volume < 1e-3, entry["name"]
    pockets = [f for f in kit.kit_findings if f.check in ("in_pocket", "pocket_gap")]
    assert len(pockets) == 8
    assert all(f.severity == "ok" for f in pockets)

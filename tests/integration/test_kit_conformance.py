"""Every installed kit has the same skeleton and is checked the same way.

The skeleton: `__init__` exporting KIT only; `constants` with the credit line; `params`
with `<Kit>Params`; `design` with `<Kit>Design`; `parts/registry` with PARTS; `checks` and
`stowing` (a module or a package); `sheets` where the kit has a paper edition; `tins/` and
`default.yaml`. Then each kit builds with no failing check, measures its rules'
invariants, proves its box holds every piece, writes its paper edition and declares its
tolerance coupons where it has them, and declares the change its benchmark times.
"""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from squadron_cad.checks import fits
from squadron_cad.fit.layout import box_layouts
from squadron_cad.kit import Kit, LazyImport, load_kit
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.resolve import resolve

INSTALLED = sorted(point.name for point in entry_points(group="squadron_cad.kits"))


def camel(name: str) -> str:
    return "".join(word.title() for word in name.split("-"))


def package_of(kit: Kit) -> str:
    return kit.params_model.__module__.rsplit(".", 1)[0]


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def target_of(function: object) -> str:
    """The module a kit's function lives in (a LazyImport names it without loading it)."""
    if isinstance(function, LazyImport):
        return function.module
    return getattr(function, "__module__", "")


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_has_the_skeleton(name: str) -> None:
    kit = load_kit(name)
    package = package_of(kit)
    folder = Path(importlib.import_module(package).__file__ or "").parent
    assert importlib.import_module(package).__all__ == ["KIT"]
    assert kit.credit == importlib.import_module(f"{package}.constants").GAME_CREDIT
    params = importlib.import_module(f"{package}.params")
    assert getattr(params, f"{camel(name)}Params") is kit.params_model
    design_class = getattr(importlib.import_module(f"{package}.design"), f"{camel(name)}Design")
    assert isinstance(kit.design(resolve(kit=name)), design_class)
    assert kit.parts == importlib.import_module(f"{package}.parts.registry").PARTS
    for room in ("checks", "stowing"):
        assert has_module(f"{package}.{room}"), f"{name} has no {room} module"
    assert target_of(kit.loaded.invariants).startswith(f"{package}.checks")
    assert target_of(kit.loaded.checks).startswith((f"{package}.checks", "squadron_cad.kit"))
    assert target_of(kit.fit_lines).startswith(f"{package}.stowing")
    if kit.paper is not None:
        assert has_module(f"{package}.sheets"), f"{name} has a paper edition but no sheets"
    assert kit.defaults == folder / "default.yaml"
    assert kit.presets == folder / "tins"
    assert sorted(kit.presets.glob("*.yaml")), f"{name} has no tin presets"


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_declares_what_its_benchmark_changes(name: str) -> None:
    """A tin change, the change makers make most, and one that reaches most parts; each a
    --set the kit's defaults accept, that changes the parameters."""
    kit = load_kit(name)
    assert len(kit.bench_changes) >= 2
    assert kit.bench_changes[0].setting.startswith("tin.")
    for change in kit.bench_changes:
        assert 0 < change.goal_ratio < 1
        assert resolve(kit=name, overrides=[change.setting]) != resolve(kit=name)


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_builds_with_its_checks_passing(name: str, built_kit) -> None:
    kit: BuildReport = built_kit(name)
    assert kit.committed
    assert [f.line() for f in kit.failures] == []
    assert {r.spec.name for r in kit.parts} == set(load_kit(name).part_names)


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_measures_its_rules(name: str, built_kit) -> None:
    invariants = built_kit(name).extras["invariants"]
    assert invariants, f"{name} measured no invariant"
    assert [item["name"] for item in invariants if not item["ok"]] == []


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_proves_its_box_holds_every_piece(name: str, built_kit) -> None:
    """One finding per group of stowed pieces (the engine's fit proof) in each of its boxes,
    none failing."""
    kit: BuildReport = built_kit(name)
    pockets = [f for f in kit.kit_findings if f.check in ("in_pocket", "pocket_gap")]
    groups = []
    for layout in box_layouts(load_kit(name).design(kit.params)):  # a kit may have several
        printed = {r.spec.name for r in kit.parts} - {layout.box_part, layout.lid_part}
        groups += fits.stowed_groups([p for p in layout.placements if p.part in printed])
    assert groups
    assert len(pockets) == len(groups)
    assert not [f.line() for f in pockets if f.failed]


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_s_paper_edition_is_written(name: str, tmp_path: Path) -> None:
    kit = load_kit(name)
    if kit.paper is None:
        pytest.skip(f"the {name} kit declares no paper edition")
    report = kit.paper(resolve(kit=name), tmp_path / "paper", False)
    assert report.pdf.is_file()
    assert report.pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kit_s_tolerance_coupons_set_its_own_keys(name: str) -> None:
    kit = load_kit(name)
    if not kit.coupons:
        pytest.skip(f"the {name} kit declares no tolerance coupons")
    params = resolve(kit=name)
    for coupon in kit.coupons:
        value: object = params
        for part in coupon.key.split("."):
            value = getattr(value, part)
        assert isinstance(value, float), coupon.key


@pytest.mark.parametrize("name", INSTALLED)
def test_the_kits_plates_pass_lib3mf_strict_with_one_change_each(name: str, built_kit) -> None:
    """Every plate of every kit reads in lib3mf's strict mode; a plate whose parts carry
    marks carries its one colour change (PrusaSlicer's list, in the marks' colour) at the
    height its BOM row names, and every marked piece on it is two volumes."""
    import zipfile

    from squadron_cad.outputs.threemf import read_objects

    kit: BuildReport = built_kit(name)
    summaries = {plate["plate"]: plate for plate in kit.extras["plates"]}
    files = sorted((kit.out_dir / "plates").glob("*.3mf"))
    assert {path.stem for path in files} == set(summaries)
    for path in files:
        objects = read_objects(str(path))  # strict: raises on any fault
        assert objects, path.name
        change = summaries[path.stem]["filament_change_mm"]
        changes = "Metadata/Prusa_Slicer_custom_gcode_per_print_z.xml"
        with zipfile.ZipFile(path) as archive:
            text = archive.read(changes).decode() if changes in archive.namelist() else None
        assert (text is not None) == (change is not None), path.name
        if text is not None:
            assert f'print_z="{change:g}"' in text, path.name
            assert all(len(item.volumes) == 2 for item in objects), path.name


@pytest.mark.parametrize("name", [kit for kit in INSTALLED if kit != "squadron-leader"])
def test_one_filament_change_colours_only_the_marks_on_the_kits_plates(
    name: str, built_kit, tmp_path: Path
) -> None:
    """Player 1's plates and the shared ones that carry a colour change, sliced by
    PrusaSlicer as a single-extruder printer: no body prints in the marks' colour on any
    layer (Squadron Leader's: tests/integration/test_plates.py)."""
    import shutil

    from plate_layers import assert_one_change_colours_marks_only

    if shutil.which("prusa-slicer") is None:
        pytest.skip("prusa-slicer is not installed")
    kit: BuildReport = built_kit(name)
    summaries = {plate["plate"]: plate for plate in kit.extras["plates"]}
    changed = [
        name
        for name, plate in summaries.items()
        if plate["filament_change_mm"] is not None
        and (name.startswith("player1") or name.startswith("shared"))
    ]
    if not changed:
        pytest.skip(f"no plate of the {name} kit has a colour change")
    for plate in changed:
        path = kit.out_dir / "plates" / f"{plate}.3mf"
        assert_one_change_colours_marks_only(path, summaries[plate], kit.params, tmp_path)


@pytest.mark.parametrize("name", INSTALLED)
def test_every_piece_in_the_packed_box_picture_stands_out_from_the_box(name, built_kit) -> None:
    """The packed box as drawn: each piece's colour differs from the box's, in any of its
    shades (lit walls to shadowed floors), by at least picture_colours.MIN_DELTA_E (CIE76).
    Before, Squadrons' and Space Planes' pieces were the box's silver."""
    from squadron_cad.outputs import picture_colours, previews

    kit: BuildReport = built_kit(name)
    view = previews.box_view(kit.out_dir, kit.params)
    assert view is not None
    box, *pieces = view.items
    assert pieces, name
    for item in pieces:
        contrast = picture_colours.box_contrast(item.colour, box.colour)
        assert contrast >= picture_colours.MIN_DELTA_E, item.stl

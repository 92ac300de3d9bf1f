"""The slicer wrapper without the slicer: arguments, parsing, cache, budget, refusals."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import trimesh
from helpers import off_the_norms

from squadron_cad.checks import kit_slicing, slicer
from squadron_cad.constants import PLA_DENSITY_G_CM3
from squadron_cad.params import KitParamsBase
from squadron_cad.resolve import resolve

if TYPE_CHECKING:
    from squadron_cad.kit import Kit

GCODE_TAIL = """\
; filament used [mm] = 631.46
; filament used [cm3] = 1.52
; filament used [g] = 1.88
; total filament used [g] = 1.88
; estimated printing time (normal mode) = 1h 12m 7s
"""


@pytest.fixture(scope="module")
def params(toy_params: KitParamsBase) -> KitParamsBase:
    """The toy kit: 3 tiles a player, a tray, and a plain tile to print instead of a tile."""
    return toy_params


@pytest.fixture
def settings(params: KitParamsBase) -> slicer.SliceSettings:
    return slicer.SliceSettings.from_params(params)


def test_the_engines_defaults_come_from_the_norms(params: KitParamsBase) -> None:
    """A kit that sets none of the engine's sections gets the norms (constants.NORMS)."""
    assert off_the_norms(params) == {}
    assert params.slicer.filament_density_g_cm3 == PLA_DENSITY_G_CM3
    wider = params.model_copy(
        update={"checks": params.checks.model_copy(update={"min_wall_mm": 1})}
    )
    assert off_the_norms(wider) == {"checks.min_wall_mm": (1, 0.8)}  # the helper can fail


def test_the_arguments_carry_every_setting(settings: slicer.SliceSettings) -> None:
    args = " ".join(settings.arguments())
    for part in (
        "--layer-height 0.2", "--first-layer-height 0.2", "--fill-density 15%",
        "--perimeters 2", "--filament-diameter 1.75", "--filament-density 1.24",
        "--bed-shape 0x0,250x0,250x210,0x210", "--center 125,105",
    ):  # fmt: skip
        assert part in args


def test_the_gcode_figures_are_read() -> None:
    result = slicer.parse_gcode("G1 X1\n" + GCODE_TAIL)
    assert result == slicer.SliceResult(print_seconds=4327.0, filament_mm=631.46, filament_g=1.88)
    assert slicer.parse_duration("12m 7s") == 727
    assert slicer.parse_duration("2d 1h 0m 0s") == 2 * 86400 + 3600
    assert kit_slicing.format_duration(727) == "12m 7s"


def test_gcode_without_figures_is_an_error() -> None:
    with pytest.raises(slicer.SlicerError, match="lacks"):
        slicer.parse_gcode("G1 X1\n")


def test_a_missing_slicer_skips_with_a_reason(params: KitParamsBase, tmp_path: Path) -> None:
    outcome = kit_slicing.slice_kit(params, tmp_path, executable="no-such-slicer-here")
    assert outcome.skipped
    hint = "(sudo apt-get install prusa-slicer)"
    assert outcome.skipped == f"no-such-slicer-here is not installed {hint}"
    assert kit_slicing.slicer_summary(params, outcome)["skipped"] == outcome.skipped
    assert slicer.slice_part(tmp_path / "x.stl", slicer.SliceSettings.from_params(params),
                        executable="no-such-slicer-here") is None  # fmt: skip


def test_a_part_too_big_for_the_bed_is_refused_clearly(
    settings: slicer.SliceSettings, tmp_path: Path
) -> None:
    stl = tmp_path / "long.stl"
    trimesh.creation.box([340, 10, 4]).export(stl)  # longer than the bed's diagonal
    with pytest.raises(slicer.TooBig, match=r"part long \(.* mm\) does not fit"):
        slicer.slice_part(stl, settings, executable="sh")  # any program: refused before running


def test_the_cache_keys_on_the_stl_and_the_settings(
    settings: slicer.SliceSettings, tmp_path: Path
) -> None:
    stl = tmp_path / "part.stl"
    trimesh.creation.box([10, 10, 4]).export(stl)
    cache = slicer.SliceCache(tmp_path / "cache")
    key = slicer.SliceCache.key(stl, settings, "PrusaSlicer-2.5.0")
    cache.put(key, slicer.SliceResult(60.0, 100.0, 0.3))
    again = slicer.SliceCache(tmp_path / "cache")
    assert again.get(key) == slicer.SliceResult(60.0, 100.0, 0.3)
    other = slicer.SliceSettings(**{**settings.__dict__, "perimeters": 3})
    assert slicer.SliceCache.key(stl, other, "PrusaSlicer-2.5.0") != key
    (tmp_path / "cache" / slicer.CACHE_FILE).write_text("{damaged")
    assert slicer.SliceCache(tmp_path / "cache").get(key) is None


def test_builds_sharing_a_cache_keep_each_others_figures(tmp_path: Path) -> None:
    """Two builds (two processes, each with the file loaded at its start) share --cache-dir:
    each write merges what is on disk, so neither loses the other's figures."""
    first, second = slicer.SliceCache(tmp_path), slicer.SliceCache(tmp_path)
    first.put("a" * 64, slicer.SliceResult(60.0, 100.0, 0.3))
    second.put("b" * 64, slicer.SliceResult(30.0, 50.0, 0.15))
    on_disk = slicer.SliceCache(tmp_path)
    assert on_disk.get("a" * 64) == slicer.SliceResult(60.0, 100.0, 0.3)
    assert on_disk.get("b" * 64) == slicer.SliceResult(30.0, 50.0, 0.15)


def test_builds_slicing_the_same_part_at_once_report_the_first_stored_figures(
    tmp_path: Path,
) -> None:
    """Two builds sharing --cache-dir slice one STL at the same time: PrusaSlicer's print
    time differs by a second between the runs; the one stored first is both builds' and
    every later build's, so a rebuild's BOM matches the kit's."""
    first, second = slicer.SliceCache(tmp_path), slicer.SliceCache(tmp_path)
    stored = first.put("a" * 64, slicer.SliceResult(735.0, 100.0, 0.3))
    assert stored == slicer.SliceResult(735.0, 100.0, 0.3)
    assert second.put("a" * 64, slicer.SliceResult(736.0, 100.01, 0.3)) == stored
    assert second.get("a" * 64) == stored
    assert slicer.SliceCache(tmp_path).get("a" * 64) == stored


def test_a_damaged_stored_figure_does_not_win(tmp_path: Path) -> None:
    (tmp_path / slicer.CACHE_FILE).write_text('{"' + "a" * 64 + '": {"print_seconds": 1}}')
    fresh = slicer.SliceResult(60.0, 100.0, 0.3)
    assert slicer.SliceCache(tmp_path).put("a" * 64, fresh) == fresh
    assert slicer.SliceCache(tmp_path).get("a" * 64) == fresh


def kit_slice(params: KitParamsBase, each_mm: float) -> kit_slicing.KitSlice:
    outcome = kit_slicing.KitSlice(
        slicer.SliceSettings.from_params(params), version="PrusaSlicer-test"
    )
    for name in kit_slicing.player_set(params):
        outcome.results[name] = slicer.SliceResult(600.0, each_mm, each_mm * 0.003)
    return outcome


def test_the_summary_counts_one_players_set(params: KitParamsBase) -> None:
    assert kit_slicing.player_set(params) == {"tile": 3}  # not the plain one printed instead
    summary = kit_slicing.slicer_summary(params, kit_slice(params, 100.0))
    player = summary["per_player"]
    assert player["filament_mm"] == 300.0  # 3 tiles of 100 mm
    assert player["within_budget"]
    assert summary["kit"]["parts"] == {"tile": 6}
    assert summary["kit"]["missing"] == ["tray"]


def test_a_set_over_the_budget_warns(params: KitParamsBase) -> None:
    assert params.slicer.player_budget_mm == 3100
    findings = kit_slicing.slicer_findings(params, kit_slice(params, 1100.0))
    budget = next(f for f in findings if f.check == "filament_budget")
    assert budget.severity == "warning"
    assert "3300 mm" in budget.message


def sliced_too_long(params: KitParamsBase, folder: Path, length_mm: float) -> dict[str, Any]:
    """The slicer's findings of a tile and of the plain tile printed instead of it, each
    a bar `length_mm` long (skips where PrusaSlicer is not installed)."""
    for name in ("tile_plain", "tile"):  # an alternative (optional), a part printed (required)
        trimesh.creation.box([length_mm, 10, 4]).export(folder / f"{name}.stl")
    outcome = kit_slicing.slice_kit(params, folder, parts=["tile_plain", "tile"], jobs=1)
    if outcome.skipped:
        pytest.skip(outcome.skipped)
    findings = kit_slicing.slicer_findings(params, outcome)
    return {f.part: f for f in findings if f.check == "slices"}


def test_an_optional_part_off_the_bed_warns_and_a_required_one_fails(
    params: KitParamsBase, tmp_path: Path
) -> None:
    by_part = sliced_too_long(params, tmp_path, 340)  # beyond the 250 x 210 bed's diagonal
    assert by_part["tile_plain"].severity == "warning"
    assert "print tile instead" in by_part["tile_plain"].message
    assert by_part["tile"].severity == "error"
    assert "printer.bed_length_mm, printer.bed_width_mm" in by_part["tile"].message


def test_a_part_the_slicer_refuses_is_told_in_its_words_and_fails_the_kit_only_if_printed(
    toy_kit: Kit, tmp_path: Path
) -> None:
    """PrusaSlicer 2.5 aborts on a part over about 700 mm even on a 1000 mm bed (a kit's
    one-piece ruler in a big tin, 882 mm). That optional part once failed the whole kit
    with our guess 'does not fit the bed at any turn?'."""
    bed = ["printer.bed_length_mm=1000", "printer.bed_width_mm=1000"]
    by_part = sliced_too_long(resolve(overrides=bed, kit=toy_kit.name), tmp_path, 882)
    optional, required = by_part["tile_plain"], by_part["tile"]
    assert optional.severity == "warning"
    assert "Objects could not fit on the bed (it aborted)" in optional.message
    assert "print tile instead" in optional.message
    assert "any turn" not in optional.message
    assert required.severity == "error"
    assert required.message == (
        "PrusaSlicer refused tile (882.0 x 10.0 mm): Objects could not fit on the bed (it aborted)"
    )


def test_the_slicers_words_are_its_error_not_its_log() -> None:
    aborted = (
        "[2026-11-27 01:59:21.188156] [0x00007f9356c72d80] [trace]   Initializing\n"
        "terminate called after throwing an instance of 'Slic3r::RuntimeError'\n"
        "  what():  Objects could not fit on the bed\n"
    )
    assert slicer.its_words(aborted) == "Objects could not fit on the bed"
    assert (
        slicer.its_words("[2026-11-27 01:59:21.1] [0x7f] [info] loading\nbad mesh\n") == "bad mesh"
    )
    assert slicer.its_words("") == "no message"


def test_a_part_square_on_the_bed_is_sliced_unturned_and_a_long_one_turned(
    settings: slicer.SliceSettings, tmp_path: Path
) -> None:
    short, long = tmp_path / "short.stl", tmp_path / "long.stl"
    trimesh.creation.box([100, 10, 4]).export(short)
    trimesh.creation.box([270, 7.5, 4]).export(long)  # 250 x 210 bed
    gcode = tmp_path / "out.gcode"
    plain = slicer.slice_command(
        "prusa-slicer", short, settings, slicer.placement(short, settings), gcode
    )
    assert "--rotate" not in plain
    turned = slicer.slice_command(
        "prusa-slicer", long, settings, slicer.placement(long, settings), gcode
    )
    angle = float(turned[turned.index("--rotate") + 1])
    assert 35 < angle < 45  # the bed's diagonal is at 40 deg


def test_parts_named_are_sliced_in_the_order_named(params: KitParamsBase, tmp_path: Path) -> None:
    """The build names the biggest first: its slicing is the longest. Unnamed, the parts
    the kit prints, in its order (not the plain tile nobody prints by default)."""
    for name in ("tile", "tray", "tile_plain"):
        (tmp_path / f"{name}.stl").write_bytes(b"")
    chosen = kit_slicing._wanted(params, tmp_path, ["tray", "tile_plain", "tile"])
    assert [spec.name for spec in chosen] == ["tray", "tile_plain", "tile"]
    in_kit_order = kit_slicing._wanted(params, tmp_path, None)
    assert [spec.name for spec in in_kit_order] == ["tile", "tray"]


def test_a_cancel_kills_the_slicers_under_way_and_starts_no_other(
    settings: slicer.SliceSettings, tmp_path: Path
) -> None:
    """A build interrupted while it slices in the background must not wait for the slicer."""
    runs = slicer.SlicerRuns()
    refused: list[str] = []

    def slice_forever() -> None:
        try:
            slicer._run(["sleep", "600"], "box", (10, 10), settings, tmp_path, runs)
        except slicer.SlicerError as error:
            refused.append(str(error))

    worker = threading.Thread(target=slice_forever)
    worker.start()
    while not runs.live:  # the slicer has started
        time.sleep(0.01)
    (process,) = runs.live
    runs.cancel()
    worker.join()
    assert process.returncode == -signal.SIGKILL
    assert refused
    assert not runs.live
    with pytest.raises(slicer.SlicerError, match="cancelled"):
        runs.start(["true"], {}, tmp_path)

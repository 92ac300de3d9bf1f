"""The engine's tray with a lid (TrayParams.lid), without OpenSCAD: the closed box's
levels, each pocket's floor raised to bring its pieces under the lid, the lid's closed
pose, and the refusals of a lid or a tin that cannot be, in one line naming the keys."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from squadron_cad.errors import InputError
from squadron_cad.fit import simple
from squadron_cad.fit.tray_lid import lid_height, lid_levels
from squadron_cad.geometry import frames
from squadron_cad.resolve import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from toykit.lidded import TOY_LID_KIT


def params(*overrides: str):
    return resolve(kit=TOY_LID_KIT, overrides=list(overrides))


def layout_of(p):
    return TOY_LID_KIT.design(p).layout


def test_the_closed_box_is_the_tins_depth_less_its_clearance_lid_included() -> None:
    p = params()
    box = simple.tray_shape(p.tin, p.tray, "tray")
    lid = p.tray.lid
    assert box.height == pytest.approx(20 - 0.5)
    assert box.lid_bottom == pytest.approx(20 - 0.5 - lid.thickness_mm)
    assert box.ceiling == pytest.approx(box.lid_bottom - lid.headroom_mm)
    levels = lid_levels(box, lid)
    assert levels.wall_top == pytest.approx(box.height - lid_height(lid))
    assert levels.lip_top == pytest.approx(levels.wall_top + lid.lip_mm)
    assert levels.skirt == pytest.approx(lid.skirt_mm)


def test_every_stack_reaches_up_to_the_lid_less_the_headroom() -> None:
    """An open tray leaves 3 tiles (9 mm) 9.3 mm under the tin's lid: they rise and rattle.
    Lidded, each pocket's floor is raised so its stack stops just under the lid."""
    p = params()
    layout = layout_of(p)
    box = layout.box
    tops = {}
    for placed in layout.placements:
        tops[placed.unit] = max(tops.get(placed.unit, 0.0), placed.bounds[1][2])
    assert len(tops) == 2
    for top in tops.values():
        assert top == pytest.approx(box.ceiling)
    for pocket in layout.pockets:
        assert pocket.z_bottom >= box.floor
        assert pocket.z_top == pytest.approx(box.ceiling)
    assert layout.insert_top == pytest.approx(box.ceiling)
    assert layout.lid_part == "tray_lid"


def test_the_lid_closes_turned_over_its_skirt_on_the_wall() -> None:
    p = params()
    layout = layout_of(p)
    lid = p.tray.lid
    pose = np.asarray(layout.lid_pose)
    top, skirt_foot = frames.transform_points(pose, np.array([[0, 0, 0], [0, 0, lid_height(lid)]]))
    assert top[2] == pytest.approx(layout.box.height)
    assert skirt_foot[2] == pytest.approx(lid_levels(layout.box, lid).wall_top)


def test_without_a_lid_part_the_tray_stays_open() -> None:
    p = params()
    units = simple.declared_units(TOY_LID_KIT.parts, p)
    layout = simple.stow_in_tray(p.tin, p.tray, units, "tray", section="tray")
    assert layout.lid_part is None
    assert {pocket.z_bottom for pocket in layout.pockets} == {p.tray.floor_mm}


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (["tray.lid.rim_mm=1.5", "tray.lid.clearance_mm=0.4"],
         r"tray\.lid\.rim_mm \(1\.5\) plus tray\.lid\.clearance_mm \(0\.4\).*tray\.wall_mm"),
        (["tray.lid.lip_mm=5"], r"tray\.lid\.lip_mm \(5\) must be at most tray\.lid\.skirt_mm"),
        (["tray.lid.skirt_mm=17"],
         r"tray\.lid\.thickness_mm.*tray\.lid\.skirt_mm \(17\).*tin\.inner_depth_mm \d+"),
    ],
)  # fmt: skip
def test_a_lid_that_cannot_be_is_refused_naming_its_keys(overrides, words) -> None:
    with pytest.raises(InputError, match=words) as refused:
        layout_of(params(*overrides))
    assert "\n" not in str(refused.value)


def test_a_lid_needs_a_rattle_limit() -> None:
    p = params()
    loose = p.tray.model_copy(update={"max_rattle_mm": None})
    with pytest.raises(InputError, match=r"tray\.lid needs tray\.max_rattle_mm"):
        simple.tray_shape(p.tin, loose, "tray")


def test_a_tin_too_shallow_for_box_and_lid_names_the_depth_to_set() -> None:
    """The refusal names tin.inner_depth_mm; a tin that deep holds box and lid."""
    with pytest.raises(InputError, match=r"too shallow.*give tin\.inner_depth_mm") as refused:
        layout_of(params("tile.per_player=6", "tin.inner_depth_mm=18"))
    depth = float(re.search(r"tin\.inner_depth_mm ([\d.]+)", str(refused.value)).group(1))
    assert depth > 18
    layout = layout_of(params("tile.per_player=6", f"tin.inner_depth_mm={depth}"))
    assert layout.margins["z"] >= 0

"""The ruler joint component's sections (jointed_section), measured on every kit's rendered
range ruler (the session's kit builds): a section carries the tab, neck then wider head,
beyond its far end, and the slot cut through its near end, where its place says."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from squadron_cad.checks import meshgeo
from squadron_cad.checks.mesh import load_mesh

RULERS = [("squadron-leader", 3), ("squadrons", 4)]


@pytest.mark.parametrize(("kit_name", "sections"), RULERS)
def test_each_section_carries_the_joints_its_place_asks_for(
    kit_name: str, sections: int, built_kit
) -> None:
    report = built_kit(kit_name)
    r = report.params.ruler
    stl = {result.spec.name: result.stl for result in report.parts}
    meshes = [load_mesh(stl[f"range_ruler_{index}"]) for index in range(1, sections + 1)]
    length = float(meshes[-1].bounds[1][0])  # the last section has no tab
    neck, head = float(r.tab_width_mm), float(r.tab_tip_width_mm)
    tab_length = float(r.tab_length_mm)
    for index, mesh in enumerate(meshes, 1):
        # a quarter up: clear of the snap ridges at mid-height and of the engraving on top
        cut = meshgeo.section(mesh, float(r.thickness_mm) / 4)
        beyond = cut.intersection(box(length, -head, length + 2 * tab_length, head)).area
        if index < sections:
            assert mesh.bounds[1][0] == pytest.approx(length + tab_length, abs=1e-3), index
            assert beyond == pytest.approx((neck + head) * tab_length / 2, rel=0.01), index
        else:
            assert beyond == pytest.approx(0.0, abs=1e-6)
        near_end = cut.intersection(box(0, -neck / 2, tab_length, neck / 2)).area
        expected = 0.0 if index > 1 else neck * tab_length  # the slot is wider than the neck
        assert near_end == pytest.approx(expected, abs=0.01 * neck * tab_length), index

"""The toy kit with a lid on its tray (TrayParams.lid): the engine's lidded tray, its lid,
their in-play checks and the lid's tolerance coupon, for a kit that only declares them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from solid2.core.object_base import OpenSCADObject

from squadron_cad.checks.findings import Finding
from squadron_cad.checks.tray_play import tray_findings
from squadron_cad.components.tray_lid.coupon import lid_coupon
from squadron_cad.fit import simple
from squadron_cad.fit.layout import Layout
from squadron_cad.fit.tray import pocket_tray
from squadron_cad.fit.tray_lid import tray_lid
from squadron_cad.kit import Kit, KitContents, Part
from toykit import PARTS as TOY_PARTS
from toykit import ToyParams

HERE = Path(__file__).resolve().parent


class ToyLidParams(ToyParams):
    """The toy kit's sections; a model of its own, by which the engine finds this kit."""


@dataclass(frozen=True, eq=False)
class ToyLidDesign:
    params: ToyLidParams

    @cached_property
    def layout(self) -> Layout:
        p = self.params
        units = simple.declared_units(PARTS, p)
        return simple.stow_in_tray(p.tin, p.tray, units, "tray", "tray_lid", section="tray")


def build_tray(design: Any) -> OpenSCADObject:
    return pocket_tray(design.layout, design.params.tray.lid)


def build_lid(design: Any) -> OpenSCADObject:
    return tray_lid(design.layout.box, design.params.tray.lid)


def checks(design: Any, meshes: Any) -> list[Finding]:
    p = design.params
    return tray_findings(design.layout, meshes, p.tray, p.checks, p.tin, section="tray")


PARTS = (
    TOY_PARTS[0],
    Part("tray", "Tray with a tongue", build_tray, "box", per_kit=1, slow_render=True),
    Part("tray_lid", "The tray's lid", build_lid, "box", per_kit=1),
)

TOY_LID_KIT = Kit(
    name="toy-lid",
    title="Toy tiles with a lid",
    credit="Toy tiles, a test kit of squadron_cad (CC0)",
    params_model=ToyLidParams,
    defaults=HERE / "lidded.yaml",
    contents=KitContents(
        parts=PARTS,
        design=ToyLidDesign,
        checks=checks,
        coupons=(lid_coupon(lambda design: (design.params.tin, design.params.tray), "tray"),),
    ),
    notes="the toy kit, its tray closed by a lid",
)

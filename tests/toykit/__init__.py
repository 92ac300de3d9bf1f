"""A toy kit defined only under tests/: square tiles, a tray that holds them, and a plain
tile (no groove) that may be printed instead of a grooved one. It goes
through build, fit, checks, plates, BOM and previews with no engine edit, which is the
proof that the engine knows no game (docs/ARCHITECTURE.md, "Add a kit"); the engine's
unit tests drive the engine through it (tests/conftest.py: toy_kit, toy_params)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

import trimesh
from pydantic import Field
from solid2 import cube, difference, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit import simple
from squadron_cad.fit.layout import Layout
from squadron_cad.fit.report import fit_report
from squadron_cad.fit.tray import pocket_tray
from squadron_cad.geometry import frames
from squadron_cad.geometry.expr import Number
from squadron_cad.kit import Kit, KitContents, LazyImport, Part, PrintNotes, Purchase, Stowing
from squadron_cad.params import KitParamsBase, Mm, Section, TrayParams, mm

HERE = Path(__file__).resolve().parent


class TileParams(Section):
    width_mm: Annotated[Mm, mm("Side of a square tile", 5, 100)]
    thickness_mm: Annotated[Mm, mm("Thickness of a tile", 1, 20)]
    per_player: Annotated[int, Field(ge=1, le=20, description="Tiles for each player")]
    mark_depth_mm: Annotated[Mm, mm("Depth of the groove across a tile's top", 0.2, 3)]


class ToyParams(KitParamsBase):
    tile: TileParams
    tray: TrayParams

    @property
    def groove_width_mm(self) -> Number:
        """The groove across a tile: a derived size, shown and emitted, never set."""
        return self.tile.width_mm / 10


@dataclass(frozen=True, eq=False)
class ToyDesign:
    params: ToyParams

    @cached_property
    def layout(self) -> Layout:
        """Each player's tiles, stacked (what Part.stow declares), in the tray."""
        p = self.params
        return simple.stow_in_tray(p.tin, p.tray, simple.declared_units(PARTS, p), "tray")


def tile_bounds(p: ToyParams) -> frames.Bounds:
    half = p.tile.width_mm / 2
    return (-half, -half, 0.0), (half, half, p.tile.thickness_mm)


def build_plain_tile(design: Any) -> OpenSCADObject:
    side, thick = design.params.tile.width_mm, design.params.tile.thickness_mm
    return translate([-side / 2, -side / 2, 0])(cube([side, side, thick]))


def build_tile(design: Any) -> OpenSCADObject:
    p = design.params
    side, thick, depth = p.tile.width_mm, p.tile.thickness_mm, p.tile.mark_depth_mm
    wide = p.groove_width_mm
    groove = translate([-side / 2 - 1, -wide / 2, thick - depth])(cube([side + 2, wide, depth + 1]))
    return difference()(build_plain_tile(design), groove)


def build_tray(design: Any) -> OpenSCADObject:
    return pocket_tray(design.layout)


def _tile_notes(p: ToyParams) -> PrintNotes:
    return PrintNotes(engraving_depth_mm=p.tile.mark_depth_mm)


def tiles_per_player(p: ToyParams) -> int:
    return p.tile.per_player * p.players


def invariants(design: ToyDesign, meshes: Any) -> list[dict[str, Any]]:
    """The rule of the toy game: a tile is as thick as its parameter says."""
    if "tile" not in meshes:
        return []
    mesh: trimesh.Trimesh = meshes["tile"]
    measured = round(float(mesh.extents[2]), 4)
    expected = design.params.tile.thickness_mm
    ok = abs(measured - expected) <= 0.01
    return [
        {
            "name": "tile thickness",
            "expected": expected,
            "measured": measured,
            "tolerance": 0.01,
            "ok": ok,
        }
    ]


def purchases(p: ToyParams) -> list[Purchase]:
    return [Purchase("pencil", p.players, "one per player, to keep score")]


PARTS = (
    Part(
        "tile",
        "Square tile, a groove across its top",
        build_tile,
        "player",
        count_rule=tiles_per_player,
        colour="player",
        print_notes=_tile_notes,
        noun="tile",
        stow=Stowing(tile_bounds, per_column=20, by_player=True),  # a player's tiles: one stack
    ),
    Part(
        "tray",
        "Tray: a pocket for each player's stack",
        build_tray,
        "box",
        per_kit=1,
        orientation="floor down",
        slow_render=True,
        camera="0,0,0,0,0,0,0",  # from straight above: the pockets show
    ),
    Part(
        "tile_plain",
        "A tile without the groove, to print instead of a grooved one",
        build_plain_tile,
        "player",
        alternative_to="tile",
    ),
)

TOY_KIT = Kit(
    name="toy",
    title="Toy tiles",
    credit="Toy tiles, a test kit of squadron_cad (CC0)",
    params_model=ToyParams,
    defaults=HERE / "default.yaml",
    contents=KitContents(
        parts=PARTS,
        design=ToyDesign,
        invariants=invariants,
        purchases=purchases,
        fit_lines=fit_report,  # the engine's report, nothing of the kit's own to add
        paper=LazyImport("toykit.paper", "write_paper"),  # imported when asked for
    ),
    notes="two parts, for the engine's tests",
)

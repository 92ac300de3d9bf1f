"""A toy kit of two parts, defined only under tests/: square tiles and a tray that holds
them. It goes through build, fit, checks, plates, BOM and previews with no engine edit,
which is the proof that the engine knows no game (docs/ARCHITECTURE.md, "Add a kit")."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

import trimesh
from pydantic import Field
from solid2 import cube, difference, linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit import simple
from squadron_cad.fit.layout import BoxShape, Layout
from squadron_cad.geometry import frames
from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle
from squadron_cad.kit import Kit, KitContents, Part, PrintNotes, Purchase, Stowing
from squadron_cad.params import KitParamsBase, Mm, Section, mm

HERE = Path(__file__).resolve().parent


class TileParams(Section):
    width_mm: Annotated[Mm, mm("Side of a square tile", 5, 100)]
    thickness_mm: Annotated[Mm, mm("Thickness of a tile", 1, 20)]
    per_player: Annotated[int, Field(ge=1, le=20, description="Tiles for each player")]
    mark_depth_mm: Annotated[Mm, mm("Depth of the groove across a tile's top", 0.2, 3)]


class TrayParams(Section):
    tin_clearance_mm: Annotated[Mm, mm("Gap between tray and tin", 0, 5, allow_zero=True)]
    wall_mm: Annotated[Mm, mm("Tray wall", 0.8, 10)]
    floor_mm: Annotated[Mm, mm("Tray floor", 0.4, 10)]
    pocket_clearance_mm: Annotated[Mm, mm("Gap around a stack in its pocket", 0, 3)]
    divider_mm: Annotated[Mm, mm("Wall between pockets", 0.4, 10)]


class ToyParams(KitParamsBase):
    tile: TileParams
    tray: TrayParams


@dataclass(frozen=True, eq=False)
class ToyDesign:
    params: ToyParams

    @cached_property
    def box(self) -> BoxShape:
        tin, tray = self.params.tin, self.params.tray
        gap = tray.tin_clearance_mm
        return BoxShape(
            length=tin.inner_length_mm - 2 * gap,
            width=tin.inner_width_mm - 2 * gap,
            height=tin.inner_depth_mm - gap,
            radius=max(tin.corner_radius_mm - gap, tray.wall_mm),
            wall=tray.wall_mm,
            floor=tray.floor_mm,
            lid_thickness=0.0,
            headroom=0.0,
        )

    @cached_property
    def layout(self) -> Layout:
        p = self.params
        return simple.stow(
            self.box,
            simple.declared_units(PARTS, p),  # each player's tiles, stacked (Part.stow)
            clearance=p.tray.pocket_clearance_mm,
            divider=p.tray.divider_mm,
            box_part="tray",
            lid_part=None,
        )


def tile_bounds(p: ToyParams) -> frames.Bounds:
    half = p.tile.width_mm / 2
    return (-half, -half, 0.0), (half, half, p.tile.thickness_mm)


def build_tile(design: Any) -> OpenSCADObject:
    p = design.params
    side, thick, depth = p.tile.width_mm, p.tile.thickness_mm, p.tile.mark_depth_mm
    groove = translate([-side / 2 - 1, -1, thick - depth])(cube([side + 2, 2, depth + 1]))
    return difference()(translate([-side / 2, -side / 2, 0])(cube([side, side, thick])), groove)


def build_tray(design: Any) -> OpenSCADObject:
    box, layout = design.box, design.layout
    body = linear_extrude(height=box.height)(rounded_rectangle(box.length, box.width, box.radius))
    cuts = []
    for pocket in layout.pockets:
        (x0, y0, x1, y1) = pocket.bounds_2d
        cuts.append(
            translate([x0, y0, pocket.z_bottom])(
                cube([x1 - x0, y1 - y0, box.height - pocket.z_bottom + EPSILON_MM])
            )
        )
    return difference()(body, *cuts)


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
)

TOY_KIT = Kit(
    name="toy",
    title="Toy tiles",
    credit="Toy tiles, a test kit of squadron_cad (CC0)",
    params_model=ToyParams,
    defaults=HERE / "default.yaml",
    contents=KitContents(parts=PARTS, design=ToyDesign, invariants=invariants, purchases=purchases),
    notes="two parts, for the engine's tests",
)

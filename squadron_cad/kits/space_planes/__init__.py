"""The Space Planes kit: the joker gauge, each player's cubeships, plane-die holders and a
lidded box fitted to a container for the deck, the gauge, the cubes and the dice.

This module stays light (the parameter model and paths): the parts and checks load on
first use, through `contents`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from squadron_cad.kit import BenchChange, Kit, KitContents, LazyImport
from squadron_cad.kits.space_planes.constants import GAME_CREDIT
from squadron_cad.kits.space_planes.params import SpacePlanesParams

if TYPE_CHECKING:
    from squadron_cad.paper.edition import PaperReport

HERE = Path(__file__).resolve().parent


def _paper(params: SpacePlanesParams, out: Path, previews: bool) -> PaperReport:
    """The footprint sheet (fpdf2 and pypdf load only when it is asked for)."""
    from squadron_cad.kits.space_planes.sheets import write_paper

    return write_paper(params, out, previews, GAME_CREDIT)


def contents() -> KitContents:
    from squadron_cad.kits.space_planes import design, stowing
    from squadron_cad.kits.space_planes.parts.registry import PARTS

    return KitContents(
        parts=PARTS,
        design=design.SpacePlanesDesign,
        checks=LazyImport(f"{__name__}.checks", "clearance_findings"),  # loads trimesh
        invariants=LazyImport(f"{__name__}.checks", "invariants"),
        fit_lines=stowing.fit_lines,
        purchases=design.purchases,
        paper=_paper,
        coupons=LazyImport(f"{__name__}.coupons", "COUPONS"),  # loads trimesh
    )


__all__ = ["KIT"]

KIT = Kit(
    name="space-planes",
    title="Space Planes",
    credit=GAME_CREDIT,
    params_model=SpacePlanesParams,
    defaults=HERE / "default.yaml",
    presets=HERE / "tins",
    contents=contents,
    notes="joker gauge, cubeships per player, plane-die holders, a lidded box for them all",
    featured=(
        "card.long_mm",
        "card.short_mm",
        "card.deck_thickness_mm",
        "card.sleeved",
        "cube.side_mm",
    ),
    # The change a maker makes most (another tin), and one that reaches most parts.
    bench_changes=(
        BenchChange("tin", "tin.inner_length_mm=129", 0.25),
        BenchChange("cube side", "cube.side_mm=15.5", 0.6),
    ),
)

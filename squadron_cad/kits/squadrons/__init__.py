"""The Squadrons kit: ship bases, an inch range ruler, a movement gauge and pivot guide,
objective and entry markers, ship trackers and a box fitted to a container.

This module stays light (the parameter model and paths): the parts, checks and sheets
load on first use, through `contents`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from squadron_cad.kit import BenchChange, Kit, KitContents, Later
from squadron_cad.kits.squadrons.constants import GAME_CREDIT
from squadron_cad.kits.squadrons.params import SquadronsParams

if TYPE_CHECKING:
    from squadron_cad.paper.edition import PaperReport

HERE = Path(__file__).resolve().parent


def _paper(params: SquadronsParams, out: Path, previews: bool) -> PaperReport:
    """The paper edition (fpdf2 and pypdf load only when it is asked for)."""
    from squadron_cad.kits.squadrons.sheets.registry import write_paper

    return write_paper(params, out, previews)


def contents() -> KitContents:
    from squadron_cad.kits.squadrons import design, stowing
    from squadron_cad.kits.squadrons.parts.registry import PARTS

    checks = f"{__name__}.checks"  # loads trimesh: only a build or check needs it
    return KitContents(
        parts=PARTS,
        design=design.SquadronsDesign,
        checks=Later(checks, "clearance_findings"),
        invariants=Later(checks, "invariants"),
        fit_lines=stowing.fit_lines,
        paper=_paper,
        purchases=design.purchases,
    )


__all__ = ["KIT"]

KIT = Kit(
    name="squadrons",
    title="Squadrons",
    credit=GAME_CREDIT,
    params_model=SquadronsParams,
    defaults=HERE / "default.yaml",
    presets=HERE / "tins",
    contents=contents,
    notes="ship bases, inch ruler, movement gauge, pivot guide, objectives, trackers, a box",
    featured=("base.per_player", "base.size_mm"),
    # The change a maker makes most (another tin), and one that reaches most parts.
    bench_changes=(
        BenchChange("tin", "tin.inner_length_mm=219", 0.25),
        BenchChange("base size", "base.size_mm=42", 0.6),
    ),
)

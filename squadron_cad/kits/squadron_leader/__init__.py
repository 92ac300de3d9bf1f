"""The Squadron Leader kit: plane and altitude tokens, move templates, range ruler, stat
dial and a box fitted to the maker's tin (the game by Tim Smith, CC BY-SA 4.0).

This module stays light (the parameter model and paths): the parts, checks and sheets
load on first use, through `contents`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from squadron_cad.kit import BenchChange, Kit, KitContents, LazyImport
from squadron_cad.kits.squadron_leader.constants import DEFAULTS_FILE, GAME_CREDIT
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

if TYPE_CHECKING:
    from squadron_cad.paper.edition import PaperReport

HERE = Path(__file__).resolve().parent


def _paper(params: SquadronLeaderParams, out: Path, previews: bool) -> PaperReport:
    """The paper edition (fpdf2 and pypdf load only when it is asked for)."""
    from squadron_cad.kits.squadron_leader.sheets.registry import write_paper

    return write_paper(params, out, previews)


def contents() -> KitContents:
    from squadron_cad.kits.squadron_leader import design
    from squadron_cad.kits.squadron_leader.parts.registry import PARTS
    from squadron_cad.kits.squadron_leader.stowing.summary import fit_lines

    checks = f"{__name__}.checks.kit"  # these load trimesh: only a build or check needs them
    return KitContents(
        parts=PARTS,
        design=design.SquadronLeaderDesign,
        checks=LazyImport(checks, "clearance_findings"),
        invariants=LazyImport(checks, "invariants"),
        fit_lines=fit_lines,
        scenes=LazyImport(f"{__name__}.scenes", "scenes"),
        paper=_paper,
        purchases=design.purchases,
        coupons=LazyImport(f"{__name__}.coupons", "COUPONS"),
    )


__all__ = ["KIT"]

KIT = Kit(
    name="squadron-leader",
    title="Squadron Leader",
    credit=GAME_CREDIT,
    params_model=SquadronLeaderParams,
    defaults=DEFAULTS_FILE,
    presets=HERE / "tins",
    contents=contents,
    notes="WW1 dogfights in a tobacco tin: tokens, templates, ruler, stat dials and a box",
    featured=("token.width_mm", "box.leave_out", "dice.colours"),
    # The change a maker makes most (another tin), and one that reaches most parts.
    bench_changes=(
        BenchChange("tin", "tin.inner_length_mm=112", 0.25),
        BenchChange("token width", "token.width_mm=27", 0.6),
    ),
)

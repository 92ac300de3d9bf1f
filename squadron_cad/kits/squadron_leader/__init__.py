"""The Squadron Leader kit: plane and altitude tokens, move templates, range ruler, stat
dial and a box fitted to the maker's tin (the game by Tim Smith, CC BY-SA 4.0)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from squadron_cad.kit import Kit, Purchase
from squadron_cad.kits.squadron_leader import design, params, scenes
from squadron_cad.kits.squadron_leader.checks import kit as kit_checks
from squadron_cad.kits.squadron_leader.constants import GAME_CREDIT
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.kits.squadron_leader.stowing.summary import fit_lines

if TYPE_CHECKING:
    from squadron_cad.paper.edition import PaperReport

HERE = Path(__file__).resolve().parent


def _paper(p: params.KitParams, out: Path, previews: bool) -> PaperReport:
    """The paper edition (imported on demand: fpdf2 and pypdf load only for `paper`)."""
    from squadron_cad.kits.squadron_leader.sheets.registry import write_paper

    return write_paper(p, out, previews)


def purchases(p: params.KitParams) -> list[Purchase]:
    """The dice (params.dice), and the optional playmat."""
    dice = p.dice
    wanted = []
    colours = {colour: n for colour, n in dice.colours.items() if n > 0}
    if colours:
        mix = ", ".join(f"{n} {colour}" for colour, n in colours.items())
        detail = f"{dice.size_mm:g} mm d{dice.sides}: {mix}; the box has a pocket for them"
        wanted.append(Purchase("dice", sum(colours.values()), detail))
    playmat = "any mat or cloth to fly over; not needed to play"
    return [*wanted, Purchase("playmat (optional)", None, playmat)]


KIT = Kit(
    name="squadron-leader",
    title="Squadron Leader",
    credit=GAME_CREDIT,
    params_model=params.KitParams,
    defaults=HERE / "default.yaml",
    presets=HERE / "tins",
    parts=PARTS,
    design=design.design,
    checks=kit_checks.clearance_findings,
    invariants=kit_checks.invariants,
    fit_lines=fit_lines,
    scenes=scenes.scenes,
    paper=_paper,
    purchases=purchases,
    notes="WW1 dogfights in a tobacco tin: tokens, templates, ruler, stat dials and a box",
)

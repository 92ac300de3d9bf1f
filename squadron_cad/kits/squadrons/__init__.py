"""The Squadrons kit: ship bases, an inch range ruler, a movement gauge and pivot guide,
objective and entry markers, ship trackers and a box fitted to a container.

This module stays light (the parameter model and paths): the parts and checks load on
first use, through `contents`.
"""

from __future__ import annotations

from pathlib import Path

from squadron_cad.kit import Kit, KitContents
from squadron_cad.kits.squadrons.constants import GAME_CREDIT
from squadron_cad.kits.squadrons.params import SquadronsParams

HERE = Path(__file__).resolve().parent


def contents() -> KitContents:
    from squadron_cad.kits.squadrons import checks, design
    from squadron_cad.kits.squadrons.parts.registry import PARTS

    return KitContents(
        parts=PARTS,
        design=design.SquadronsDesign,
        checks=checks.clearance_findings,
        invariants=checks.invariants,
        fit_lines=design.fit_lines,
        purchases=design.purchases,
    )


KIT = Kit(
    name="squadrons",
    title="Squadrons",
    credit=GAME_CREDIT,
    params_model=SquadronsParams,
    defaults=HERE / "default.yaml",
    presets=HERE / "tins",
    contents=contents,
    notes="ship bases, inch ruler, movement gauge, pivot guide, objectives, trackers, a box",
)

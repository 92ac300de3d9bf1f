"""Squadron Leader's parameter model: the game's sections (`sections`) on top of the
engine's, the defaults that follow the token width (`following`) and the rules across
sections (`rules`).

Values come from this kit's default.yaml, then a tin preset, any --params files, then --set
overrides (see `squadron_cad.resolve`). Derived sizes are properties computed from the
rules' ratios in `constants`, never typed twice. Cross-field rules raise messages that name
every key involved, because a maker reads them at a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import model_validator

from squadron_cad.kits.squadron_leader.following import follow
from squadron_cad.kits.squadron_leader.rules import CROSS_RULES
from squadron_cad.kits.squadron_leader.sections import SquadronLeaderSections


class SquadronLeaderParams(SquadronLeaderSections):
    """Everything a Squadron Leader build needs. Sections mirror the kit's default.yaml."""

    FOLLOWING: ClassVar[str] = (
        "The defaults are sized for a 26 mm token; those you leave alone follow "
        "`token.width_mm` (a key you set is kept as you set it): the silhouette, where the "
        "forward guides start, the cost chevrons and the ruler's numerals scale with it; "
        "the pegs and the ruler joint's tab shrink with a smaller token and keep their "
        "size on a larger one; the paper hex is the counter plus 8 mm. At any width the "
        "joint's tab narrows to keep 0.8 mm slot walls, the snap ridges stand 0.3 x the "
        "tab's shoulder past `ruler.joint_clearance_mm`, the altitude token's hole shrinks "
        "to keep 0.8 mm to the sockets and room for a player's mark, and on a small token "
        "the pegs move inward to keep 0.8 mm to the edge. `squadron-cad params` shows the "
        "values used."
    )

    @classmethod
    def follow_defaults(
        cls, values: dict[str, Any], given: Callable[[str], bool]
    ) -> dict[str, Any]:
        """Sizes left at their default follow the token width and the fits' clearances
        (`following`)."""
        return follow(values, given)

    @model_validator(mode="after")
    def _cross_section_rules(self) -> SquadronLeaderParams:
        for rule in CROSS_RULES:
            rule(self)
        return self

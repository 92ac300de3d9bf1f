"""When nothing fits the tin: the refusal's figures, each verified by solving again.

How much bigger a tin must be (grown until a tin that much bigger really holds
everything), how much deeper, the largest corner radius that fits, the most players and
dice that fit, and the smallest kind of piece whose absence lets the rest fit.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence

from squadron_cad.errors import InputError
from squadron_cad.fit.layout import BoxShape
from squadron_cad.fit.packing import FRONT_LIMIT
from squadron_cad.fit.units import Unit
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import refusals, solver


def no_fit_message(
    p: SquadronLeaderParams, shape: BoxShape, contents: solver.Contents, leave_out: frozenset[str]
) -> str:
    shortfall = _verified(p, _best_shortfall(p, shape, contents, leave_out))
    culprit = _culprit(p, shape, contents, leave_out)
    deeper = _least_extra_depth(p) if shortfall.z <= solver.EPS else None
    players, dice = _most_players_that_fit(p), _most_dice_that_fit(p, leave_out)
    return refusals.message(p, culprit, shortfall, players=players, deeper=deeper, dice=dice)


def _grown(
    p: SquadronLeaderParams, x: float = 0.0, y: float = 0.0, z: float = 0.0
) -> SquadronLeaderParams:
    tin = p.tin
    bigger = tin.model_copy(
        update={
            "inner_length_mm": tin.inner_length_mm + x,
            "inner_width_mm": tin.inner_width_mm + y,
            "inner_depth_mm": tin.inner_depth_mm + z,
        }
    )
    return p.model_copy(update={"tin": bigger})


GROWTH_SEARCH_MM = 300.0  # the most a refusal's verified growth looks for


def _verified(p: SquadronLeaderParams, estimate: refusals.Shortfall) -> refusals.Shortfall:
    """The estimate grown until a tin that much bigger really holds everything, to 0.1 mm
    (the estimate reads margins, and the dividers, pockets and corners move as the tin
    grows: '3.0 mm more width' once left a tin 0.2 mm short). A corner shortfall becomes
    the largest corner radius that fits; one no change fixes is left as it is."""
    if math.isinf(estimate.x):
        return estimate
    if estimate.x + estimate.y + estimate.z <= solver.EPS:
        return _corners_verified(p, estimate)
    step = max(estimate.x, estimate.y, estimate.z)
    scale = [estimate.x / step, estimate.y / step, estimate.z / step]

    def fits(tenths: int) -> bool:
        grow = tenths / 10
        return _has_layout(_grown(p, *(grow * s for s in scale)))

    low, high = 0, math.ceil(step * 10 - 1e-6)
    if not fits(high):
        far = max(high * 10, round(GROWTH_SEARCH_MM * 10))
        if not fits(far):
            return refusals.Shortfall(x=math.inf)  # no figure to give: say a bigger tin
        low, high = high, far
    grow = _least_that_fits(fits, low, high) / 10
    return refusals.Shortfall(x=grow * scale[0], y=grow * scale[1], z=grow * scale[2])


def _corners_verified(p: SquadronLeaderParams, estimate: refusals.Shortfall) -> refusals.Shortfall:
    """The largest tin corner radius (to 0.1 mm, below today's) with which everything fits."""

    def fits(tenths: int) -> bool:
        tin = p.tin.model_copy(update={"corner_radius_mm": tenths / 10})
        return _has_layout(p.model_copy(update={"tin": tin}))

    now = math.ceil(p.tin.corner_radius_mm * 10 - 1e-6)  # does not fit (the tin as it is)
    if now <= 0 or not fits(0):
        return estimate
    less = _least_that_fits(lambda tenths: fits(now - tenths), 0, now)  # tenths off today's
    return refusals.Shortfall(corner=estimate.corner, radius_to=(now - less) / 10)


DEEPER_SEARCH_MM = 40.0  # how much deeper a tin the refusal looks for before giving up


def _least_extra_depth(p: SquadronLeaderParams) -> float | None:
    """How much deeper the tin must be for everything to fit as it is (pieces stand in
    fewer, taller stacks in a deeper box, the template lies on top), to 0.1 mm; None
    when even DEEPER_SEARCH_MM more does not do it. A shallow tin's shortfall read as
    length or width sent makers looking for a longer tin when 1 mm of depth was missing."""

    def fits(extra: float) -> bool:
        tin = p.tin.model_copy(update={"inner_depth_mm": p.tin.inner_depth_mm + extra})
        return _has_layout(p.model_copy(update={"tin": tin}))

    steps = round(DEEPER_SEARCH_MM * 10)  # tenths of a mm: the least that fits, exactly
    if not fits(steps / 10):
        return None
    return _least_that_fits(lambda tenths: fits(tenths / 10), 0, steps) / 10


def _least_that_fits(fits: Callable[[int], bool], low: int, high: int) -> int:
    """The least step in (low, high] that fits, by bisection: low does not fit, high does,
    and every step past the least fits too (more room never hurts)."""
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high


def _most_players_that_fit(p: SquadronLeaderParams) -> int | None:
    """The most players, under p.players, whose pieces this tin holds (None: not even one)."""
    for players in range(p.players - 1, 0, -1):
        if _has_layout(p.model_copy(update={"players": players})):
            return players
    return None


def _most_dice_that_fit(p: SquadronLeaderParams, leave_out: frozenset[str]) -> int | None:
    """The most dice, under dice.colours' count, with which everything fits (None: the
    dice are not what stands in the way, or only none fit)."""
    count = p.dice.count
    if "dice" in leave_out or count == 0 or not _has_layout(_with_dice(p, 0)):
        return None
    fewer = _least_that_fits(lambda less: _has_layout(_with_dice(p, count - less)), 0, count)
    return count - fewer or None


def _with_dice(p: SquadronLeaderParams, count: int) -> SquadronLeaderParams:
    return p.model_copy(update={"dice": p.dice.model_copy(update={"colours": {"dice": count}})})


def _has_layout(p: SquadronLeaderParams) -> bool:
    """Whether solve(p) finds a layout, without composing the refusal (the costly part)."""
    shape = solver.box_shape(p)
    leave_out = frozenset(p.box.leave_out)
    try:
        solver.check_box(p, shape)
        contents = _contents(p)
        solver.check_each_item(p, shape, contents, leave_out)
    except InputError:
        return False
    return _any_fit(p, shape, contents, leave_out)


def _contents(p: SquadronLeaderParams) -> solver.Contents:
    """The pieces to stow, shared by the tins a refusal tries (the pieces do not change
    with the tin), with the blocks each strategy made of them."""
    pieces = p.model_dump_json(exclude={"tin"})
    with _CONTENTS_LOCK:  # the customizer's server fits in several threads
        if pieces not in _CONTENTS:
            if len(_CONTENTS) >= 4:  # a server refuses tin after tin: keep the latest few
                del _CONTENTS[next(iter(_CONTENTS))]
            _CONTENTS[pieces] = solver.contents_of(p)
        return _CONTENTS[pieces]


_CONTENTS: dict[str, solver.Contents] = {}
_CONTENTS_LOCK = threading.Lock()


def _any_fit(
    p: SquadronLeaderParams, shape: BoxShape, contents: solver.Contents, leave_out: frozenset[str]
) -> bool:
    """Whether any arrangement fits: what `solver.search(...) is not None` answers, without
    looking on for the best one once one fits (the refusal's figures ask this 20-odd times)."""
    for strategy in solver.strategies(p, shape, leave_out):
        for packing in solver.packings(p, shape, contents, strategy, (0.0, FRONT_LIMIT)):
            if min(solver.straight_margins(shape, packing).values()) < -solver.EPS:
                continue  # the corners only lower the margins
            candidate = solver.scored_candidate(p, shape, packing)
            if min(candidate.margins.values()) >= -solver.EPS:
                return True
    return False


def _best_shortfall(
    p: SquadronLeaderParams, shape: BoxShape, contents: solver.Contents, leave_out: frozenset[str]
) -> refusals.Shortfall:
    """The smallest enlargement any strategy needs (looked for a little beyond the box first)."""
    for reach, front in solver.SHORTFALL_SEARCH:
        best: refusals.Shortfall | None = None
        for strategy in solver.strategies(p, shape, leave_out):
            for packing in solver.packings(p, shape, contents, strategy, (reach, front)):
                margins = solver.straight_margins(shape, packing)
                if min(margins.values()) >= -solver.EPS:  # only then do the corners decide
                    margins = solver.scored_candidate(p, shape, packing).margins
                else:
                    margins["corner"] = 0.0
                need = refusals.from_margins(margins)
                if best is None or need.cost < best.cost:
                    best = need
        if best is not None:
            return best
    return refusals.Shortfall(x=math.inf)


def _culprit(
    p: SquadronLeaderParams, shape: BoxShape, contents: solver.Contents, leave_out: frozenset[str]
) -> str:
    """The smallest kind of piece whose absence lets the rest fit (the stacks if none)."""
    for kind in sorted(
        set(solver.KINDS) - leave_out - {"stacks"}, key=lambda k: _area(contents, k)
    ):
        if _any_fit(p, shape, contents, leave_out | {kind}):
            return kind
    return "stacks"


def _area(contents: solver.Contents, kind: str) -> float:
    def footprint(units: Sequence[Unit]) -> float:
        return sum(unit.size[0] * unit.size[1] for unit in units)

    areas = {
        "dials": footprint(contents.dials),
        "dice": footprint(contents.dice),
        "ruler": footprint(contents.ruler_flat),
        "template": footprint([contents.template]),
    }
    return areas[kind]

"""The tin fit: the best layout for the tin (solver.py), or the refusal that says what does
not fit and by how much (shortfalls.py)."""

from __future__ import annotations

from squadron_cad.errors import InputError
from squadron_cad.fit.layout import Layout
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.stowing import solver
from squadron_cad.kits.squadron_leader.stowing.shortfalls import no_fit_message


def solve(p: SquadronLeaderParams) -> Layout:
    """The best layout for the tin, or an InputError naming what does not fit and by how much."""
    shape = solver.box_shape(p)
    leave_out = frozenset(p.box.leave_out)
    solver.check_box(p, shape)
    contents = solver.contents_of(p)
    solver.check_each_item(p, shape, contents, leave_out)
    best = solver.search(p, shape, contents, leave_out)
    if best is None:
        raise InputError(no_fit_message(p, shape, contents, leave_out))
    return solver.laid_out(p, shape, best)

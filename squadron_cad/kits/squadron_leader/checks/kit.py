"""The kit's own checks: clearances between parts and the rules' invariants.

Both take the design and the rendered meshes by part name (missing parts are skipped, so
`--only` builds still check what they have). They share the measured stacks, so calling
both costs little more than one.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING

import trimesh

from squadron_cad.checks import memo
from squadron_cad.checks.findings import Finding
from squadron_cad.components.invariants import is_valid_solid, unmeasured, valid_solids
from squadron_cad.errors import SquadronError
from squadron_cad.fit import layout_io
from squadron_cad.kits.squadron_leader.checks import clearances, rattle
from squadron_cad.kits.squadron_leader.checks import invariants as rules
from squadron_cad.kits.squadron_leader.checks.clearances import StackMeasure

if TYPE_CHECKING:
    from squadron_cad.fit.layout import Layout
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign
    from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams

UPPERS = ("altitude_token", "plane_token")  # what stands on an altitude token

_STACKS: weakref.WeakKeyDictionary[trimesh.Trimesh, dict[tuple[str, int], StackMeasure]] = (
    weakref.WeakKeyDictionary()
)


def stacks(meshes: Mapping[str, trimesh.Trimesh]) -> list[StackMeasure]:
    """Each upper token seated on an altitude token, measured once per pair of meshes."""
    if not is_valid_solid(meshes.get("altitude_token")):
        return []
    lower = meshes["altitude_token"]
    known = _STACKS.setdefault(lower, {})
    measured = []
    for upper in UPPERS:
        if not is_valid_solid(meshes.get(upper)):
            continue
        # Trimesh hashes by content, so _STACKS is shared by equal meshes of other builds;
        # an id() could be reused by another mesh there, the content hash cannot.
        key = (upper, hash(meshes[upper]))
        if key not in known:
            known[key] = _measured_stack(lower, meshes[upper], upper)
        measured.append(known[key])
    return measured


def _measured_stack(lower: trimesh.Trimesh, upper: trimesh.Trimesh, name: str) -> StackMeasure:
    """A stack depends on its two meshes only: kept between builds by their content."""
    inputs = f"{name}|{memo.mesh_digest(lower)}|{memo.mesh_digest(upper)}"
    value = memo.remember(
        "stack", inputs, lambda: asdict(clearances.measure_stack(lower, upper, name))
    )
    seats = {int(turn): bool(ok) for turn, ok in value["seats"].items()}  # JSON keys: str
    return StackMeasure(**{**value, "seats": seats})


def clearance_findings(
    design: SquadronLeaderDesign, meshes: Mapping[str, trimesh.Trimesh]
) -> list[Finding]:
    """The clearances between parts that meet: stacks, ruler joints, clips, the box."""
    valid = valid_solids(meshes)
    try:
        layout = design.layout if "box" in valid else None
    except SquadronError:  # the solver refuses a tin too small; the build reported it
        layout = None
    found = clearances.all_findings(design.params, valid, stacks(valid), layout)
    return found + (_rattle(design.params, layout) if layout is not None else [])


# Sections the rattle check never reads; what it does read of them (where the ruler and the
# stat dials lie) is in the layout.
RATTLE_IGNORES = frozenset({"ruler", "stat_dial", "marks", "slicer", "printer", "previews"})


def _rattle(p: SquadronLeaderParams, layout: Layout) -> list[Finding]:
    """Kept between builds by the layout and the parameters it reads: a change that moves
    no piece in the box (a ruler joint's clearance) does not measure it again."""
    read = p.model_dump(mode="json", exclude=set(RATTLE_IGNORES))
    inputs = f"{layout_io.layout_digest(layout, p)}|{json.dumps(read, sort_keys=True)}"
    value = memo.remember(
        "rattle", inputs, lambda: [f.as_dict() for f in rattle.findings(p, layout)]
    )
    return [Finding.from_dict(item) for item in value]


def invariants(design: SquadronLeaderDesign, meshes: Mapping[str, trimesh.Trimesh]) -> list[dict]:
    """The rules' invariants measured on the meshes: {name, expected, measured, tolerance,
    ok} each."""
    valid = valid_solids(meshes)
    # A broken mesh cannot be measured: say so rather than leave its invariants out.
    return unmeasured(meshes) + rules.all_invariants(design.params, valid, stacks(valid))


def rule_invariants(
    params: SquadronLeaderParams, meshes: Mapping[str, trimesh.Trimesh]
) -> list[dict]:
    """The rules' invariants for these parameters (`invariants` of their design)."""
    from squadron_cad.kits.squadron_leader.design import SquadronLeaderDesign

    return invariants(SquadronLeaderDesign(params), meshes)

"""The whole kit's checks: per-part printability, clearances between parts, the rules.

`kit_findings` and `invariants` take the parameters and the rendered meshes by part name
(missing parts are skipped, so `--only` builds still check what they have). They share
the measured stacks, so calling both costs little more than one.
"""

from __future__ import annotations

import weakref

import trimesh

from squadron_cad.checks import clearances, meshgeo
from squadron_cad.checks import invariants as rules
from squadron_cad.checks.clearances import StackMeasure
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.printability import PartInfo, printability_findings
from squadron_cad.params import KitParams
from squadron_cad.parts.registry import PARTS, PartSpec

UPPERS = ("altitude_token", "plane_token")  # what stands on an altitude token

_STACKS: weakref.WeakKeyDictionary[trimesh.Trimesh, dict[int, StackMeasure]] = (
    weakref.WeakKeyDictionary()
)


def part_info(params: KitParams, spec: PartSpec) -> PartInfo:
    """What the printability checks need to know of a part beyond its mesh."""
    name, text = spec.name, params.text
    ruler = max(params.ruler.mark_depth_mm, text.depth_mm)
    depths = {
        "plane_token": params.plane.groove_depth_mm,
        "stat_dial_card": max(text.depth_mm, params.stat_dial.detent_depth_mm),
        "template_all": params.templates.guide_groove_depth_mm,
        "box_lid": text.depth_mm,
        "box": text.depth_mm,
    }
    heights = {
        "stat_dial_card": params.stat_dial.numeral_height_mm,
        "box_lid": params.box.title_height_mm,
    }
    below = {  # marks cut into the face on the bed
        "template_all": params.templates.guide_groove_depth_mm,
        "stat_dial_card": params.stat_dial.detent_depth_mm,
    }
    if name.startswith("range_ruler"):
        depths[name] = ruler
        heights[name] = params.ruler.numeral_height_mm
    return PartInfo(
        name=name,
        orientation=spec.orientation,
        text_height_mm=heights.get(name),
        engraving_depth_mm=depths.get(name, 0.0),
        engraved_below_mm=below.get(name, 0.0),
    )


def _solid(meshes: dict[str, trimesh.Trimesh], name: str) -> bool:
    """Present and a valid closed solid (mesh.py reports the others)."""
    mesh = meshes.get(name)
    return mesh is not None and meshgeo.is_valid_solid(meshgeo.solid_of(mesh))


def stacks(meshes: dict[str, trimesh.Trimesh]) -> list[StackMeasure]:
    """Each upper token seated on an altitude token, measured once per pair of meshes."""
    if not _solid(meshes, "altitude_token"):
        return []
    lower = meshes["altitude_token"]
    known = _STACKS.setdefault(lower, {})
    measured = []
    for upper in UPPERS:
        if not _solid(meshes, upper):
            continue
        key = id(meshes[upper])
        if key not in known:
            known[key] = clearances.measure_stack(lower, meshes[upper], upper)
        measured.append(known[key])
    return measured


def _valid_meshes(meshes: dict[str, trimesh.Trimesh]) -> dict[str, trimesh.Trimesh]:
    return {name: mesh for name, mesh in meshes.items() if _solid(meshes, name)}


def kit_findings(params: KitParams, meshes: dict[str, trimesh.Trimesh]) -> list[Finding]:
    """Printability of every part given, then the clearances between parts that meet."""
    findings: list[Finding] = []
    for spec in PARTS:
        if spec.name in meshes:
            findings += part_printability(params, spec, meshes[spec.name])
    return findings + clearance_findings(params, meshes)


def part_printability(params: KitParams, spec: PartSpec, mesh: trimesh.Trimesh) -> list[Finding]:
    return printability_findings(spec.name, mesh, params, part_info(params, spec))


def printability_inputs(params: KitParams, spec: PartSpec) -> str:
    """Everything part_printability reads besides the mesh, as text for a cache key."""
    info = part_info(params, spec)
    return f"{info}|{params.checks.model_dump_json()}|{params.text.model_dump_json()}"


def clearance_findings(params: KitParams, meshes: dict[str, trimesh.Trimesh]) -> list[Finding]:
    valid = _valid_meshes(meshes)
    return clearances.all_findings(params, valid, stacks(valid))


def invariants(params: KitParams, meshes: dict[str, trimesh.Trimesh]) -> list[dict]:
    """The rules' invariants measured on the meshes: {name, expected, measured, tolerance,
    ok} each."""
    valid = _valid_meshes(meshes)
    # A broken mesh cannot be measured: say so rather than leave its invariants out.
    unmeasured = [
        rules.invariant(f"{name}: a closed solid to measure", 1, 0, 0)
        for name in sorted(set(meshes) - set(valid))
    ]
    return unmeasured + rules.all_invariants(params, valid, stacks(valid))

"""The checks of a kit as a whole, one path for `build` and `check`: each part's
printability, the checks between parts (the kit's own clearances and the engine's fit
proof of its box) and the rules' invariants.

A build keeps their results in its cache, keyed by every mesh, the parameters and the
checks' code; `check` passes no cache and measures everything again.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Mapping
from typing import Any

import trimesh

from squadron_cad.checks import fits, memo, tin
from squadron_cad.checks.findings import Finding
from squadron_cad.checks.mark_clearance import mark_clearance_findings
from squadron_cad.checks.printability import part_printability, printability_inputs
from squadron_cad.errors import SquadronError
from squadron_cad.fit.layout import box_layouts
from squadron_cad.kit import Design, Kit, Part
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.rendering import CHECKS_VERSION
from squadron_cad.pipeline.report import BuildReport
from squadron_cad.versions import code_version


class NoStore:
    """A record store that keeps nothing: every measure is taken again."""

    def lookup_record(self, _key: str) -> dict[str, Any] | None:
        return None

    def store_record(self, _key: str, _record: dict[str, Any]) -> None:
        return None


def kit_version(kit: Kit) -> str:
    """A digest of the kit package's source (the package of its parameter model): its
    checks' cached results follow its code, an outside kit's as well as ours."""
    module = importlib.import_module(kit.params_model.__module__)
    return code_version(importlib.import_module(module.__package__ or module.__name__))


def kit_checks(
    kit: Kit,
    design: Design,
    meshes: dict[str, trimesh.Trimesh],
    shas: dict[str, str],
    store: memo.RecordStore | None = None,
    built: Design | None = None,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Printability per part (kept by its mesh and the limits it reads), then the kit's
    clearances and the rules' invariants (kept by every mesh and the parameters). `built`
    is the design the box was built from, when it differs (check with another tin)."""
    store = store or NoStore()
    params = design.params
    findings: list[Finding] = []
    for spec in kit.parts:
        if spec.name in meshes:
            findings += _printability(params, spec, meshes[spec.name], shas[spec.name], store)
    checks_version = f"{CHECKS_VERSION}|{kit_version(kit)}"
    digest = hashlib.sha256(f"{checks_version}|{params.model_dump_json()}".encode())
    for name in sorted(shas):
        digest.update(f"|{name}:{shas[name]}".encode())
    key = f"kit-{digest.hexdigest()}"
    cached = store.lookup_record(key)
    if cached is not None:
        return findings + [Finding.from_dict(f) for f in cached["findings"]], cached["invariants"]
    with memo.remembering_in(store, checks_version):
        between = between_parts(kit, design, meshes, built)
        measured = kit.invariants(design, kit_meshes(kit, meshes))
    store.store_record(key, {"findings": [f.as_dict() for f in between], "invariants": measured})
    return findings + between, measured


def between_parts(
    kit: Kit,
    design: Design,
    meshes: Mapping[str, trimesh.Trimesh],
    built: Design | None = None,
) -> list[Finding]:
    """The checks between parts: the kit's own (clearances, play), the fit proof, the
    players' marks clear of the labels, and the box (as `built`, by default `design`)
    against the design's tin."""
    own = kit_meshes(kit, meshes)
    found = kit.checks(design, own) + fit_proof(design, own)
    found += mark_clearance_findings(design, meshes)  # each player's copy too
    return found + tin.tin_proof(built or design, meshes, design.params.tin)


def kit_meshes(kit: Kit, meshes: Mapping[str, trimesh.Trimesh]) -> dict[str, trimesh.Trimesh]:
    """The kit's own parts' meshes: a kit's checks know its part names, not the engine's
    names of each player's copy ("token.p1"), which only the marks' check reads."""
    names = set(kit.part_names)
    return {name: mesh for name, mesh in meshes.items() if name in names}


def fit_proof(design: Design, meshes: Mapping[str, trimesh.Trimesh]) -> list[Finding]:
    """Every stowed piece clear of the box, with its gap in checks.pocket_fit (any kit
    with a box; the meshes of parts not built are skipped)."""
    try:
        layouts = box_layouts(design)
    except SquadronError:  # a tin too small: the build reported it already
        return []
    limits = design.params.checks
    return [
        finding
        for layout in layouts
        for finding in fits.stowed_findings(
            layout, meshes, limits.pocket_fit, limits.fit_tolerance_mm
        )
    ]


def _printability(
    params: KitParamsBase,
    spec: Part,
    mesh: trimesh.Trimesh,
    sha: str,
    store: memo.RecordStore,
) -> list[Finding]:
    inputs = f"{CHECKS_VERSION}|{spec.name}|{sha}|{printability_inputs(params, spec)}"
    key = f"print-{hashlib.sha256(inputs.encode()).hexdigest()}"
    cached = store.lookup_record(key)
    if cached is not None:
        return [Finding.from_dict(f) for f in cached["findings"]]
    found = part_printability(params, spec, mesh)
    store.store_record(key, {"findings": [f.as_dict() for f in found]})
    return found


def attach_findings(
    report: BuildReport, findings: list[Finding], measured: list[dict[str, Any]]
) -> None:
    """Each finding to its part (or the kit's), each failed invariant as a kit finding."""
    by_part = {result.spec.name: result for result in report.parts}
    for finding in findings:
        target = by_part.get(finding.part)
        (target.findings if target else report.kit_findings).append(finding)
    report.kit_findings += [invariant_finding(item) for item in measured if not item["ok"]]
    report.extras["invariants"] = measured


def invariant_finding(item: dict[str, Any]) -> Finding:
    return Finding(
        "invariants",
        item["name"],
        item["measured"],
        item["expected"],
        "error",
        f"the rules' invariant {item['name']!r} does not hold: measured {item['measured']}, "
        f"expected {item['expected']} +/- {item['tolerance']}",
    )

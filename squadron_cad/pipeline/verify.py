"""`squadron-cad check`: re-check a built kit without building it.

Every file against its SHA-256 in the manifest, each mesh, then the kit checks (the same
path as a build's, measured again): printability, the checks between parts, the rules'
invariants.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trimesh

from squadron_cad.checks.findings import Finding
from squadron_cad.checks.mesh import load_mesh, mesh_findings
from squadron_cad.outputs import manifest
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.kit_checks import invariant_finding, kit_checks
from squadron_cad.pipeline.refusals import integrity_findings
from squadron_cad.pipeline.rendering import bed_of, replaced_files
from squadron_cad.render.cache import file_sha256


@dataclass
class CheckReport:
    parts: list[str]
    findings: list[Finding]
    invariants: list[dict[str, Any]]
    params_from: str  # "the kit's manifest" or "the parameters given"

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]


def check_outputs(out_dir: Path, params: KitParamsBase | None = None) -> CheckReport:
    """Re-check the kit in out_dir. Params default to the kit's own (its manifest); given
    ones ask "would it pass under these"."""
    data = manifest.require_kit(out_dir)
    findings = integrity_findings(out_dir, data)
    kit = manifest.kit_of_manifest(data)  # the game it was built for (the command says so)
    used = params if params is not None else kit.params_model.model_validate(data["params"])
    stl_dir = out_dir / "stl"
    present = [spec for spec in kit.parts if (stl_dir / spec.file_name).is_file()]
    meshes: dict[str, trimesh.Trimesh] = {}
    shas: dict[str, str] = {}
    for spec in present:
        path = stl_dir / spec.file_name
        try:
            mesh = load_mesh(path)
        except Exception as error:  # any unreadable file is the finding, not a crash
            findings.append(
                Finding(spec.name, "readable", "unreadable", "a binary STL", "error", str(error))
            )
            continue
        meshes[spec.name], shas[spec.name] = mesh, file_sha256(path)
        findings += mesh_findings(spec.name, mesh, spec.bodies, bed_of(used), replaced_files(spec))
    for spec in present:  # each player's copy, for the marks' checks
        for variant in spec.player_variants(used.players):
            path = stl_dir / variant.file_name
            if path.is_file():
                meshes[variant.name], shas[variant.name] = load_mesh(path), file_sha256(path)
    built = None if params is None else kit.design(manifest.kit_params(data))
    between, measured = kit_checks(kit, kit.design(used), meshes, shas, built=built)
    findings += between
    findings += [invariant_finding(item) for item in measured if not item["ok"]]
    source = "the kit's manifest" if params is None else "the parameters given"
    return CheckReport([spec.name for spec in present], findings, measured, source)

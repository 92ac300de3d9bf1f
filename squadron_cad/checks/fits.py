"""Fits measured between meshes, for every kit: a gap against its parameter and fit range,
an overlap, and the fit proof of a packed box (each stowed piece clears its pocket).

The box proof reads only the layout (where each piece lies) and the rendered meshes: the
pieces that touch (a stack, a card with its clips) are placed together, then their
overlap with the box and the gap beside them are measured with manifold3d.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import manifold3d
import numpy as np
import trimesh
from shapely.geometry import MultiPolygon

from squadron_cad.checks import memo, meshgeo
from squadron_cad.checks.findings import Finding, Severity, verdict
from squadron_cad.params import FitRange

if TYPE_CHECKING:  # a layout is read, never made, here
    from squadron_cad.fit.layout import Layout, Placement

OVERLAP_EPS_MM3 = 1e-3  # booleans of touching faces leave slivers below this
GAP_SHARES = (0.25, 0.5, 0.75)  # heights, as shares of the items' height, gaps are taken at


@dataclass(frozen=True)
class FitLimits:
    """What a kit's checks allow of one kind of fit: the range a measured gap must fall in
    (named by its key under `checks.`) and how closely it must match its parameter."""

    fit: FitRange
    key: str
    tolerance_mm: float

    def finding(self, name: str, check: str, gap: float, designed: float) -> Finding:
        return fit_finding(name, check, gap, designed, self.fit, self.key, self.tolerance_mm)


def fit_finding(
    name: str, check: str, gap: float, designed: float, fit: FitRange, key: str, tol: float
) -> Finding:
    """A measured gap against its parameter (within tolerance) and its fit range."""
    expected = (
        f"{designed:.3f} mm per side (+/- {tol:g}), within {fit.min_mm:g}-{fit.max_mm:g} "
        f"(checks.{key})"
    )
    measured = round(gap, 4)
    if gap <= 0:
        return Finding(name, check, measured, expected, "error", f"no clearance: {gap:.3f} mm")
    if abs(gap - designed) > tol:
        message = f"measured {gap:.3f} mm where the parameters give {designed:.3f} mm"
        return Finding(name, check, measured, expected, "error", message)
    if not fit.min_mm - tol <= gap <= fit.max_mm + tol:
        message = f"{gap:.3f} mm per side is outside checks.{key} ({fit.min_mm:g}-{fit.max_mm:g})"
        return Finding(name, check, measured, expected, "warning", message)
    return Finding(name, check, measured, expected, "ok")


def overlap_finding(name: str, check: str, volume: float, what: str) -> Finding:
    ok = volume <= OVERLAP_EPS_MM3
    message = "" if ok else f"{what} overlap by {volume:.3f} mm3"
    return Finding(name, check, round(volume, 4), "0 mm3 overlap", verdict(ok), message)


def signed_gap(a: MultiPolygon, b: MultiPolygon) -> float:
    """Distance between two regions; negative (about the overlap's width) if they overlap."""
    both = a.intersection(b)
    if both.area > 1e-6:
        return -2 * both.area / both.length
    return float(a.distance(b))


def side_gap(outer: manifold3d.Manifold, item: manifold3d.Manifold) -> float:
    """Least horizontal gap between the items and the walls around them, at three heights."""
    low, high = meshgeo.bounds_of(item)
    gaps = []
    for share in GAP_SHARES:
        z = float(low[2] + (high[2] - low[2]) * share)
        gaps.append(signed_gap(meshgeo.section(item, z), meshgeo.section(outer, z)))
    return min(gaps)


def stowed_findings(
    layout: Layout,
    meshes: Mapping[str, trimesh.Trimesh],
    pocket_fit: FitRange,
    tolerance: float,
) -> list[Finding]:
    """The fit proof: every group of stowed pieces clear of the box, with its gap beside it
    in checks.pocket_fit. Pieces whose part was not built (or is bought) are skipped."""
    if layout.box_part not in meshes:
        return []
    box_solid = functools.cache(lambda: meshgeo.solid_of(meshes[layout.box_part]))
    box_digest = memo.mesh_digest(meshes[layout.box_part])
    own = {layout.box_part, layout.lid_part}
    pieces = [p for p in layout.placements if p.part in meshes and p.part not in own]
    digests = {part: memo.mesh_digest(meshes[part]) for part in {p.part for p in pieces}}
    found = []
    for group in stowed_groups(pieces):
        # Kept between builds by what it measures: a changed part re-checks its group only.
        inputs = json.dumps(
            [
                [layout.box_part, box_digest, pocket_fit.min_mm, pocket_fit.max_mm, tolerance],
                *([p.name, p.part, digests[p.part], _matrix(p)] for p in group),
            ]
        )

        def measure(group: list[Placement] = group) -> dict[str, Any]:
            return _group_finding(
                layout.box_part, box_solid(), group, meshes, pocket_fit, tolerance
            ).as_dict()

        value = memo.remember("pocket", inputs, measure)
        found.append(Finding.from_dict(value))
    return found


def _matrix(placed: Placement) -> list[list[float]]:
    return np.asarray(placed.transform, dtype=float).tolist()


def stowed_groups(pieces: list[Placement]) -> list[list[Placement]]:
    """Pieces that touch (a stack, a card with its clips) are stowed and checked together."""
    groups: list[list[Placement]] = []
    for piece in pieces:
        touching = [g for g in groups if any(_touch(piece.bounds, o.bounds) for o in g)]
        merged = [piece] + [o for g in touching for o in g]
        groups = [g for g in groups if g not in touching] + [merged]
    return groups


def _touch(a: Any, b: Any, slack: float = 0.01) -> bool:
    low_a, high_a = np.asarray(a[0], dtype=float), np.asarray(a[1], dtype=float)
    low_b, high_b = np.asarray(b[0], dtype=float), np.asarray(b[1], dtype=float)
    return bool(np.all(low_a <= high_b + slack) and np.all(low_b <= high_a + slack))


def _group_finding(
    box_part: str,
    box_solid: manifold3d.Manifold,
    group: list[Placement],
    meshes: Mapping[str, trimesh.Trimesh],
    fit: FitRange,
    tolerance: float,
) -> Finding:
    solids = [
        meshgeo.placed(meshgeo.solid_of(meshes[p.part]), np.asarray(p.transform, dtype=float))
        for p in group
    ]
    items = manifold3d.Manifold.batch_boolean(solids, manifold3d.OpType.Add)
    name = f"{box_part}+{_group_name(group)}"
    volume = meshgeo.overlap_volume(box_solid, items)
    if volume > OVERLAP_EPS_MM3:
        return overlap_finding(name, "in_pocket", volume, "the pieces and the box")
    gap = side_gap(box_solid, items)
    severity: Severity = "ok"
    if gap < fit.min_mm - tolerance:
        severity = "error"
    elif gap > fit.max_mm + tolerance:
        severity = "warning"  # loose, not broken: the pieces rattle
    expected = f"{fit.min_mm:g}-{fit.max_mm:g} mm per side (checks.pocket_fit)"
    message = ""
    if severity != "ok":
        side = "under" if severity == "error" else "over"
        outcome = "too tight to lift out" if severity == "error" else "loose: they rattle"
        message = f"{gap:.3f} mm beside them in their pocket, {side} {expected}: {outcome}"
    return Finding(name, "pocket_gap", round(gap, 4), expected, severity, message)


def _group_name(group: list[Placement]) -> str:
    names = sorted(p.name for p in group)
    return names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"

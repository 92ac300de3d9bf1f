"""The box against its tin, measured on the meshes, for every kit with a box: the closed
box (its lid on, where the layout puts it) must go into the tin's inside, either way round:
its outline no longer nor wider, its corners inside the tin's rounded ones, its height
under the tin's lid. `check` with another tin's sizes asks it of that tin.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import trimesh
from scipy.spatial import ConvexHull, QhullError

from squadron_cad.checks.findings import Finding, verdict
from squadron_cad.errors import SquadronError
from squadron_cad.geometry.outlines import clearance_inside
from squadron_cad.params import TinParams

if TYPE_CHECKING:  # a layout is read, never made, here
    from squadron_cad.fit.layout import Layout
    from squadron_cad.kit import Design

EPS_MM = 1e-3  # float noise in a mesh's coordinates


def closed_box(layout: Layout, meshes: Mapping[str, trimesh.Trimesh]) -> np.ndarray:
    """The vertices of the box with its lid closed on it (when the lid is built), N x 3."""
    points = [np.asarray(meshes[layout.box_part].vertices, dtype=float)]
    lid = layout.lid_part
    if lid is not None and lid in meshes:
        pose = np.asarray(layout.lid_pose, dtype=float)
        points.append(trimesh.transform_points(np.asarray(meshes[lid].vertices), pose))
    return np.vstack(points)


def _outline(points: np.ndarray) -> np.ndarray:
    """The footprint's convex hull, centred on the origin (the box stands centred in a tin)."""
    xy = points[:, :2]
    with contextlib.suppress(QhullError, ValueError):  # degenerate: its points are the outline
        xy = xy[ConvexHull(xy).vertices]
    return xy - (xy.min(axis=0) + xy.max(axis=0)) / 2


def box_in_tin_findings(
    layout: Layout, meshes: Mapping[str, trimesh.Trimesh], tin: TinParams | None
) -> list[Finding]:
    """Outline, corners and depth of the closed box against the tin (none: no finding)."""
    if tin is None or layout.box_part not in meshes:
        return []
    points = closed_box(layout, meshes)
    outline = _outline(points)
    length, width, radius = tin.inner_length_mm, tin.inner_width_mm, tin.corner_radius_mm
    # Either way round: a quarter turn swaps x and y (the tin is symmetric in both).
    turns = (outline, outline[:, ::-1])
    clearances = [float(clearance_inside(turn, length, width, radius)) for turn in turns]
    turned = turns[int(np.argmax(clearances))]
    size = np.ptp(turned, axis=0)
    name = layout.box_part
    return [
        _outline_finding(name, (float(size[0]), float(size[1])), tin),
        _corner_finding(name, max(clearances), (float(size[0]), float(size[1])), tin),
        _depth_finding(name, float(np.ptp(points[:, 2])), tin),
    ]


def _outline_finding(name: str, size: tuple[float, float], tin: TinParams) -> Finding:
    long, wide = size[0] - tin.inner_length_mm, size[1] - tin.inner_width_mm
    expected = (
        f"at most {tin.inner_length_mm:g} x {tin.inner_width_mm:g} mm "
        "(tin.inner_length_mm, tin.inner_width_mm)"
    )
    ok = long <= EPS_MM and wide <= EPS_MM
    over = [
        f"{amount:.2f} mm too {word}"
        for amount, word in ((long, "long"), (wide, "wide"))
        if amount > EPS_MM
    ]
    message = (
        ""
        if ok
        else (
            f"the box is {size[0]:.1f} x {size[1]:.1f} mm, the tin {tin.inner_length_mm:g} x "
            f"{tin.inner_width_mm:g} mm inside: {' and '.join(over)} for the tin"
        )
    )
    measured = [round(size[0], 3), round(size[1], 3)]
    return Finding(name, "in_tin_outline", measured, expected, verdict(ok), message)


def _corner_finding(
    name: str, clearance: float, size: tuple[float, float], tin: TinParams
) -> Finding:
    expected = f">= 0 mm inside the tin's corners (tin.corner_radius_mm {tin.corner_radius_mm:g})"
    fits_straight = size[0] <= tin.inner_length_mm + EPS_MM
    fits_straight = fits_straight and size[1] <= tin.inner_width_mm + EPS_MM
    if not fits_straight:  # the outline finding says it: the corners are not the question
        message = "not measured: the box's outline is too big for the tin"
        return Finding(name, "in_tin_corners", None, expected, "info", message)
    ok = clearance >= -EPS_MM
    message = (
        ""
        if ok
        else (
            f"the box's corners stand {-clearance:.2f} mm outside the tin's rounded corners "
            f"(tin.corner_radius_mm {tin.corner_radius_mm:g})"
        )
    )
    return Finding(name, "in_tin_corners", round(clearance, 4), expected, verdict(ok), message)


def _depth_finding(name: str, height: float, tin: TinParams) -> Finding:
    ok = height <= tin.inner_depth_mm + EPS_MM
    expected = f"at most {tin.inner_depth_mm:g} mm (tin.inner_depth_mm)"
    message = (
        ""
        if ok
        else (
            f"the closed box is {height:.2f} mm tall, {height - tin.inner_depth_mm:.2f} mm "
            f"more than the tin's {tin.inner_depth_mm:g} mm inside"
        )
    )
    return Finding(name, "in_tin_depth", round(height, 3), expected, verdict(ok), message)


def tin_proof(
    built: Design, meshes: Mapping[str, trimesh.Trimesh], tin: TinParams | None
) -> list[Finding]:
    """The box as `built` (its layout places the lid) against `tin`; nothing when the
    design has no box or no layout (a tin too small is refused where it is solved)."""
    try:
        layout = built.layout
    except SquadronError:
        return []
    return [] if layout is None else box_in_tin_findings(layout, meshes, tin)

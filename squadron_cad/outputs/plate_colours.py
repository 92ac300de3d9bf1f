"""A plate's colours: the player's (or the shared neutral), the marks' contrasting one, the
split of a piece into body and marks, and the height of the one filament change that
colours a part right, by which the plates are grouped (squadron_cad.outputs.plates)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import manifold3d
import trimesh

from squadron_cad.checks import meshgeo
from squadron_cad.kit import Part, kit_of
from squadron_cad.outputs.models import PlateColours, PlatePart
from squadron_cad.params import KitParamsBase, hex_channels

NEUTRAL = "#9e9e9e"  # shared parts: no player's colour
PALETTE = ("#c0392b", "#2471a3", "#229954", "#d68910", "#7d3c98", "#17a589")


def plate_material(plate: str, params: KitParamsBase) -> tuple[str, str]:
    """The material name and display colour of the pieces on a plate."""
    index = plate_player(plate, params)
    if index is None:
        return "shared", NEUTRAL
    colours = params.player_colours
    colour = colours[index].hex if colours else PALETTE[index % len(PALETTE)]
    label = f" ({colours[index].name})" if colours else ""
    return f"player {index + 1}{label}", colour


DARK_MARKS, LIGHT_MARKS = "#1c1c1c", "#f2f2f2"
SPLIT_ABOVE_MM = 0.001  # marks and body part this far above the marks' base


def _luminance(colour_hex: str) -> float:
    """WCAG relative luminance of an sRGB colour."""
    linear = []
    for value in hex_channels(colour_hex):
        channel = value / 255
        linear.append(channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4)
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def accent_material(colour_hex: str) -> tuple[str, str]:
    """The marks' material and colour: dark or light, whichever contrasts more (WCAG)."""
    body = _luminance(colour_hex)
    on_dark = (_luminance(LIGHT_MARKS) + 0.05) / (body + 0.05)
    on_light = (body + 0.05) / (_luminance(DARK_MARKS) + 0.05)
    return ("marks (dark)", DARK_MARKS) if on_light >= on_dark else ("marks (light)", LIGHT_MARKS)


def split_at(
    mesh: trimesh.Trimesh, z: float, within: list[list[tuple[float, float]]] | None = None
) -> tuple[trimesh.Trimesh, trimesh.Trimesh | None]:
    """The piece's body and its raised marks (above z, and inside the outlines `within`
    when given), each closed.

    The cut runs SPLIT_ABOVE_MM over z: a face lying in the cutting plane (the top the
    marks stand on) would stay in both halves as a sheet of no thickness."""
    cut = z + SPLIT_ABOVE_MM
    if not mesh.bounds[0][2] < cut < mesh.bounds[1][2]:
        return mesh, None
    solid = meshgeo.to_manifold(mesh)
    if within is None:
        body = solid.trim_by_plane((0.0, 0.0, -1.0), -cut)
        marks = solid.trim_by_plane((0.0, 0.0, 1.0), cut)
    else:
        height = float(mesh.bounds[1][2]) - cut + 1.0
        rings = manifold3d.CrossSection(within, manifold3d.FillRule.NonZero)  # either winding
        region = rings.extrude(height).translate((0.0, 0.0, cut))
        marks = solid ^ region
        body = solid - marks
    if marks.is_empty():
        return mesh, None
    return meshgeo.to_trimesh(body), meshgeo.to_trimesh(marks)


def change_height(z: float, params: KitParamsBase) -> float:
    """The top of the first layer the slicer cuts above z (a colour change goes before
    it): layers end at first_layer_height_mm + k * layer_height_mm and each is cut at its
    middle, so the first cut above the marks' base (z + SPLIT_ABOVE_MM) holds marks only
    and every cut below it body only."""
    first, layer = params.slicer.first_layer_height_mm, params.slicer.layer_height_mm
    top, height = first, first
    while top - height / 2 <= z + SPLIT_ABOVE_MM + 1e-9:
        top, height = top + layer, layer
    return round(top, 4)


def layer_number(top: float, params: KitParamsBase) -> int:
    """The 1-based number of the layer ending at `top`."""
    first, layer = params.slicer.first_layer_height_mm, params.slicer.layer_height_mm
    return 1 + round((top - first) / layer)


def one_change_height(part: Part, params: KitParamsBase) -> float | None:
    """Where one filament change gives the part its body colour below and its marks'
    colour above (None: no marks, or marks in a recess of the top, which share their
    layers with the body around them: only a second extruder colours those apart)."""
    z = _accent(part, params)
    if z is None or part.accent_within is not None:
        return None
    return change_height(z, params)


def plate_summary(
    name: str, parts: Iterable[str], change: float | None, params: KitParamsBase
) -> dict[str, Any]:
    """The plate's colours for the BOM: per part, the body's and the marks' colours and
    the layer from which a single extruder prints the marks' colour; the plate's one
    change (every part on it shares it: plates are grouped by it)."""
    material, colour = plate_material(name, params)
    kit = kit_of(params)
    counts = Counter(parts)
    rows = []
    for part_name in sorted(counts):
        part = kit.part(part_name)
        z = _accent(part, params)
        marks, marks_hex = accent_material(colour) if z is not None else (None, None)
        row = PlatePart(
            part=part_name,
            count=counts[part_name],
            material=material,
            colour_hex=colour,
            marks_material=marks,
            marks_hex=marks_hex,
            marks_from_mm=None if z is None else round(z, 4),
            change_at_mm=one_change_height(part, params),
            one_change=z is None or part.accent_within is None,
        )
        rows.append(row)
    marks_material, marks_hex = accent_material(colour) if change is not None else (None, None)
    summary = PlateColours(
        plate=name,
        file=f"plates/{name}.3mf",
        pieces=sum(counts.values()),
        material=material,
        colour=colour,
        filament_change_mm=change,
        change_layer=None if change is None else layer_number(change, params),
        marks_material=marks_material,
        marks_hex=marks_hex,
        parts=rows,
    )
    return summary.model_dump()


def _halves(
    part: Part, mesh: trimesh.Trimesh, params: KitParamsBase, player: int | None
) -> tuple[trimesh.Trimesh, trimesh.Trimesh | None]:
    """A part's body and marks, as modelled (its accent z and outlines are in that frame)."""
    z = _accent(part, params)
    if z is None:
        return mesh, None
    within = None
    if part.accent_within is not None:
        within = part.accent_within(params, player or 0)
    return split_at(mesh, z, within)


def _accent(part: Part, params: KitParamsBase) -> float | None:
    return None if part.accent_from_mm is None else float(part.accent_from_mm(params))


def plate_player(plate: str, params: KitParamsBase) -> int | None:
    """The player (0-based) whose plate this is, or None for the shared ones."""
    for index in range(params.players):
        if plate.split("_")[0] == f"player{index + 1}":
            return index
    return None


def by_change(
    wanted: list[tuple[str, int]], params: KitParamsBase
) -> dict[float | None, list[tuple[str, int]]]:
    """A plate group's parts by the height of their one filament change (None: one
    colour), so one change on each plate colours every part on it right."""
    kit = kit_of(params)
    groups: dict[float | None, list[tuple[str, int]]] = {}
    for name, count in wanted:
        groups.setdefault(one_change_height(kit.part(name), params), []).append((name, count))
    return dict(sorted(groups.items(), key=lambda item: (item[0] is not None, item[0] or 0.0)))


def change_plate_name(group: str, change: float | None) -> str:
    """player1_red (one colour) or player1_red_marks_3.8mm (a change before that layer)."""
    return group if change is None else f"{group}_marks_{change:g}mm"

"""Print plates: the kit's parts arranged on the configured bed, one plate per player.

Each part keeps its print orientation (as rendered: flat face down at z = 0) and may only
turn 90 degrees about z. Footprints are bounding rectangles packed by a skyline
bottom-left packer, `plates.spacing_mm` apart and `plates.margin_mm` inside the bed's edges.
A plate is a 3MF (written with lib3mf, in the player's colour) with one named object per
printed piece ("token", "token 3"), so a slicer lists them separately, and
an STL of the same arrangement for slicers without 3MF. A part too long for the bed square
on lies turned as the bed model lays it (squadron_cad.bed); an optional part that fits at
no turn is left off (its mesh check warns and names what to print instead).
"""

from __future__ import annotations

import base64
import contextlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import trimesh
from trimesh.exchange.stl import export_stl

from squadron_cad import bed as bed_model
from squadron_cad.checks import memo
from squadron_cad.errors import InputError
from squadron_cad.kit import Part, kit_of, variant_name
from squadron_cad.outputs.plate_colours import (
    _halves,
    accent_material,
    by_change,
    change_plate_name,
    plate_material,
    plate_player,
    plate_summary,
)
from squadron_cad.outputs.threemf import ColourChange, PlateObject, plate_bytes
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_bytes

SHARED_PLATE = "shared"
PLATE_SUFFIXES = (".3mf", ".stl")


@dataclass(frozen=True)
class Piece:
    """One printed copy of a part."""

    part: str
    copy: int
    mesh: trimesh.Trimesh
    copies: int = 1  # of this part on its plate group
    source: trimesh.Trimesh | None = None  # as modelled (the marks' split is made there)
    source_key: str = ""  # its STL's stem

    @property
    def label(self) -> str:
        """The object's name in the slicer: the part, and its copy when there are several
        ("token", "token 2")."""
        return self.part if self.copies == 1 else f"{self.part} {self.copy}"

    @property
    def footprint(self) -> tuple[float, float]:
        low, high = self.mesh.bounds
        return float(high[0] - low[0]), float(high[1] - low[1])


@dataclass(frozen=True)
class Spot:
    """Where a footprint's lower-left corner goes, and whether it turned 90 degrees."""

    x: float
    y: float
    turned: bool


@dataclass
class Skyline:
    """Bottom-left skyline packing of rectangles into a width x height bin."""

    width: float
    height: float
    segments: list[list[float]] = field(default_factory=list)  # [x, top, length]

    def __post_init__(self) -> None:
        self.segments = [[0.0, 0.0, self.width]]

    def spots(self, w: float, h: float) -> list[tuple[float, float]]:
        """Every place a w x h rectangle can rest on the skyline, left ends on segments."""
        found = []
        for x, _top, _length in self.segments:
            if x + w > self.width + 1e-9:
                break
            y = self._top_over(x, w)
            if y + h <= self.height + 1e-9:
                found.append((x, y))
        return found

    def _top_over(self, x: float, w: float) -> float:
        return max(s[1] for s in self.segments if s[0] < x + w - 1e-9 and s[0] + s[2] > x + 1e-9)

    def place(self, x: float, y: float, w: float, h: float) -> None:
        kept: list[list[float]] = []
        for sx, top, length in self.segments:
            end = sx + length
            if sx < x:
                kept.append([sx, top, min(end, x) - sx])
            if end > x + w:
                start = max(sx, x + w)
                kept.append([start, top, end - start])
        kept.append([x, y + h, w])
        kept.sort()
        self.segments = _merged([s for s in kept if s[2] > 1e-9])


def _merged(segments: list[list[float]]) -> list[list[float]]:
    merged: list[list[float]] = []
    for segment in segments:
        if merged and abs(merged[-1][1] - segment[1]) < 1e-9:
            merged[-1][2] += segment[2]
        else:
            merged.append(list(segment))
    return merged


@dataclass
class Plate:
    name: str
    packer: Skyline
    placed: list[tuple[Piece, Spot]] = field(default_factory=list)
    used: tuple[float, float] = (0.0, 0.0)  # extent of the placed footprints
    change_at_mm: float | None = None  # the plate's one filament change (None: one colour)

    def try_add(self, piece: Piece, spacing: float) -> bool:
        """Place the piece where the arrangement stays most compact; False if it cannot."""
        w, h = piece.footprint
        options = [
            (self._score(x, y, fw, fh), x, y, turned, fw, fh)
            for turned, (fw, fh) in ((False, (w, h)), (True, (h, w)))
            for x, y in self.packer.spots(fw + spacing, fh + spacing)
        ]
        if not options:
            return False
        _score, x, y, turned, fw, fh = min(options)
        self.packer.place(x, y, fw + spacing, fh + spacing)
        self.placed.append((piece, Spot(x, y, turned)))
        self.used = (max(self.used[0], x + fw), max(self.used[1], y + fh))
        return True

    def _score(self, x: float, y: float, w: float, h: float) -> tuple[float, float, float]:
        # Grow the cluster in the bed's proportions (a compact block in the middle of the
        # bed prints better than a strip along it), then prefer low, then left.
        used_x, used_y = max(self.used[0], x + w), max(self.used[1], y + h)
        return max(used_x / self.packer.width, used_y / self.packer.height), y + h, x


@dataclass(frozen=True)
class Bed:
    length_mm: float
    width_mm: float
    margin_mm: float
    spacing_mm: float

    @classmethod
    def of(cls, params: KitParamsBase) -> Bed:
        printer, plates = params.printer, params.plates
        return cls(printer.bed_length_mm, printer.bed_width_mm, plates.margin_mm, plates.spacing_mm)

    @property
    def usable(self) -> tuple[float, float]:
        return self.length_mm - 2 * self.margin_mm, self.width_mm - 2 * self.margin_mm

    def new_plate(self, name: str, change_at_mm: float | None = None) -> Plate:
        # Every footprint is grown by the spacing, so the bin grows by it too.
        length, width = self.usable
        bin_ = Skyline(length + self.spacing_mm, width + self.spacing_mm)
        return Plate(name, bin_, change_at_mm=change_at_mm)


def player_plate_name(index: int, params: KitParamsBase) -> str:
    """player1_red: the player's number and colour name."""
    colours = params.player_colours
    if colours:
        return f"player{index + 1}_{colours[index].name.lower()}"
    return f"player{index + 1}"


def plate_groups(params: KitParamsBase, counts: dict[str, int]) -> dict[str, list[tuple[str, int]]]:
    """Which parts (and how many) go on each player's plate and on the shared plate."""
    players = params.players
    groups: dict[str, list[tuple[str, int]]] = {
        player_plate_name(i, params): [] for i in range(players)
    }
    shared: list[tuple[str, int]] = []
    kit = kit_of(params)
    for name, count in counts.items():
        if count <= 0:
            continue  # alternatives and unused parts are not printed
        if kit.part(name).group == "player":
            share, extra = divmod(count, players)
            for i, plate in enumerate(groups):
                if share + (i < extra):
                    groups[plate].append((name, share + (i < extra)))
        else:
            shared.append((name, count))
    groups[SHARED_PLATE] = shared
    return {name: wanted for name, wanted in groups.items() if wanted}


def load_part(out_dir: Path, name: str) -> trimesh.Trimesh:
    path = out_dir / "stl" / f"{name}.stl"
    if not path.is_file():
        raise InputError(f"plates: {path} is missing; build the part first")
    # Merged vertices: a slicer reads unshared ones as loose triangles, not a solid.
    mesh = trimesh.load_mesh(path, file_type="stl", process=True)
    mesh.apply_translation([0.0, 0.0, -float(mesh.bounds[0][2])])  # print orientation: on z = 0
    return mesh


def lay_on_bed(
    meshes: dict[str, trimesh.Trimesh], bed: Bed, optional: Iterable[str] = ()
) -> dict[str, trimesh.Trimesh]:
    """Each part turned as the bed model lays it (a long part on the diagonal). An optional
    part that fits at no turn is left out (its mesh check warns and names what to print
    instead); a required one is refused, naming the parts and the bed keys."""
    length, width = bed.usable
    model = bed_model.Bed(length, width, math.inf)
    laid, too_big = {}, []
    for name, mesh in meshes.items():
        placed = bed_model.place_mesh(mesh, model)
        if not placed.fits and name in optional:
            continue
        if not placed.fits:
            w, h = (float(v) for v in mesh.extents[:2])
            too_big.append(f"{name} ({w:.1f} x {h:.1f} mm)")
            continue
        laid[name] = mesh
        if placed.turn_deg not in (0.0, 90.0):
            turned = mesh.copy()
            turn = trimesh.transformations.rotation_matrix(math.radians(placed.turn_deg), [0, 0, 1])
            turned.apply_transform(turn)
            laid[name] = turned
    if too_big:
        raise InputError(
            f"plates: {', '.join(too_big)} does not fit the print bed at any turn: "
            f"printer.bed_length_mm {bed.length_mm:g} x printer.bed_width_mm {bed.width_mm:g} "
            f"less plates.margin_mm {bed.margin_mm:g} on each side leaves {length:g} x {width:g} mm"
        )
    return laid


def arrange(
    name: str, pieces: list[Piece], bed: Bed, change_at_mm: float | None = None
) -> list[Plate]:
    """Pack pieces, biggest first, onto as few plates as needed."""
    order = sorted(pieces, key=lambda p: (-max(p.footprint), -min(p.footprint), p.label))
    plates: list[Plate] = []
    for piece in order:
        if not any(plate.try_add(piece, bed.spacing_mm) for plate in plates):
            plate_name = name if not plates else f"{name}_{len(plates) + 1}"
            plate = bed.new_plate(plate_name, change_at_mm)
            if not plate.try_add(piece, bed.spacing_mm):
                raise InputError(f"plates: {piece.part} does not fit an empty plate")
            plates.append(plate)
    return plates


def placed_mesh(piece: Piece, spot: Spot, offset: tuple[float, float]) -> trimesh.Trimesh:
    """The piece turned (about z only) and moved so its footprint starts at the spot."""
    mesh = piece.mesh.copy()
    if spot.turned:
        mesh.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [0, 0, 1]))
    low = mesh.bounds[0]
    mesh.apply_translation([spot.x + offset[0] - low[0], spot.y + offset[1] - low[1], -low[2]])
    return mesh


def centring_offset(plate: Plate, bed: Bed) -> tuple[float, float]:
    """Shift the arrangement so it sits in the middle of the bed."""
    used_x, used_y = plate.used
    return (bed.length_mm - used_x) / 2, (bed.width_mm - used_y) / 2


def plate_meshes(plate: Plate, bed: Bed) -> dict[str, trimesh.Trimesh]:
    offset = centring_offset(plate, bed)
    ordered = sorted(plate.placed, key=lambda item: (item[0].part, item[0].copy))
    return {piece.label: placed_mesh(piece, spot, offset) for piece, spot in ordered}


def rigid_transform(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The 4x4 turn and shift taking source points onto target points (same order)."""
    a, b = source.mean(axis=0), target.mean(axis=0)
    u, _s, vt = np.linalg.svd((source - a).T @ (target - b))
    turn = vt.T @ u.T
    if np.linalg.det(turn) < 0:
        vt[-1] *= -1
        turn = vt.T @ u.T
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = turn, b - turn @ a
    return matrix


def write_plate(folder: Path, plate: Plate, bed: Bed, params: KitParamsBase) -> list[Path]:
    meshes = plate_meshes(plate, bed)
    material, colour = plate_material(plate.name, params)
    marks_material, marks_colour = accent_material(colour)
    kit = kit_of(params)
    pieces = {piece.label: piece for piece, _spot in plate.placed}
    player = plate_player(plate.name, params)
    halves: dict[str, tuple[trimesh.Trimesh, trimesh.Trimesh | None]] = {}
    objects = []
    for label, mesh in meshes.items():
        piece = pieces[label]
        if piece.source is not None and piece.source_key not in halves:
            halves[piece.source_key] = _halves(kit.part(piece.part), piece.source, params, player)
        body, marks = mesh, None
        if piece.source is not None and halves[piece.source_key][1] is not None:
            # Split as modelled, then moved as the piece was: the same turn and shift.
            whole, top = halves[piece.source_key]
            move = rigid_transform(np.asarray(piece.source.vertices), np.asarray(mesh.vertices))
            body, marks = whole.copy(), top.copy() if top is not None else None
            body.apply_transform(move)
            if marks is not None:
                marks.apply_transform(move)
        objects.append(
            PlateObject(label, body, material, colour, marks, marks_material, marks_colour)
        )
    three_mf = folder / f"{plate.name}.3mf"
    stl = folder / f"{plate.name}.stl"
    change = None
    if plate.change_at_mm is not None:
        change = ColourChange(plate.change_at_mm, marks_colour)
    write_bytes(three_mf, _kept_plate_bytes(plate.name, objects, change))
    write_bytes(stl, export_stl(trimesh.util.concatenate(list(meshes.values()))))
    return [three_mf, stl]


def _kept_plate_bytes(
    plate: str, objects: list[PlateObject], change: ColourChange | None = None
) -> bytes:
    """The 3MF, kept between builds by everything written into it (checks.memo): a change
    to one plate's pieces writes that plate's 3MF only."""
    described = [plate, str(change)]
    for item in objects:
        accent = memo.mesh_digest(item.accent) if item.accent is not None else ""
        described += [item.name, memo.mesh_digest(item.mesh), item.material, item.colour_hex]
        described += [accent, item.accent_material, item.accent_hex]
    value = memo.remember(
        "plate3mf",
        "|".join(described),
        lambda: base64.b64encode(plate_bytes(plate, objects, change)).decode(),
    )
    return base64.b64decode(value)


def part_file(part: Part, player: int | None) -> str:
    """The STL stem a plate uses: the player's own copy of a part that differs by player."""
    if part.player_builder is not None and player is not None:
        return variant_name(part.name, player)
    return part.name


def write_plates(
    out_dir: Path,
    params: KitParamsBase,
    counts: dict[str, int],
    summaries: list[dict[str, Any]] | None = None,
) -> list[Path]:
    """out/plates/<plate>.3mf and .stl for every player and the shared parts (each
    player's plate with that player's copies); `summaries` gets each plate's colours."""
    bed = Bed.of(params)
    kit = kit_of(params)
    groups = plate_groups(params, counts)
    optional = [part.name for part in kit.parts if part.replaces]
    loaded: dict[str, trimesh.Trimesh] = {}
    plates = []
    for name, wanted in groups.items():
        player = plate_player(name, params)
        files = {part: part_file(kit.part(part), player) for part, _count in wanted}
        for stem in sorted(set(files.values()) - set(loaded)):
            loaded[stem] = load_part(out_dir, stem)
        meshes = lay_on_bed({part: loaded[stem] for part, stem in files.items()}, bed, optional)
        sources = {part: (loaded[stem], stem) for part, stem in files.items()}
        for change, parts in by_change(wanted, params).items():
            pieces = _pieces(parts, meshes, sources)
            if pieces:
                plates += arrange(change_plate_name(name, change), pieces, bed, change)
    folder = out_dir / "plates"
    written = [path for plate in plates for path in write_plate(folder, plate, bed, params)]
    if summaries is not None:
        summaries += [
            plate_summary(
                plate.name, [piece.part for piece, _ in plate.placed], plate.change_at_mm, params
            )
            for plate in plates
        ]
    _remove_old(folder, written)
    return written


def _pieces(
    wanted: Iterable[tuple[str, int]],
    meshes: dict[str, trimesh.Trimesh],
    sources: dict[str, tuple[trimesh.Trimesh, str]] | None = None,
) -> list[Piece]:
    sources = sources or {}
    return [
        Piece(name, copy + 1, meshes[name], count, *sources.get(name, (None, "")))
        for name, count in wanted
        if name in meshes  # an optional part off the bed is left out (its check warns)
        for copy in range(count)
    ]


def _remove_old(folder: Path, written: list[Path]) -> None:
    """Plates of an earlier build (more players, another bed) would mislead: remove them."""
    keep = set(written)
    for path in folder.iterdir():
        if path.suffix in PLATE_SUFFIXES and path not in keep:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

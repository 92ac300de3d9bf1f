"""The tolerance test print: each fit a kit declares, at a ladder of clearances, on one
small plate; then the maker's choice written as a parameters file.

`build_plate` renders every coupon a kit declares (squadron_cad.kit.Coupon: a mate
printed once, and one labelled step per clearance on the ladder), measures each step's
clearance on the meshes placed on their mate, lays them out in rows (one fit a row,
mate first, steps in order), writes the plate (3MF and STL), a picture of it, the
slicer's time and filament and a README with the steps, atomically into one folder.
Choosing ("fit=value" picks into the kit's own clearance keys) is in `tolerance_choice`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import trimesh
from trimesh.exchange.stl import export_stl

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.checks.meshgeo import top_face_z
from squadron_cad.checks.slicer import SlicerError, SliceResult, SliceSettings, slice_part
from squadron_cad.emit import emit
from squadron_cad.errors import InputError, ToolError
from squadron_cad.kit import Coupon, Part, kit_of
from squadron_cad.outfolder import (
    no_trace_if_unfinished,
    prepare_cache,
    safe_output_folder,
    staged,
)
from squadron_cad.outputs.previews import PictureSettings, Placed, View, snapshot
from squadron_cad.outputs.threemf import PlateObject, plate_bytes
from squadron_cad.params import COLOUR_NAMES, KitParamsBase
from squadron_cad.render.atomic import write_bytes, write_json, write_text
from squadron_cad.render.backends import RenderJob, select_backend
from squadron_cad.render.cache import RenderCache, source_key
from squadron_cad.render.openscad import RenderResult
from squadron_cad.resolve import resolve
from squadron_cad.tolerance_choice import (
    CHOICE_HEADER,
    DEFAULT_LADDER,
    NO_LAYERS,
    Ladder,
    Layers,
    choice_values,
    coupons_of,
    left_off,
    parse_picks,
    with_value,
    write_choice,
)
from squadron_cad.tolerance_report import (
    PICTURE,
    PLATE,
    README,
    PlateReport,
    readme,
    report_lines,
)

__all__ = [  # the choosing half lives in tolerance_choice, the words in tolerance_report
    "CHOICE_HEADER",
    "DEFAULT_LADDER",
    "NO_LAYERS",
    "Ladder",
    "PlateReport",
    "build_plate",
    "choice_values",
    "left_off",
    "parse_picks",
    "with_value",
    "write_choice",
]
KIND = "tolerance"  # the output folder's kind (squadron_cad.outfolder)
COUPON_FOLDER = "coupons"
REPORT = "tolerance.json"
MATE = "mate"
MATE_COLOUR = COLOUR_NAMES["silver"]
STEP_COLOUR = COLOUR_NAMES["orange"]
CAMERA = "0,0,0,25,0,0,0"  # from the front and above, numerals upright
PICTURE_PX = (1800, 900)  # the plate is wide: a wide picture keeps the coupons large,
# and their 3 mm numerals (".25") some 20 px tall
DOCS_OUT = Path("out") / "docs-tolerance"  # where `make docs` builds the README's picture
DOCS_PICTURE = "tolerance_plate.png"  # under docs/
ROW_GAP_MM = 4.0
FINAL = "final"  # the quality the coupons are always cut at
RENDER_TIMEOUT_S = 300.0  # a coupon renders in seconds
Progress = Callable[[str, str], None]


# ---- building the plate ----------------------------------------------------------------------


@dataclass(frozen=True)
class CouponPiece:
    """One rendered piece: a fit's mate (value None) or one of its steps."""

    coupon: Coupon
    value: float | None
    design: Any

    @property
    def name(self) -> str:
        tail = MATE if self.value is None else f"{self.value:.2f}".replace(".", "p")
        return f"{self.coupon.fit}_{tail}"

    @property
    def label(self) -> str:
        return f"{self.coupon.fit} {MATE if self.value is None else f'{self.value:.2f}'}"

    def part(self) -> Part:
        coupon, value = self.coupon, self.value
        if value is None:
            builder = coupon.mate
        else:

            def builder(design: Any) -> Any:
                return coupon.step(design, value)

        return Part(
            name=self.name, title=f"{coupon.title}: {self.label}", builder=builder, group="shared"
        )


def pieces_of(
    params: KitParamsBase, ladder: Ladder, skip: dict[str, dict[float, str]] | None = None
) -> list[CouponPiece]:
    """Every mate and step (but those in `skip`), at final quality whatever the parameters
    ask: coarse draft curves would change the clearances the coupons are there to show."""
    kit = kit_of(params)
    params = params.model_copy(update={"quality": FINAL})
    pieces = []
    for coupon in coupons_of(kit):
        values = [v for v in ladder.values if v not in (skip or {}).get(coupon.fit, {})]
        if values:  # a fit with no step left prints no mate either
            pieces.append(CouponPiece(coupon, None, kit.design(params)))
        for value in values:
            varied = with_value(params, coupon.key, value)
            pieces.append(CouponPiece(coupon, value, kit.design(varied)))
    return pieces


def render_pieces(
    pieces: list[CouponPiece],
    folder: Path,
    cache: RenderCache,
    credit: str,
    jobs: int,
    progress: Progress,
) -> dict[str, Path]:
    """Each piece's STL in folder (cached by its source), by name, rendered by the backend
    that renders the kit's parts (auto: Manifold in a batch process or two, CGAL for a
    piece it gets wrong), so that a coupon is the mesh its part is printed from."""
    backend = select_backend()
    folder.mkdir(parents=True, exist_ok=True)
    targets = {piece.name: folder / f"{piece.name}.stl" for piece in pieces}
    keys: dict[str, str] = {}
    todo: list[RenderJob] = []
    for piece in pieces:
        source = emit(piece.part(), piece.design, credit)
        key = source_key(source.text, backend)
        entry = cache.lookup(key)
        if entry is not None:
            write_bytes(targets[piece.name], entry.stl.read_bytes())
            progress(piece.name, "cached")
            continue
        keys[piece.name] = key
        todo.append(RenderJob(piece.name, source.text, targets[piece.name]))
    for job in todo:
        progress(job.part, "rendering")

    def landed(result: RenderResult) -> None:
        cache.store(keys[result.part], targets[result.part], {"part": result.part})
        progress(result.part, "done")

    backend.render(todo, RENDER_TIMEOUT_S, max(1, jobs), landed)
    return targets


def measure_steps(pieces: list[CouponPiece], stls: dict[str, Path]) -> list[dict[str, Any]]:
    """Each step's clearance measured on its mesh placed on its mate's."""
    mates = {p.coupon.fit: load_mesh(stls[p.name]) for p in pieces if p.value is None}
    rows = []
    for piece in pieces:
        if piece.value is None:
            continue
        step = load_mesh(stls[piece.name])
        measured = float(piece.coupon.measure(piece.design, step, mates[piece.coupon.fit]))
        if not math.isfinite(measured):
            raise ToolError(f"coupon {piece.label}: its clearance cannot be measured on its mesh")
        rows.append(
            {
                "fit": piece.coupon.fit,
                "key": piece.coupon.key,
                "label_mm": piece.value,
                "measured_mm": round(float(measured), 4),
                "stl": f"{COUPON_FOLDER}/{piece.name}.stl",
            }
        )
    return rows


def layout(
    pieces: list[CouponPiece], stls: dict[str, Path], params: KitParamsBase
) -> dict[str, np.ndarray]:
    """Where each piece goes (a translation from its frame to the bed): one row per fit,
    mate first, centred on the bed."""
    spacing = float(params.plates.spacing_mm)
    spots: dict[str, np.ndarray] = {}
    y = 0.0
    width = 0.0
    fits = list(dict.fromkeys(p.coupon.fit for p in pieces))
    for fit in fits:
        row = [p for p in pieces if p.coupon.fit == fit]
        bounds = [load_mesh(stls[p.name]).bounds for p in row]
        depth = max(float(b[1][1] - b[0][1]) for b in bounds)
        x = 0.0
        for piece, (low, high) in zip(row, bounds, strict=True):
            spots[piece.name] = np.array([x - low[0], y - low[1], -low[2]])
            x += float(high[0] - low[0]) + spacing
        width = max(width, x - spacing)
        y += depth + ROW_GAP_MM
    centre = np.array(
        [
            (params.printer.bed_length_mm - width) / 2,
            (params.printer.bed_width_mm - (y - ROW_GAP_MM)) / 2,
            0,
        ]
    )
    return {name: spot + centre for name, spot in spots.items()}


def _placed(stl: Path, shift: np.ndarray) -> trimesh.Trimesh:
    mesh = trimesh.load_mesh(stl, file_type="stl", process=True)
    mesh.apply_translation(shift)
    return mesh


def write_plate(
    folder: Path, pieces: list[CouponPiece], stls: dict[str, Path], spots: dict[str, np.ndarray]
) -> tuple[Path, Path]:
    objects = [
        PlateObject(
            piece.label,
            _placed(stls[piece.name], spots[piece.name]),
            "mates" if piece.value is None else "steps",
            MATE_COLOUR if piece.value is None else STEP_COLOUR,
        )
        for piece in pieces
    ]
    three_mf, stl = folder / f"{PLATE}.3mf", folder / f"{PLATE}.stl"
    write_bytes(three_mf, plate_bytes(PLATE, objects))
    whole = trimesh.util.concatenate([item.mesh for item in objects])
    write_bytes(stl, export_stl(whole))
    return three_mf, stl


def draw_plate(
    target: Path,
    pieces: list[CouponPiece],
    stls: dict[str, Path],
    spots: dict[str, np.ndarray],
) -> None:
    snapshot(plate_view(pieces, stls, spots), target, PictureSettings(*PICTURE_PX))


def plate_view(
    pieces: list[CouponPiece], stls: dict[str, Path], spots: dict[str, np.ndarray]
) -> View:
    """The plate as drawn: mates grey, steps orange with their numerals darker."""
    items = tuple(
        Placed(
            stls[piece.name],
            MATE_COLOUR if piece.value is None else STEP_COLOUR,
            tuple(tuple(float(v) for v in row) for row in _translation(spots[piece.name])),
            None if piece.value is None else label_base(stls[piece.name]),
        )
        for piece in pieces
    )
    return View(PLATE, items, "the tolerance test plate", CAMERA)


def label_base(stl: Path) -> float:
    """Where a step's raised numerals stand (its largest upward face): the picture draws
    them darker from there, so ".25" reads against the coupon's own colour."""
    return top_face_z(load_mesh(stl))


def _translation(shift: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = shift
    return matrix


def slice_plate(stl: Path, params: KitParamsBase) -> tuple[SliceResult | None, str]:
    settings = SliceSettings.from_params(params)
    try:
        result = slice_part(stl, settings, name=PLATE)
    except SlicerError as error:
        return None, f"not sliced: {error}"
    if result is None:
        return None, "not sliced: PrusaSlicer is not installed"
    return (
        result,
        f"PrusaSlicer, {settings.layer_height_mm:g} mm layers, {settings.infill_percent} % infill",
    )


def build_plate(
    params: KitParamsBase,
    out: Path,
    ladder: Ladder,
    *,
    jobs: int = 2,
    picture: bool = True,
    progress: Progress | None = None,
    layers: Layers | None = None,
    cache_dir: Path | None = None,
    started: Callable[[int], None] | None = None,
) -> PlateReport:
    """Render, measure, lay out, slice and describe the plate; swapped into out whole.
    With the layers params were resolved from, a step the kit would refuse if chosen
    (with them) is left off and reported. The renders are cached in out/.cache, or in
    cache_dir (a shared cache, as `build --cache-dir`); `started` hears how many pieces
    the progress counts to."""
    out = safe_output_folder(out, KIND)
    kit = kit_of(params)
    refused = left_off(params, ladder, layers) if layers is not None else {}
    if all(len(refused.get(c.fit, {})) == len(ladder.values) for c in coupons_of(kit)):
        raise InputError(f"the kit refuses every step of the ladder {ladder}: {_first(refused)}")
    pieces = pieces_of(params, ladder, refused)
    tell = progress or _quiet
    if started is not None:
        started(len(pieces))
    with no_trace_if_unfinished(out), staged(out, KIND) as staging:
        # made once the folder is known to be ours: a refusal leaves it as it was
        cache = RenderCache(prepare_cache(out, cache_dir))
        folder = staging.path
        stls = render_pieces(pieces, folder / COUPON_FOLDER, cache, kit.credit, jobs, tell)
        measures = measure_steps(pieces, stls)
        spots = layout(pieces, stls, params)
        _three_mf, plate_stl = write_plate(folder, pieces, stls, spots)
        if picture:
            tell("picture", "running")
            draw_plate(folder / PICTURE, pieces, stls, spots)
        tell("slice", "running")
        result, note = slice_plate(plate_stl, params)
        report = PlateReport(out, measures, result, note, [], picture, refused)
        write_json(folder / REPORT, {"kit": kit.name, "ladder": str(ladder), **report.as_dict()})
        write_text(folder / README, readme(kit, ladder, report))
        report.files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        staging.commit()
    return report


def build_lines(
    params: KitParamsBase,
    out: Path,
    ladder: Ladder,
    jobs: int,
    picture: bool = True,
    layers: Layers = NO_LAYERS,
    *,
    progress: Progress | None = None,
    started: Callable[[int], None] | None = None,
    cache_dir: Path | None = None,
) -> list[str]:
    """Build the plate (build_plate); what to tell the maker, a line per fit, then the
    plate."""
    report = build_plate(
        params, out, ladder, jobs=jobs, picture=picture, layers=layers, progress=progress,
        started=started, cache_dir=cache_dir,
    )  # fmt: skip
    return report_lines(report, out, picture)


def _first(refused: dict[str, dict[float, str]]) -> str:
    return next(iter(next(iter(refused.values())).values()))


def refresh_docs_picture(docs_dir: Path, jobs: int = 2) -> Path:
    """Build the default kit's plate (cached renders) and copy its picture into docs_dir,
    for the README's "Tolerance test print" section (`make docs`)."""
    build_plate(resolve(), DOCS_OUT, Ladder.parse(DEFAULT_LADDER), jobs=jobs)
    target = docs_dir / DOCS_PICTURE
    write_bytes(target, (DOCS_OUT / PICTURE).read_bytes())
    return target


def _quiet(_name: str, _status: str) -> None:
    """Progress is optional."""


if __name__ == "__main__":  # python -m squadron_cad.tolerance docs
    import sys

    print(refresh_docs_picture(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")))

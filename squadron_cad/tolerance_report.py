"""What the tolerance plate tells the maker: its report (tolerance.json), its README (the
steps, the measures) and the lines the command prints. The plate itself is made in
`squadron_cad.tolerance`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from squadron_cad.checks.slicer import SliceResult
from squadron_cad.kit import Kit
from squadron_cad.tolerance_choice import Ladder, coupons_of

PLATE = "tolerance_plate"
PICTURE = "tolerance_plate.png"
README = "README.md"
LIMIT_MINUTES = 15.0  # the plate must stay a quick print (issue #18)
LIMIT_GRAMS = 5.0


@dataclass
class PlateReport:
    out: Path
    measures: list[dict[str, Any]]
    slice: SliceResult | None
    slice_note: str
    files: list[str]
    picture: bool = True
    left_off: dict[str, dict[float, str]] = field(default_factory=dict)  # fit -> mm -> why

    @property
    def minutes(self) -> float | None:
        return None if self.slice is None else self.slice.print_seconds / 60

    def as_dict(self) -> dict[str, Any]:
        return {
            "coupons": self.measures,
            "slicer": None if self.slice is None else self.slice.as_dict(),
            "slicer_note": self.slice_note,
            "limits": {"minutes": LIMIT_MINUTES, "grams": LIMIT_GRAMS},
            "left_off": [
                {"fit": fit, "label_mm": value, "refused": why}
                for fit, steps in self.left_off.items()
                for value, why in steps.items()
            ],
        }


def readme(kit: Kit, ladder: Ladder, report: PlateReport) -> str:
    coupons = coupons_of(kit)
    lines = [
        f"# {kit.title}: tolerance test print",
        "",
        f"One plate, `{PLATE}.3mf` (or `.stl`), with one row per fit: the mate (grey in the",
        "picture) and one coupon per clearance, labelled in mm in raised numerals.",
        "",
    ]
    if report.picture:
        lines += [f"![the plate]({PICTURE})", ""]
    if report.slice is not None:
        lines += [
            f"Print time {report.slice.print_seconds / 60:.1f} min, filament "
            f"{report.slice.filament_g:.2f} g ({report.slice_note}).",
            "",
        ]
    else:
        lines += [f"Print time and filament: {report.slice_note}.", ""]
    lines += ["## Steps", "", "1. Print the plate in the filament and on the printer you will use."]
    steps = ", ".join(f"{value:.2f}" for value in ladder.values)
    lines += [f"2. The clearances, in mm: {steps}. For each fit:", ""]
    for coupon in coupons:
        lines.append(f"   - **{coupon.fit}**, {coupon.title} (`{coupon.key}`): {coupon.how}.")
    for fit, refused in report.left_off.items():
        values = ", ".join(f"{value:.2f}" for value in refused)
        lines.append(f"   - not printed for **{fit}**: {values} (the kit refuses them with your")
        lines.append(f"     parameters: {next(iter(refused.values()))})")
    printed = {
        c.fit: [v for v in ladder.values if v not in report.left_off.get(c.fit, {})]
        for c in coupons
    }
    example = " ".join(
        f"{fit}={values[len(values) // 2]:.2f}" for fit, values in printed.items() if values
    )
    lines += [
        "",
        f"3. Write your choice: `squadron-cad tolerance --choose {example} --out-params fits.yaml`",
        "4. Build with it: `squadron-cad build --params fits.yaml`",
        "",
        "## Measured on the meshes",
        "",
        "| fit | label (mm) | measured (mm) |",
        "|---|---|---|",
    ]
    lines += [
        f"| {m['fit']} | {m['label_mm']:.2f} | {m['measured_mm']:.3f} |" for m in report.measures
    ]
    return "\n".join(lines) + "\n"


def report_lines(report: PlateReport, out: Path, picture: bool) -> list[str]:
    """What to tell the maker, a line per fit, then the plate."""
    lines = [_left_off_line(fit, steps) for fit, steps in report.left_off.items()]
    for fit in dict.fromkeys(m["fit"] for m in report.measures):
        rows = [m for m in report.measures if m["fit"] == fit]
        worst = max(abs(m["measured_mm"] - m["label_mm"]) for m in rows)
        lines.append(
            f"{fit}: {len(rows)} coupons {rows[0]['label_mm']:.2f}-{rows[-1]['label_mm']:.2f} mm, "
            f"measured within {worst:.3f} mm of their labels ({rows[0]['key']})"
        )
    minutes = report.minutes
    if report.slice is None or minutes is None:  # minutes: known when it was sliced
        lines.append(f"plate: {report.slice_note}")
    else:
        over = minutes > LIMIT_MINUTES or report.slice.filament_g > LIMIT_GRAMS
        lines.append(
            f"plate: {minutes:.1f} min and {report.slice.filament_g:.2f} g "
            f"({report.slice_note}){'; over the 15 min / 5 g aim' if over else ''}"
        )
    drawn = f"{PICTURE}, " if picture else ""
    lines.append(f"wrote {out}: {PLATE}.3mf (and .stl), {drawn}{README}; read the README")
    return lines


def _left_off_line(fit: str, steps: dict[float, str]) -> str:
    values = ", ".join(f"{value:.2f}" for value in steps)
    return (
        f"{fit}: {values} mm left off the plate: the kit refuses them: {next(iter(steps.values()))}"
    )

"""The tolerance test print's ladder and the maker's choice (`tolerance --choose`): "fit=mm"
picks turned into the kit's own clearance keys, written as a parameters file that the kit
accepts and that builds alone; and which steps of a ladder the kit would refuse, so the
plate (`squadron_cad.tolerance`) prints only steps that can be chosen. No meshes here.
"""

from __future__ import annotations

import math
import re
import shlex
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from squadron_cad.errors import InputError
from squadron_cad.kit import Coupon, Kit, default_kit, kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.render.atomic import write_text
from squadron_cad.resolve import parse_override, resolve

DEFAULT_LADDER = "0.10:0.40:0.05"
CHOICE_HEADER = "# Clearances chosen from the "  # --choose overwrites only its own files
MAX_STEPS = 12  # a longer ladder no longer makes a small plate
_LADDER = re.compile(r"^\s*([\d.]+)\s*:\s*([\d.]+)\s*:\s*([\d.]+)\s*$")


# ---- the ladder ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ladder:
    """Clearances from low to high in steps, in mm (each a coupon)."""

    low_mm: float
    high_mm: float
    step_mm: float

    @classmethod
    def parse(cls, text: str) -> Ladder:
        match = _LADDER.match(text)
        if not match:
            raise InputError(f"--ladder {text!r}: give FROM:TO:STEP in mm, e.g. {DEFAULT_LADDER}")
        low, high, step = (float(group) for group in match.groups())
        if not 0 < low < high <= 2 or step <= 0:
            raise InputError(f"--ladder {text!r}: needs 0 < FROM < TO <= 2 and STEP > 0 (mm)")
        steps = (high - low) / step
        if abs(steps - round(steps)) > 1e-6 or round(steps) + 1 > MAX_STEPS:
            raise InputError(
                f"--ladder {text!r}: TO - FROM must be a whole number of STEPs, at most "
                f"{MAX_STEPS} values (the plate stays small)"
            )
        return cls(low, high, step)

    @property
    def values(self) -> tuple[float, ...]:
        count = round((self.high_mm - self.low_mm) / self.step_mm) + 1
        return tuple(round(self.low_mm + i * self.step_mm, 4) for i in range(count))

    def holds(self, value: float) -> bool:
        return any(abs(value - step) < 1e-6 for step in self.values)

    def __str__(self) -> str:
        return f"{self.low_mm:g}:{self.high_mm:g}:{self.step_mm:g}"


def coupons_of(kit: Kit) -> tuple[Coupon, ...]:
    if not kit.coupons:
        raise InputError(f"the {kit.name} kit declares no fits: it has no tolerance test print")
    return kit.coupons


def with_value(params: Any, key: str, value: float) -> Any:
    """The parameters with one dotted key set (not validated: a coupon may go below the
    kit's fit range, which is what the test print is for)."""
    head, _, rest = key.partition(".")
    if not rest:
        return params.model_copy(update={head: value})
    return params.model_copy(update={head: with_value(getattr(params, head), rest, value)})


def _value_at(params: Any, key: str) -> Any:
    for name in key.split("."):
        params = getattr(params, name)
    return params


# ---- choosing --------------------------------------------------------------------------------


def parse_picks(picks: Iterable[str], coupons: tuple[Coupon, ...], ladder: Ladder) -> dict:
    """ "fit=mm" words as {fit: value}; unknown fits and values off the ladder refused."""
    fits = {coupon.fit: coupon for coupon in coupons}
    chosen: dict[str, float] = {}
    for pick in picks:
        name, sep, text = pick.partition("=")
        name = name.strip()
        if not sep or name not in fits:
            known = ", ".join(fits)
            raise InputError(f"--choose {pick!r}: give FIT=MM with FIT one of: {known}")
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"--choose {pick!r}: {text!r} is not a number of mm") from None
        if not math.isfinite(value) or not ladder.holds(value):
            steps = ", ".join(f"{v:.2f}" for v in ladder.values)
            raise InputError(f"--choose {pick!r}: {name} must be a step of the ladder: {steps}")
        if name in chosen:
            raise InputError(
                f"--choose {pick!r}: the fit {name} is named twice ({name}={chosen[name]:g} "
                f"too); choose each fit once"
            )
        chosen[name] = round(value, 4)
    if not chosen:
        example = f"{coupons[0].fit}={ladder.values[len(ladder.values) // 2]:.2f}"
        raise InputError(f"--choose: name at least one fit, e.g. --choose {example}")
    return chosen


def choice_values(
    params: KitParamsBase, coupons: tuple[Coupon, ...], chosen: dict[str, float]
) -> dict[str, Any]:
    """The nested parameters that set each chosen fit, and widen its checked range so the
    value is accepted (a printer that needs 0.15 where the kit's range starts at 0.2)."""
    values: dict[str, Any] = {}
    for coupon in coupons:
        if coupon.fit not in chosen:
            continue
        value = chosen[coupon.fit]
        _set(values, coupon.key, value)
        if coupon.fit_range:
            current = _value_at(params, coupon.fit_range)
            per_side = round(value / coupon.sides, 4)
            if per_side < current.min_mm:
                _set(values, f"{coupon.fit_range}.min_mm", per_side)
            if per_side > current.max_mm:
                _set(values, f"{coupon.fit_range}.max_mm", per_side)
    return values


def _set(tree: dict[str, Any], key: str, value: Any) -> None:
    *sections, last = key.split(".")
    for section in sections:
        tree = tree.setdefault(section, {})
    tree[last] = value


def _written_by_choose(path: Path) -> bool:
    """Whether path is a file an earlier --choose wrote (its first line says so)."""
    try:
        with path.open(encoding="utf-8") as stream:
            return stream.readline().startswith(CHOICE_HEADER)
    except (OSError, UnicodeDecodeError):
        return False


Layers = tuple[Iterable[Path], Iterable[str], str | None]  # --params files, --set, --tin
NO_LAYERS: Layers = ((), (), None)


def choice_yaml(kit: Kit, chosen: dict[str, float], values: dict[str, Any], build: str) -> str:
    picks = " ".join(f"{fit}={value:.2f}" for fit, value in chosen.items())
    header = (
        f"{CHOICE_HEADER}{kit.title} tolerance test print:\n"
        f"#   squadron-cad tolerance --choose {picks}\n"
        f"# Build with them: {build}\n"
    )
    return header + yaml.safe_dump(values, sort_keys=False)


def file_values(
    params: KitParamsBase,
    coupons: tuple[Coupon, ...],
    chosen: dict[str, float],
    overrides: Iterable[str],
) -> dict[str, Any]:
    """What the chosen file sets: the run's --set values (the plate was printed with
    them, and the file must build the same kit alone), then the chosen fits."""
    values: dict[str, Any] = {}
    for text in overrides:
        _deep_merge(values, parse_override(text))
    _deep_merge(values, choice_values(params, coupons, chosen))
    return values


def _deep_merge(tree: dict[str, Any], layer: dict[str, Any]) -> None:
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(tree.get(key), dict):
            _deep_merge(tree[key], value)
        else:
            tree[key] = value


def build_command(kit: Kit, layers: Layers, target: Path) -> str:
    """The build the written file is for: the same kit, tin and parameter files, then it."""
    files, _overrides, tin = layers
    words = ["squadron-cad", "build"]
    if kit.name != default_kit().name:
        words += ["--kit", kit.name]
    if tin:
        words += ["--tin", tin]
    for path in [*files, target]:
        words += ["--params", str(path)]
    return shlex.join(words)


def refusal(kit: Kit, text: str, name: str, layers: Layers) -> str | None:
    """Why the kit refuses this file on top of the layers' files and tin (None: it builds).
    The --set values are in the file itself."""
    files, _overrides, tin = layers
    with tempfile.TemporaryDirectory(prefix="squadron-choice-") as folder:
        trial = Path(folder) / name
        trial.write_text(text, encoding="utf-8")
        try:
            resolve([*files, trial], [], tin, kit)
        except InputError as error:
            return str(error)
    return None


def write_choice(
    params: KitParamsBase,
    kit: Kit,
    ladder: Ladder,
    picks: Iterable[str],
    target: Path,
    layers: Layers = NO_LAYERS,
) -> list[str]:
    """Write the picks as a parameters file, once the kit accepts it on top of the same
    --params files and --tin (the run's --set values are written into it); the lines to
    show."""
    coupons = coupons_of(kit)
    chosen = parse_picks(picks, coupons, ladder)
    files, overrides, tin = layers
    layers = (list(files), list(overrides), tin)
    values = file_values(params, coupons, chosen, layers[1])
    build = build_command(kit, layers, target)
    text = choice_yaml(kit, chosen, values, build)
    if target.is_dir():
        raise InputError(f"--out-params {target}: is a folder; give a file name, e.g. fits.yaml")
    if not target.parent.is_dir():
        raise InputError(f"--out-params {target}: the folder {target.parent} does not exist")
    if target.exists() and not _written_by_choose(target):
        raise InputError(
            f"--out-params {target}: holds a file `tolerance --choose` did not write; give a "
            "new file name, e.g. --out-params fits-chosen.yaml"
        )
    refused = refusal(kit, text, target.name, layers)
    if refused is not None:
        raise InputError(f"--choose: the kit refuses the chosen values: {refused}")
    write_text(target, text)
    keys = ", ".join(f"{c.key} = {chosen[c.fit]:g}" for c in coupons if c.fit in chosen)
    kept = " and your --set values" if layers[1] else ""
    return [f"wrote {target}: {keys}{kept}", f"build with them: {build}"]


def left_off(params: KitParamsBase, ladder: Ladder, layers: Layers) -> dict[str, dict[float, str]]:
    """The steps the kit would refuse if chosen, by fit and value, with its reason: they
    are not printed (every coupon on the plate can be chosen and its file builds)."""
    kit = kit_of(params)
    coupons = coupons_of(kit)
    files, overrides, tin = layers
    layers = (list(files), list(overrides), tin)
    refused: dict[str, dict[float, str]] = {}
    for coupon in coupons:
        for value in ladder.values:
            chosen = {coupon.fit: value}
            values = file_values(params, coupons, chosen, layers[1])
            reason = refusal(kit, yaml.safe_dump(values), "fits.yaml", layers)
            if reason is not None:
                refused.setdefault(coupon.fit, {})[value] = reason
    return refused

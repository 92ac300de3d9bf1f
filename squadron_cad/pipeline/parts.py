"""Which parts a build goes through: those asked for, the rest of a kit kept by --only, and
each player's own copies."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from squadron_cad.errors import InputError
from squadron_cad.kit import Kit, Part
from squadron_cad.outfolder import safe_output_folder
from squadron_cad.outputs import manifest
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.context import BuildContext
from squadron_cad.pipeline.report import BuildReport


def select_parts(kit: Kit, only: Iterable[str]) -> list[Part]:
    wanted = list(dict.fromkeys(only))
    for name in wanted:
        if name not in kit.part_names:
            close = difflib.get_close_matches(name, kit.part_names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InputError(
                f"--only {name}: no such part{hint}; see `squadron-cad list` for the parts"
            )
    return [spec for spec in kit.parts if not wanted or spec.name in wanted]


def with_player_variants(specs: list[Part], params: KitParamsBase) -> list[Part]:
    """The parts and, after them, each player's copy of those that differ by player and
    are printed (a part a kit counts 0 of, for these parameters, needs no copies)."""
    return specs + [
        variant
        for spec in specs
        if spec.count(params) > 0
        for variant in spec.player_variants(params.players)
    ]


def planned_parts(
    context: BuildContext, specs: list[Part], kept: dict[str, dict[str, Any]]
) -> list[Part]:
    """Every part a build goes through (each ends as rendered or unchanged): the selected
    ones, or all when --only keeps the rest of a kit, then each player's own copies."""
    wanted = specs if not kept else list(context.kit.parts)
    return with_player_variants(wanted, context.params)


def progress_total(context: BuildContext) -> int:
    """How many parts the progress display counts to (the kit's parts and players' copies)."""
    specs = select_parts(context.kit, context.options.only)
    existing = manifest.read_kit(safe_output_folder(context.options.out_dir, "kit"))
    return len(planned_parts(context, specs, kept_parts(context, existing)))


def split_variants(report: BuildReport) -> None:
    """Players' copies leave the part list (one row per part in the manifest and BOM)."""
    report.variants = [r for r in report.parts if r.spec.variant_of is not None]
    report.parts = [r for r in report.parts if r.spec.variant_of is None]


def kept_parts(context: BuildContext, existing: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """--only inside a built kit: the manifest entries of the parts not rebuilt."""
    options = context.options
    if not options.only or existing is None:
        return {}
    differs = manifest.params_difference(existing, context.params)
    if differs:
        raise InputError(
            f"--only: the kit in {options.out_dir} was built with other parameters ({differs}); "
            "build the whole kit (unchanged parts come from the cache) or use another --out"
        )
    return {
        entry["name"]: entry
        for entry in existing["parts"]
        if entry["name"] not in options.only and entry["name"] in context.kit.part_names
    }

"""Commands that read a kit without building it: its box layout, parts, parameters, the
installed kits and a kit's tin presets."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TYPE_CHECKING, TypedDict

import typer

from squadron_cad import console
from squadron_cad.cli.app import command
from squadron_cad.cli.options import (
    DebugOpt,
    Given,
    JsonOpt,
    KitOpt,
    ParamsOpt,
    QuietOpt,
    SetOpt,
    TinOpt,
)
from squadron_cad.errors import InputError

if TYPE_CHECKING:
    from squadron_cad.kit import Group

# The kits, the resolver and the fit are imported in the commands that use them:
# `squadron-cad serve` listens before it loads them (its page loads them meanwhile).


@command()
def fit(
    _ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Choose the box layout for the tin and print it, without rendering anything.

    Prints the box's size, where each group of pieces goes, the spare room in every
    direction and what limits it. A tin that is too small is refused (exit 2) naming the
    piece that does not fit and by how many mm.

    Example: squadron-cad fit --tin altoids --set players=1
    """
    from squadron_cad.fit.prerender import refuse_before_rendering
    from squadron_cad.kit import kit_of

    opts = Given.of(params, overrides, tin=tin, kit=kit, quiet=quiet)
    chosen = opts.parameters()
    game = kit_of(chosen)
    design = game.design(chosen)
    layout = design.layout
    if layout is None:
        raise InputError(f"the {game.name} kit has no box to fit")
    refuse_before_rendering(design)  # every rule the build applies before it renders
    if as_json:
        pieces = Counter(placed.part for placed in layout.placements)
        console.emit_json({**layout.summary(), "pieces": dict(pieces)})
        return
    lines = game.fit_lines(design) if game.fit_lines else [layout.describe()]
    for line in lines:
        opts.show(line, markup=False)


class PartRow(TypedDict):
    """One part as `list` shows it (and prints it with --json)."""

    part: str
    file: str
    count: int
    group: Group
    orientation: str
    alternative_to: str | None
    replaces: list[str]


@command(name="list")
def list_parts(
    _ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """List the parts, their files and how many to print for the configured players."""
    from squadron_cad.kit import kit_of

    opts = Given.of(params, overrides, tin=tin, kit=kit, quiet=quiet)
    resolved = opts.parameters()
    rows: list[PartRow] = [
        {
            "part": spec.name,
            "file": spec.file_name,
            "count": spec.count(resolved),
            "group": spec.group,
            "orientation": spec.orientation,
            "alternative_to": spec.alternative_to,
            "replaces": list(spec.replaces),
        }
        for spec in kit_of(resolved).parts
    ]
    if as_json:
        console.emit_json(rows)
        return
    opts.show(f"{kit_of(resolved).title} parts for {resolved.players} player(s):")
    for row in rows:
        note = f"  (optional, instead of {', '.join(row['replaces'])})" if row["replaces"] else ""
        opts.show(f"  {row['count']:>3} x {row['file']:<24} {row['orientation']}{note}")


@command(name="params")
def show_params(
    _ctx: typer.Context,
    params: ParamsOpt = None,
    overrides: SetOpt = None,
    tin: TinOpt = None,
    kit: KitOpt = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """Print the resolved parameters (defaults, tin, files and overrides applied)."""
    import yaml

    data = Given.of(params, overrides, tin=tin, kit=kit).parameters().model_dump(mode="json")
    if as_json:
        console.emit_json(data)
    elif not quiet:
        sys.stdout.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


@command()
def kits(
    _ctx: typer.Context,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """List the installed kits (use one with --kit NAME)."""
    from squadron_cad.kit import installed_kits

    found = installed_kits()
    if as_json:
        console.emit_json(
            [
                {"name": k.name, "title": k.title, "parts": len(k.parts), "credit": k.credit}
                for k in found.values()
            ]
        )
        return
    opts = Given(quiet=quiet)
    for game in found.values():
        opts.show(f"  {game.name:<18} {game.title}: {game.notes}", markup=False)
        opts.show(f"  {'':<18} {len(game.parts)} parts; {game.credit}", markup=False)


@command()
def tins(
    _ctx: typer.Context,
    kit: KitOpt = None,
    quiet: QuietOpt = False,
    _debug: DebugOpt = False,
) -> None:
    """List the kit's tin presets (use one with --tin NAME)."""
    from squadron_cad.kit import default_kit, load_kit
    from squadron_cad.resolve import available_tins, resolve

    game = load_kit(kit) if kit else default_kit()
    opts = Given(quiet=quiet)
    for name in available_tins(game):
        t = resolve(tin=name, kit=game).tin
        approx = " (approximate)" if t.approximate else ""
        opts.show(
            f"  {name:<16} {t.inner_length_mm:g} x {t.inner_width_mm:g} x {t.inner_depth_mm:g} mm,"
            f" corner r{t.corner_radius_mm:g}{approx}"
        )

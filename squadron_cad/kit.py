"""What a kit declares, and how the engine finds the installed kits.

The engine knows no game: it iterates over a kit's `Part`s and calls the functions the
`Kit` gives it. A kit is a Python package that builds one `Kit` object and names it in
the `squadron_cad.kits` entry-point group of its distribution (see docs/ARCHITECTURE.md,
"Add a kit"); `register` adds one in-process (tests, notebooks).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, partial
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from squadron_cad import interrupts
from squadron_cad.errors import InputError

if TYPE_CHECKING:
    import trimesh
    from solid2.core.object_base import OpenSCADObject

    from squadron_cad.checks.findings import Finding
    from squadron_cad.fit.layout import Layout
    from squadron_cad.paper.edition import PaperReport
    from squadron_cad.params import KitParamsBase

ENTRY_POINT_GROUP = "squadron_cad.kits"
DEFAULT_GROUP = "squadron_cad.default_kit"  # one entry: the kit used when none is named
Group = Literal["player", "shared", "box"]
ColourRole = Literal["player", "neutral"]  # a player's colour, or the kit's neutral grey
Meshes = Mapping[str, "trimesh.Trimesh"]


class Design(Protocol):
    """A kit's derived design: its parameters and every size derived from them, computed
    once after resolving and passed to builders, checks and outputs."""

    @property
    def params(self) -> KitParamsBase: ...

    @property
    def layout(self) -> Layout | None:
        """Where each piece lies in the box (None: the kit has no box). A kit with more
        than one kind of box also declares `layouts`, every one of them, this one first
        (fit.layout.box_layouts reads them)."""


class PlayerBuilder(Protocol):
    """(design, player index) -> that player's copy; the player is passed by name."""

    def __call__(self, design: Any, /, player: int) -> OpenSCADObject: ...


@dataclass(frozen=True)
class PrintNotes:
    """What the printability checks must know of a part besides its mesh."""

    text_height_mm: float | None = None  # smallest engraved letter
    engraving_depth_mm: float = 0.0  # deepest mark cut into the top
    engraved_below_mm: float = 0.0  # marks cut into the face on the bed
    text_on_bed: bool = False  # the text is cut into the bed face (read with the part turned)
    # Why the text's gap and counter checks only warn for now (a fix under way), else "":
    # a kit names its reason; the findings say it.
    text_spacing_waived: str = ""


@dataclass(frozen=True)
class Stowing:
    """How a part lies in its kit's box, for the engine's stower (fit.simple.declared_units):
    its bounds as built (print orientation), how many stack in one column, and whether
    each player's copies are kept together."""

    bounds: Callable[[Any], tuple[tuple[float, float, float], tuple[float, float, float]]]
    per_column: int = 1  # copies stacked in one pocket (1: each in a pocket of its own)
    by_player: bool = False  # a player's copies stowed together, apart from the others'


@dataclass(frozen=True)
class Part:
    """One printable part: its builder and everything the engine needs to know of it."""

    name: str
    title: str
    builder: Callable[[Any], OpenSCADObject]  # the kit's design -> solidpython2 object
    group: Group
    per_player: int = 0
    per_kit: int = 0
    orientation: str = "flat, as modelled"
    bodies: int = 1
    alternative_to: str | None = None  # an optional variant of another part
    also_replaces: tuple[str, ...] = ()  # further parts the alternative stands in for
    count_rule: Callable[[Any], int] | None = None  # params -> how many (else the counts)
    colour: ColourRole = "neutral"
    accent_from_mm: Callable[[Any], float] | None = None  # params -> z of a darker raised top
    # (params, player) -> outlines (xy rings, as modelled) that the marks' volume keeps to,
    # for marks standing in a recess (the top around them stays the body's colour); None:
    # everything above accent_from_mm is the marks' volume.
    accent_within: Callable[[Any, int], list[list[tuple[float, float]]]] | None = None
    print_notes: Callable[[Any], PrintNotes] = field(default=lambda _params: PrintNotes())
    slow_render: bool = False  # rendered first, so parallel workers finish together
    # False: its mesh differs under OpenSCAD's Manifold build (measured against CGAL), so
    # --backend auto renders it with CGAL
    manifold_agrees: bool = True
    noun: str = ""  # one piece in words ("plane token"); default: the name
    camera: str = ""  # its preview's OpenSCAD --camera (rotation form); default: the engine's
    stow: Stowing | None = None  # how it lies in the box (None: not stowed, or the kit's own)
    # (design, player index) -> that player's copy (their mark): the engine renders one STL
    # per player ("token.p1.stl") for the player plates; `builder` stays the representative
    # (player 1's) that checks, slicer and previews read.
    player_builder: PlayerBuilder | None = None
    variant_of: str | None = None  # set on a player's variant: the part it is a copy of
    player: int | None = None  # a variant's player (0-based)

    @property
    def file_name(self) -> str:
        return f"{self.name}.stl"

    def player_variants(self, players: int) -> tuple[Part, ...]:
        """One part per player when each player's copy differs (player_builder), else none."""
        if self.player_builder is None:
            return ()
        return tuple(
            replace(
                self,
                name=variant_name(self.name, player),
                builder=partial(self.player_builder, player=player),
                player_builder=None,
                variant_of=self.name,
                player=player,
            )
            for player in range(players)
        )

    @property
    def replaces(self) -> tuple[str, ...]:
        """Every part an optional variant stands in for."""
        return () if self.alternative_to is None else (self.alternative_to, *self.also_replaces)

    @property
    def words(self) -> str:
        return self.noun or self.name.replace("_", " ")

    def count(self, params: KitParamsBase) -> int:
        """How many to print for the configured number of players."""
        if self.count_rule is not None:
            return self.count_rule(params)
        return self.per_player * params.players + self.per_kit


def variant_name(part: str, player: int) -> str:
    """The name (and STL stem) of player `player`'s copy (0-based): "token.p1"."""
    return f"{part}.p{player + 1}"


@dataclass(frozen=True)
class Purchase:
    """Something to buy rather than print (dice, a deck of cards), for the BOM."""

    item: str
    count: int | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"item": self.item, "count": self.count, "detail": self.detail}


@dataclass(frozen=True)
class LazyImport:
    """A kit's function (or data) imported where it is first used: `LazyImport(module, name)`.

    A kit's checks, scenes and coupons import trimesh and scipy (0.6 s); with them behind
    `LazyImport`, listing, fitting and cleaning a kit never load the meshing stack.
    """

    module: str  # "squadron_cad.kits.my_game.checks"
    name: str  # "clearance_findings"

    def resolve(self) -> Any:
        found = getattr(importlib.import_module(self.module), self.name)
        interrupts.checkpoint()  # the meshing stack's imports swallow a Ctrl-C
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


def _no_purchases(_params: Any) -> list[Purchase]:
    return []


def _no_findings(_design: Any, _meshes: Meshes) -> list[Finding]:
    return []


def _no_invariants(_design: Any, _meshes: Meshes) -> list[dict[str, Any]]:
    return []


@dataclass(frozen=True)
class Coupon:
    """One fit of a kit printed small, at a ladder of clearances (`squadron-cad tolerance`).

    Every step is a separate piece, built by the part modules' own geometry with only the
    clearance parameter `key` set to the step's value, and carries that value in raised
    numerals; the `mate` is the piece every step is tried on (printed once). `measure`
    places a step on its mate and returns the clearance in the key's own units (the
    diameter for a key measured on the diameter): the tests compare it to the label.
    """

    fit: str  # its name, as --choose takes it: "hinge"
    key: str  # the parameter the chosen value sets: "section.gap_mm"
    title: str  # the fit in words, for the README of the plate
    step: Callable[[Any, float], OpenSCADObject]  # (design with key set, value) -> a step
    mate: Callable[[Any], OpenSCADObject]  # design -> the piece each step is tried on
    measure: Callable[[Any, trimesh.Trimesh, trimesh.Trimesh], float]  # (design, step, mate)
    fit_range: str = ""  # the checks key whose min_mm..max_mm the chosen value must lie in
    sides: int = 1  # 2 when the key is on the diameter (the range is per side)
    how: str = ""  # how to judge the printed steps, one sentence for the README


@dataclass(frozen=True)
class KitContents:
    """What a kit builds and checks; loaded on first use, so listing kits and resolving
    parameters stay quick (builders pull in solidpython2, checks pull in trimesh)."""

    parts: tuple[Part, ...]
    design: Callable[[Any], Design]  # params -> the derived design, computed once
    checks: Callable[[Any, Meshes], list[Finding]] = _no_findings  # between parts
    invariants: Callable[[Any, Meshes], list[dict[str, Any]]] = _no_invariants  # the rules
    fit_lines: Callable[[Any], list[str]] | None = None  # design -> the layout in words
    scenes: Callable[[Any, Path], list[Any]] | None = None  # (params, stl folder) -> views
    paper: Callable[[Any, Path, bool], PaperReport] | None = None  # (params, out, previews)
    purchases: Callable[[Any], list[Purchase]] = _no_purchases  # params -> what to buy
    coupons: tuple[Coupon, ...] | LazyImport = ()  # its fits, for the tolerance test print

    def __post_init__(self) -> None:
        names = [part.name for part in self.parts]
        if len(set(names)) != len(names):
            raise ValueError("two parts of a kit share a name")


@dataclass(frozen=True)
class BenchChange:
    """A change a maker often makes, which `squadron-cad bench` times against a cold build:
    its name in the table, the `--set` it applies (valid for the kit's defaults) and the
    goal for its build time, as a fraction of a cold build's."""

    name: str  # "tin"
    setting: str  # "tin.inner_length_mm=112"
    goal_ratio: float  # 0.25: at most a quarter of a cold build


@dataclass(frozen=True)
class Kit:
    """A game's kit: its parameters, parts, checks and sheets. The engine reads only this."""

    name: str  # what --kit takes
    title: str
    credit: str  # the game's credit and licence line
    params_model: type[KitParamsBase]
    defaults: Path  # the kit's default.yaml (inside the installed package)
    contents: KitContents | Callable[[], KitContents]
    presets: Path | None = None  # the kit's tin presets (--tin NAME reads NAME.yaml there)
    notes: str = ""  # one line for `squadron-cad kits`
    # Keys makers change most besides the tin, players and colours (dotted, as --set takes
    # them): the customizer page shows them first.
    featured: tuple[str, ...] = ()
    bench_changes: tuple[BenchChange, ...] = ()  # what `bench` changes, one build each

    def __repr__(self) -> str:
        return f"Kit({self.name!r})"

    @cached_property
    def loaded(self) -> KitContents:
        contents = self.contents
        return contents if isinstance(contents, KitContents) else contents()

    @property
    def parts(self) -> tuple[Part, ...]:
        return self.loaded.parts

    def design(self, params: KitParamsBase) -> Design:
        return self.loaded.design(params)

    def checks(self, design: Design, meshes: Meshes) -> list[Finding]:
        return self.loaded.checks(design, meshes)

    def invariants(self, design: Design, meshes: Meshes) -> list[dict[str, Any]]:
        return self.loaded.invariants(design, meshes)

    def purchases(self, params: KitParamsBase) -> list[Purchase]:
        return self.loaded.purchases(params)

    @property
    def fit_lines(self) -> Callable[[Any], list[str]] | None:
        return self.loaded.fit_lines

    @property
    def scenes(self) -> Callable[[Any, Path], list[Any]] | None:
        return self.loaded.scenes

    @property
    def paper(self) -> Callable[[Any, Path, bool], PaperReport] | None:
        return self.loaded.paper

    @cached_property
    def coupons(self) -> tuple[Coupon, ...]:
        given = self.loaded.coupons
        coupons: tuple[Coupon, ...] = given.resolve() if isinstance(given, LazyImport) else given
        fits = [coupon.fit for coupon in coupons]
        if len(set(fits)) != len(fits):
            raise ValueError(f"two coupons of the {self.name} kit share a fit name")
        return coupons

    @property
    def part_names(self) -> tuple[str, ...]:
        return tuple(part.name for part in self.parts)

    def part(self, name: str) -> Part:
        for part in self.parts:
            if part.name == name:
                return part
        close = difflib.get_close_matches(name, self.part_names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InputError(f"{name}: no such part in the {self.name} kit{hint}")


_REGISTERED: dict[str, Kit] = {}


def register(kit: Kit) -> Kit:
    """Make a kit known to this process (entry points are read as well)."""
    _REGISTERED[kit.name] = kit
    return kit


@cache
def _loaded(point: EntryPoint) -> Kit:
    loaded = point.load()
    kit = loaded() if callable(loaded) and not isinstance(loaded, Kit) else loaded
    if not isinstance(kit, Kit):
        raise TypeError(f"entry point {point.name} ({point.value}) is not a squadron_cad Kit")
    _BY_MODEL.setdefault(kit.params_model, kit)  # kit_of finds it without loading the rest
    return kit


def _entry_point_kits() -> dict[str, Kit]:
    kits = (_loaded(point) for point in entry_points(group=ENTRY_POINT_GROUP))
    return {kit.name: kit for kit in kits}


def installed_kits() -> dict[str, Kit]:
    """Every kit by name: those installed through entry points, then those registered."""
    return dict(sorted({**_entry_point_kits(), **_REGISTERED}.items()))


def load_kit(name: str) -> Kit:
    """The kit called `name`; only its own entry point is loaded (listing loads them all)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    points = [point for point in entry_points(group=ENTRY_POINT_GROUP) if point.name == name]
    if len(points) == 1:
        return _loaded(points[0])
    kits = installed_kits()
    if name in kits:
        return kits[name]
    close = difflib.get_close_matches(name, list(kits), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    known = ", ".join(kits) or "none"
    raise InputError(f"--kit {name}: no such kit{hint}; installed kits: {known}")


def default_kit() -> Kit:
    """The kit named by the `squadron_cad.default_kit` entry point (set by this project)."""
    points = list(entry_points(group=DEFAULT_GROUP))
    if len(points) != 1:
        raise InputError("no default kit is installed: name one with --kit")
    return load_kit(points[0].name)


_BY_MODEL: dict[type, Kit] = {}  # entry-point kits by parameter model, found once a process


def kit_of(params: KitParamsBase) -> Kit:
    """The kit whose parameter model these parameters are (a build asks dozens of times;
    listing the entry points costs 30 ms, so a kit found there is remembered)."""
    model = type(params)
    for kit in _REGISTERED.values():
        if model is kit.params_model:
            return kit
    if model not in _BY_MODEL:
        _entry_point_kits()  # loading a kit records it in _BY_MODEL
    if model in _BY_MODEL:
        return _BY_MODEL[model]
    raise InputError(f"no installed kit has the parameter model {model.__name__}")


def design_of(params: KitParamsBase) -> Design:
    """The derived design of these parameters, by their kit."""
    return kit_of(params).design(params)

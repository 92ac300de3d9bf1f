"""The engine's parameter sections: what every kit has (players, tin, printer, checks, slicer,
plates, previews, paper), and the field helpers kits build their own sections with.

A kit's parameter model subclasses `KitParamsBase` and adds its game's sections; values
come from the kit's defaults, a tin preset, YAML files and --set overrides (`resolve`).
Models are frozen, with units in field names; cross-field rules raise messages naming
every key involved, because a maker reads them at a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from squadron_cad.geometry.glyphs import GLYPHS
from squadron_cad.geometry.marks import MarkName, player_mark

MODEL_CONFIG = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)
LENGTH_EPSILON_MM = 1e-9  # sums of decimal lengths are not exact in binary


def check_font(key: str, text: str) -> None:
    """Engraved text uses our stroke font: refuse what it cannot draw before any render."""
    missing = sorted({char for char in text if char.upper() not in GLYPHS})
    if missing:
        allowed = "A-Z, 0-9, space and ' + - . / :"
        raise ValueError(f"{key} {text!r}: cannot engrave {' '.join(missing)!r}; use {allowed}")


def mm(description: str, low: float, high: float, *, allow_zero: bool = False) -> Any:
    """A length field: positive (or >= 0) and below an absurd size."""
    if allow_zero or low > 0:
        return Field(description=description, ge=low, le=high, json_schema_extra={"unit": "mm"})
    return Field(description=description, gt=low, le=high, json_schema_extra={"unit": "mm"})


def deg(description: str, low: float, high: float) -> Any:
    return Field(description=description, gt=low, le=high, json_schema_extra={"unit": "deg"})


def ratio(description: str, low: float, high: float) -> Any:
    return Field(description=description, gt=low, lt=high, json_schema_extra={"unit": ""})


Mm = float
Deg = float


class Section(BaseModel):
    model_config = MODEL_CONFIG


class TextParams(Section):
    stroke_mm: Annotated[Mm, mm("Stroke width of engraved letters and numerals", 0.3, 5)]
    depth_mm: Annotated[Mm, mm("Depth of engraved letters and numerals", 0.1, 5)]


class DiceParams(Section):
    size_mm: Annotated[Mm, mm("Edge of one die", 4, 40)]
    sides: Annotated[int, Field(ge=4, le=20, description="Sides of a die (d6 = 6)")]
    colours: Annotated[
        dict[str, Annotated[int, Field(ge=0, le=40)]],
        Field(description="Dice to buy, by colour"),
    ]

    @property
    def count(self) -> int:
        return sum(self.colours.values())


class TinParams(Section):
    name: Annotated[str, Field(max_length=60, description="Which tin this is")]
    inner_length_mm: Annotated[Mm, mm("Inside length of the tin", 20, 400)]
    inner_width_mm: Annotated[Mm, mm("Inside width of the tin", 20, 400)]
    inner_depth_mm: Annotated[Mm, mm("Inside depth of the tin, lid closed", 5, 200)]
    corner_radius_mm: Annotated[Mm, mm("Inside corner radius of the tin", 0, 200, allow_zero=True)]
    approximate: Annotated[bool, Field(description="True when the sizes are not measured")]
    source: Annotated[str, Field(max_length=400, description="Where the sizes come from")]

    @model_validator(mode="after")
    def _corner_fits(self) -> TinParams:
        half = min(self.inner_length_mm, self.inner_width_mm) / 2
        if self.corner_radius_mm > half:
            raise ValueError(
                f"tin.corner_radius_mm ({self.corner_radius_mm}) cannot exceed half of the "
                f"tin's smaller side ({half:g})"
            )
        return self


class TrayLidParams(Section):
    """A cap closing a tray (fit.tray_lid): a top, and a skirt as thick as the box's wall
    that continues it; the skirt's lowest `lip_mm` keeps only its outer `rim_mm`, a lip
    lapping the box's tongue (the rest of its wall), so the lid cannot slide off."""

    thickness_mm: Annotated[Mm, mm("Thickness of the lid's top", 0.6, 10)]
    skirt_mm: Annotated[
        Mm,
        mm(
            "Height of the lid's skirt under its top: a hand lifts the lid by it, and turned "
            "over the lid is a tray this deep",
            1,
            60,
        ),
    ]
    lip_mm: Annotated[Mm, mm("Height of the lid's lip lapping the box's tongue", 0.6, 10)]
    rim_mm: Annotated[Mm, mm("Thickness of the lid's lip, outside the box's tongue", 0.4, 10)]
    clearance_mm: Annotated[
        Mm, mm("Gap between the lid's lip and the box's tongue, per side", 0, 1, allow_zero=True)
    ]
    headroom_mm: Annotated[
        Mm, mm("Gap between the top of each stowed piece and the lid", 0, 10, allow_zero=True)
    ]


class TrayParams(Section):
    """A box of pockets cut straight down into a block fitted to the tin (fit.simple); with
    a `lid`, each pocket's floor is raised so its pieces reach just under the lid."""

    tin_clearance_mm: Annotated[
        Mm, mm("Gap between box and container on every side and at the top", 0, 10, allow_zero=True)
    ]
    wall_mm: Annotated[Mm, mm("Box wall thickness", 0.8, 10)]
    floor_mm: Annotated[Mm, mm("Box floor thickness", 0.4, 10)]
    pocket_clearance_mm: Annotated[Mm, mm("Gap around each unit in its pocket, per side", 0.05, 3)]
    divider_mm: Annotated[Mm, mm("Thickness of pocket walls", 0.4, 10)]
    lid: Annotated[
        TrayLidParams | None, Field(description="A lid that stays on (none: an open tray)")
    ] = None
    max_rattle_mm: Annotated[
        Mm | None,
        mm("Most free travel a stowed piece may have in the closed box, up and sideways", 0.1, 20),
    ] = None


class PrinterParams(Section):
    bed_length_mm: Annotated[Mm, mm("Print bed length (x)", 50, 1000)]
    bed_width_mm: Annotated[Mm, mm("Print bed width (y)", 50, 1000)]
    bed_height_mm: Annotated[Mm, mm("Print height limit (z)", 20, 1000)]


# Colour names accepted for players and previews; any other colour is given as #rrggbb.
# Hex values are typical filament shades, so pictures look like the printed parts.
COLOUR_NAMES: dict[str, str] = {
    "red": "#c0392b",
    "blue": "#2e6fba",
    "green": "#2e8b57",
    "yellow": "#f1c40f",
    "orange": "#e67e22",
    "purple": "#8e44ad",
    "black": "#333333",
    "white": "#eeeeee",
    "grey": "#8c8c8c",
    "gray": "#8c8c8c",
    "brown": "#8b5a2b",
    "pink": "#e87ea1",
    "cyan": "#17a2b8",
    "teal": "#138d75",
    "navy": "#1f3a68",
    "gold": "#d4a017",
    "silver": "#bfc5cc",
    "olive": "#6b7a2b",
    "khaki": "#b9a36b",
    "maroon": "#7b241c",
}
_HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_FILE_WORD = re.compile(r"^[A-Za-z0-9_-]{1,20}$")


def colour_hex(key: str, text: str) -> str:
    """A colour name or #rrggbb as #rrggbb; unknown names raise naming the key."""
    if _HEX_COLOUR.match(text):
        return text.lower()
    known = COLOUR_NAMES.get(text.lower())
    if known is None:
        names = ", ".join(sorted(COLOUR_NAMES))
        raise ValueError(f"{key} {text!r}: give #rrggbb or one of: {names}")
    return known


def hex_channels(colour_hex: str) -> tuple[int, int, int]:
    """#rrggbb's red, green and blue, each 0-255."""
    return int(colour_hex[1:3], 16), int(colour_hex[3:5], 16), int(colour_hex[5:7], 16)


class PlayerColour(Section):
    name: Annotated[
        str, Field(description="Name for the player's plate files (letters, digits, - and _)")
    ]
    colour: Annotated[str, Field(max_length=20, description="A colour name or #rrggbb")]
    mark: Annotated[
        MarkName | None,
        Field(description="The symbol raised on the player's pieces (default: by player order)"),
    ] = None

    @property
    def hex(self) -> str:
        return colour_hex("player_colours.colour", self.colour)

    @model_validator(mode="after")
    def _valid(self) -> PlayerColour:
        if not _FILE_WORD.match(self.name):  # it becomes part of a file name
            raise ValueError(f"player_colours.name {self.name!r}: use 1-20 letters, digits, - or _")
        colour_hex("player_colours.colour", self.colour)
        return self


class PlatesParams(Section):
    spacing_mm: Annotated[Mm, mm("Gap between parts on a print plate", 0, 50, allow_zero=True)]
    margin_mm: Annotated[Mm, mm("Border kept clear along the bed's edges", 0, 50, allow_zero=True)]


class PreviewParams(Section):
    width_px: Annotated[int, Field(ge=800, le=4000, description="Preview picture width (px)")]
    height_px: Annotated[int, Field(ge=600, le=3000, description="Preview picture height (px)")]
    colour: Annotated[
        str,
        Field(
            max_length=20,
            description="Colour of a shared part's own preview (name or #rrggbb); a player's "
            "part is shown in player 1's colour",
        ),
    ]

    @model_validator(mode="after")
    def _colour_known(self) -> PreviewParams:
        colour_hex("previews.colour", self.colour)
        return self


class FitRange(Section):
    """Allowed clearance of one kind of joint, per side, as measured between the meshes."""

    min_mm: Annotated[Mm, mm("Least clearance per side", 0, 5, allow_zero=True)]
    max_mm: Annotated[Mm, mm("Most clearance per side", 0, 5, allow_zero=True)]

    @model_validator(mode="after")
    def _ordered(self) -> FitRange:
        if self.min_mm > self.max_mm:
            raise ValueError(
                f"checks: a fit range's min_mm ({self.min_mm}) exceeds its max_mm ({self.max_mm})"
            )
        return self


class ChecksParams(Section):
    """Limits of the printability and clearance checks (constants.NORMS gives sources)."""

    overhang_limit_deg: Annotated[Deg, deg("Steepest overhang printed without support", 0, 90)]
    overhang_min_area_mm2: Annotated[
        float,
        Field(
            ge=0,
            le=100,
            description="Overhang regions smaller than this are ignored (chamfers, facets)",
            json_schema_extra={"unit": "mm2"},
        ),
    ]
    max_bridge_mm: Annotated[Mm, mm("Longest unsupported bridge", 0.5, 100)]
    min_wall_mm: Annotated[Mm, mm("Thinnest wall (two perimeters)", 0.2, 10)]
    min_text_stroke_mm: Annotated[Mm, mm("Narrowest stroke of engraved text", 0.1, 5)]
    min_text_depth_mm: Annotated[Mm, mm("Shallowest engraving", 0.1, 5)]
    min_text_height_mm: Annotated[Mm, mm("Smallest letter height", 0.5, 50)]
    min_text_gap_mm: Annotated[
        Mm, mm("Narrowest land between engraved strokes or letters (one nozzle line)", 0.1, 5)
    ]
    min_text_counter_mm: Annotated[
        Mm, mm("Narrowest island inside an engraved letter (the hole of a 0, 6 or 8)", 0.1, 5)
    ]
    min_mark_clearance_mm: Annotated[
        Mm, mm("Clear space between a player's mark and any label beside it", 0, 10)
    ]
    fit_tolerance_mm: Annotated[
        Mm, mm("Measured clearance may differ from its parameter by this much", 0, 1)
    ]
    pocket_fit: Annotated[
        FitRange, Field(description="Gap beside each stowed piece in its pocket, per side")
    ]
    lid_fit: Annotated[
        FitRange, Field(description="Gap between a box's lid and the box it closes, per side")
    ]


class SlicerParams(Section):
    """PrusaSlicer settings for the filament and time figures (not a print profile)."""

    enabled: Annotated[bool, Field(description="Slice the parts when PrusaSlicer is installed")]
    layer_height_mm: Annotated[Mm, mm("Layer height", 0.05, 1)]
    first_layer_height_mm: Annotated[Mm, mm("First layer height", 0.05, 1)]
    infill_percent: Annotated[int, Field(ge=0, le=100, description="Sparse infill density (%)")]
    perimeters: Annotated[int, Field(ge=1, le=20, description="Perimeters (wall loops)")]
    filament_diameter_mm: Annotated[Mm, mm("Filament diameter", 1, 3.5)]
    filament_density_g_cm3: Annotated[
        float,
        Field(gt=0.5, le=3, description="Filament density", json_schema_extra={"unit": "g/cm3"}),
    ]
    player_budget_mm: Annotated[
        Mm, mm("Most filament one player's set (the parts printed per player) may need", 1, 1e6)
    ]
    timeout_s: Annotated[float, Field(gt=0, le=3600, description="Time limit per part (s)")]


PAPER_SIZES_MM: dict[str, tuple[float, float]] = {  # portrait width x height
    "a4": (210.0, 297.0),  # ISO 216
    "letter": (215.9, 279.4),  # ANSI A, 8.5 x 11 in
}


class PaperParams(Section):
    """The paper edition (`squadron-cad paper`): page, hex battle mat and layout."""

    size: Annotated[Literal["a4", "letter"], Field(description="Page size: a4 or letter")]
    margin_mm: Annotated[
        Mm, mm("Blank border on every side (12.7 = half an inch: every common printer)", 3, 40)
    ]
    hex_across_flats_mm: Annotated[
        Mm, mm("Hex size across the flats (centre to centre of neighbouring hexes)", 10, 200)
    ]
    hex_orientation: Annotated[
        Literal["flat_top", "pointy_top"],
        Field(description="flat_top: flats at top and bottom; pointy_top: corners there"),
    ]
    mat_columns: Annotated[int, Field(ge=2, le=80, description="Hex battle mat: hexes across")]
    mat_rows: Annotated[int, Field(ge=2, le=80, description="Hex battle mat: hexes down")]
    overlap_mm: Annotated[
        Mm, mm("Strip where neighbouring mat pages overlap, to glue and align them", 5, 40)
    ]
    gap_mm: Annotated[Mm, mm("Space between cut-out pieces on a page", 2, 30)]

    @property
    def page_size_mm(self) -> tuple[float, float]:
        return PAPER_SIZES_MM[self.size]


Quality = Literal["draft", "final"]


class KitParamsBase(BaseModel):
    """What the engine reads of every kit's parameters; a kit's model adds its game."""

    model_config = MODEL_CONFIG
    # for makers (docs/parameters.md): which defaults follow what they set (follow_defaults)
    FOLLOWING: ClassVar[str] = ""

    players: Annotated[int, Field(ge=1, le=8, description="Number of players")]
    quality: Annotated[Quality, Field(description="draft: coarse curves; final: for printing")]
    text: TextParams
    tin: TinParams | None = None  # the container a kit's box fits (none: no box)
    printer: PrinterParams
    plates: PlatesParams
    previews: PreviewParams
    checks: ChecksParams
    slicer: SlicerParams
    paper: PaperParams
    player_colours: Annotated[
        tuple[PlayerColour, ...] | None,
        Field(strict=False, description="Optional name and colour of each player, in order"),
    ] = None

    @classmethod
    def follow_defaults(
        cls,
        values: dict[str, Any],  # noqa: ARG003 (a kit's model reads them)
        given: Callable[[str], bool],  # noqa: ARG003
    ) -> dict[str, Any]:
        """Defaults that follow what the maker set, by dotted key (a kit's sizes that follow
        its token width), from the merged raw values (not yet validated: leave a value of
        the wrong kind alone, the model refuses it); `given(key)`: the maker set that key,
        so it is theirs and stays. The engine's kits derive none."""
        return {}

    @model_validator(mode="after")
    def _colours_cover_players(self) -> KitParamsBase:
        colours = self.player_colours
        if colours is not None and len(colours) < self.players:
            raise ValueError(
                f"player_colours has {len(colours)} of them but players is {self.players}: "
                "give at least one name and colour per player"
            )
        marks = [player_mark(self, index) for index in range(self.players)]
        if len(set(marks)) != len(marks):
            raise ValueError(
                f"player_colours marks {', '.join(marks)}: two players share a mark; "
                "give each player a different one"
            )
        return self

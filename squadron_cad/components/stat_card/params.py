"""The parameter section of a stat card and its clips (kits embed it as `stat_dial`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from squadron_cad.geometry.expr import Number
from squadron_cad.params import Mm, Section, check_font, mm


class StatCardParams(Section):
    labels: Annotated[
        tuple[str, ...],
        Field(min_length=1, max_length=8, strict=False, description="Stat labels, one row each"),
    ]
    min_value: Annotated[
        int, Field(ge=0, le=9, description="Lowest settable value (0 if a stat can reach zero)")
    ]
    max_value: Annotated[int, Field(ge=1, le=9, description="Highest settable value")]
    card_thickness_mm: Annotated[Mm, mm("Thickness of the stat card", 0.8, 5)]
    row_width_mm: Annotated[Mm, mm("Height of one stat row (a card finger)", 3, 40)]
    label_width_mm: Annotated[Mm, mm("Width of the label column", 2, 40)]
    numeral_height_mm: Annotated[Mm, mm("Height of the numerals on the card", 1, 30)]
    clip_width_mm: Annotated[Mm, mm("Width of a clip along the row", 2, 30)]
    clip_spacing_mm: Annotated[Mm, mm("Gap between neighbouring clip positions", 0, 10)]
    clip_jaw_thickness_mm: Annotated[Mm, mm("Thickness of a clip jaw", 0.4, 5)]
    clip_spine_thickness_mm: Annotated[Mm, mm("Thickness of the clip's back", 0.4, 5)]
    clip_clearance_mm: Annotated[
        Mm, mm("Gap between the clip and the card where they must not rub", 0, 1)
    ]
    detent_depth_mm: Annotated[Mm, mm("Depth of the detent grooves under the card", 0.1, 2)]
    grip_mm: Annotated[
        Mm,
        mm(
            "Detent interference: how far the clip's jaws spread to pass between two values",
            0,
            1,
            allow_zero=True,
        ),
    ]

    @property
    def clip_pitch_mm(self) -> Number:
        return self.clip_width_mm + self.clip_spacing_mm

    @property
    def slot_width_mm(self) -> Number:
        """Gap between rows: room for a clip's back plus clearance on both sides."""
        return self.clip_spine_thickness_mm + 3 * self.clip_clearance_mm

    @model_validator(mode="after")
    def _labels_known(self) -> StatCardParams:
        if self.min_value > self.max_value:
            raise ValueError(
                f"stat_dial.min_value ({self.min_value}) must not exceed stat_dial.max_value "
                f"({self.max_value})"
            )
        for label in self.labels:
            check_font("stat_dial.labels", label)
            if not 1 <= len(label) <= 2:
                raise ValueError(
                    f"stat_dial.labels: {label!r} must be 1 or 2 characters (e.g. H, D, A, M)"
                )
        if self.grip_mm > self.detent_depth_mm:
            raise ValueError(
                f"stat_dial.grip_mm ({self.grip_mm}) must not exceed stat_dial.detent_depth_mm "
                f"({self.detent_depth_mm}): the bump would not seat in its groove"
            )
        if self.numeral_height_mm > self.row_width_mm - 1:
            raise ValueError(
                f"stat_dial.numeral_height_mm ({self.numeral_height_mm}) must be at least "
                f"1 mm less than stat_dial.row_width_mm ({self.row_width_mm})"
            )
        return self

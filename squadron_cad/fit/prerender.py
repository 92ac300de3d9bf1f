"""What a build refuses before it renders anything, in one place: `fit` applies every rule
(the box is its question), a build those of the parts it builds. A box `fit` accepts is
never refused by the build for a reason known before the renders.

The rules: the kit's own, raised as its design solves the layout (a tin too small, a title
too long for the lid), then the box on the print bed. Light (numpy only): `fit` answers
without the meshing stack.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from squadron_cad import bed
from squadron_cad.errors import InputError
from squadron_cad.geometry.outlines import rounded_rect_points

if TYPE_CHECKING:
    from squadron_cad.fit.layout import Layout
    from squadron_cad.kit import Design
    from squadron_cad.params import PrinterParams

OUTLINE_STEPS = 24  # samples per rounded corner: the outline within 0.01 % of its radius


def refuse_before_rendering(design: Design, building: Collection[str] | None = None) -> None:
    """Raise the InputError a build would raise before rendering. `building`: the parts a
    build renders (None: `fit`, which asks about the box). A build of other parts than the
    box does not need its layout: a tin too small is said by the parts that need it."""
    try:
        layout = design.layout
    except InputError:
        if building is None:
            raise
        return
    if layout is None or (building is not None and layout.box_part not in building):
        return
    refuse_a_box_off_the_bed(layout, design.params.printer)


def refuse_a_box_off_the_bed(layout: Layout, printer: PrinterParams) -> None:
    """A box (and its lid, as large) that no turn puts on the bed, or taller than the bed
    takes, is known from the tin: refused in one line, not failed after the renders."""
    shape = layout.box
    outline = rounded_rect_points(shape.length, shape.width, shape.radius, OUTLINE_STEPS)
    limits = bed.Bed(printer.bed_length_mm, printer.bed_width_mm, printer.bed_height_mm)
    height = printed_height(layout)
    if not bed.place(outline, 0.0, limits).fits:
        raise InputError(
            f"the box's {shape.length:.1f} x {shape.width:.1f} mm footprint (fitted to the "
            f"tin) does not fit the {printer.bed_length_mm:g} x {printer.bed_width_mm:g} mm "
            "bed at any turn (printer.bed_length_mm, printer.bed_width_mm); give your "
            "printer's bed, or a smaller tin"
        )
    if height > printer.bed_height_mm + 1e-9:
        raise InputError(
            f"the box stands at least {height:.1f} mm tall (fitted to the tin's depth), over "
            f"the printer's {printer.bed_height_mm:g} mm (printer.bed_height_mm); give your "
            "printer's height, or a shallower tin"
        )


def printed_height(layout: Layout) -> float:
    """The least height the box prints at, known before it renders: a box without a lid
    is as tall as the tin lets it be; under a lid it stands at least as high as its
    dividers' top."""
    if layout.lid_part is None:
        return layout.box.height
    return layout.insert_top

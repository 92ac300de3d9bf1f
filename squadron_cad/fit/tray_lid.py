"""A tray's lid (TrayParams.lid): a cap whose skirt continues the box's wall and laps its
tongue, so it stays on; turned over, a shallow tray.

Closed, the lid's top lies at the box's height (the tin's depth less its clearance). Its
skirt, as thick as the box's wall, stands on the wall `lid.skirt_mm` below the top; the
skirt's lowest `lid.lip_mm` keeps only its outer `lid.rim_mm`: a lip over the box's
tongue (the wall's inner rest, `lid.clearance_mm` inside the lip), which stops it sliding.
Inside, the box's dividers rise to the lid's underside less the headroom, standing
`lid.clearance_mm` inside its skirt.

The lid prints top down, skirt up (no overhang); `fit.simple.closed_lid_pose` turns it
over onto the box. Frame: centred on the origin, top's outer face on z = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from solid2 import difference, linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.layout import BoxShape
from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle
from squadron_cad.params import TrayLidParams


@dataclass(frozen=True)
class LidLevels:
    """Heights in the box frame (floor's underside at z = 0), lid closed."""

    height: float  # the lid's top
    lid_bottom: float  # the underside of the lid's top
    wall_top: float  # where the skirt stands on the box's wall
    lip_top: float  # the top of the box's tongue

    @property
    def skirt(self) -> float:
        return self.lid_bottom - self.wall_top


def lid_levels(box: BoxShape, lid: TrayLidParams) -> LidLevels:
    wall_top = box.height - lid.thickness_mm - lid.skirt_mm
    return LidLevels(box.height, box.lid_bottom, wall_top, wall_top + lid.lip_mm)


def outline(box: BoxShape, inset: float) -> OpenSCADObject:
    """The box's outline, `inset` mm inside its outer face all round."""
    return rounded_rectangle(
        box.length - 2 * inset, box.width - 2 * inset, max(box.radius - inset, 0.0)
    )


def tongue_inset(lid: TrayLidParams) -> float:
    """How far the tongue's outer face stands inside the box's: the lip and its gap."""
    return lid.rim_mm + lid.clearance_mm


def block_inset(box: BoxShape, lid: TrayLidParams) -> float:
    """How far the dividers above the tongue stand inside the box's outer face: the
    skirt (as thick as the wall) and the lid's gap."""
    return box.wall + lid.clearance_mm


def lid_height(lid: TrayLidParams) -> float:
    """The lid as built: its top and its skirt."""
    return lid.thickness_mm + lid.skirt_mm


def tray_lid(box: BoxShape, lid: TrayLidParams) -> OpenSCADObject:
    """The lid as printed: top on the bed, skirt up."""
    height = lid_height(lid)
    shell = linear_extrude(height=height)(outline(box, 0.0))
    inside = translate([0, 0, lid.thickness_mm])(
        linear_extrude(height=height)(outline(box, box.wall))
    )
    lip = translate([0, 0, height - lid.lip_mm])(
        linear_extrude(height=lid.lip_mm + EPSILON_MM)(outline(box, lid.rim_mm))
    )
    return difference()(shell, inside, lip)


def lidded_body(box: BoxShape, lid: TrayLidParams, top: float) -> OpenSCADObject:
    """The box before its pockets: the wall up to the tongue's top, less the rebate the lip
    drops into, and inside it the dividers' block up to `top`, clear of the skirt."""
    levels = lid_levels(box, lid)
    solid = linear_extrude(height=levels.lip_top)(outline(box, 0.0))
    block = linear_extrude(height=max(top, levels.lip_top))(outline(box, block_inset(box, lid)))
    rebate = translate([0, 0, levels.wall_top])(
        linear_extrude(height=lid.lip_mm + EPSILON_MM)(
            difference()(outline(box, -1.0), outline(box, tongue_inset(lid)))
        )
    )
    return difference()(solid + block, rebate)

"""A tray: a rounded block fitted to the container, a pocket cut for each unit of a layout
(fit.simple), straight down from the top to the pocket's floor, and the layout's finger
notches through the dividers: prints floor down with no support. With a lid, the wall
ends in a tongue the lid laps (fit.tray_lid)."""

from __future__ import annotations

from solid2 import circle, cube, difference, linear_extrude, rotate, square, translate, union
from solid2.core.object_base import OpenSCADObject

from squadron_cad.fit.layout import Layout
from squadron_cad.fit.notches import Notch
from squadron_cad.fit.tray_lid import lid_levels, lidded_body
from squadron_cad.geometry.shapes import EPSILON_MM, rounded_rectangle
from squadron_cad.params import TrayLidParams

NOTCH_FACETS = 24  # the round bottom of a finger notch; coarse is fine and renders fast


def pocket_tray(layout: Layout, lid: TrayLidParams | None = None) -> OpenSCADObject:
    """The tray; with `lid` (the tray's TrayParams.lid, and a layout stowed for it), its
    wall stops under the lid's skirt with a tongue the lid's lip laps (fit.tray_lid)."""
    box = layout.box
    if lid is None:
        top = box.height
        body = linear_extrude(height=top)(rounded_rectangle(box.length, box.width, box.radius))
    else:
        top = max(layout.insert_top, lid_levels(box, lid).lip_top)
        body = lidded_body(box, lid, layout.insert_top)
    cuts = []
    for pocket in layout.pockets:
        x0, y0, x1, y1 = pocket.bounds_2d
        cuts.append(
            translate([x0, y0, pocket.z_bottom])(
                cube([x1 - x0, y1 - y0, top - pocket.z_bottom + EPSILON_MM])
            )
        )
    cuts += [finger_notch(notch) for notch in layout.notches]
    return difference()(body, *cuts)


def finger_notch(notch: Notch) -> OpenSCADObject:
    """A U in a vertical plane, pushed through the divider along the notch's axis."""
    r = round(notch.radius, 4)
    centre_z = round(notch.z_bottom + notch.radius, 4)
    rise = round(notch.z_top - notch.z_bottom - notch.radius, 4) + EPSILON_MM
    profile = union()(
        translate([0, centre_z])(circle(r=r, _fn=NOTCH_FACETS)),
        translate([-r, centre_z])(square([2 * r, max(rise, EPSILON_MM)])),
    )
    turn = [90, 0, 90] if notch.axis == "x" else [90, 0, 0]
    x, y = (round(v, 4) for v in notch.centre)
    return translate([x, y, 0])(
        rotate(turn)(linear_extrude(height=round(notch.length, 4), center=True)(profile))
    )

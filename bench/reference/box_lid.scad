// Squadron Leader - v2 box lid (printed top down).
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.
// Like the original: zero side clearance over the 89 x 65 base.

$fn = 48;

base   = [89, 65];           // outside of the box base
r_base = 5;
wall   = 2;
top    = 2;
skirt  = 10;                 // how far the lid comes down the base
outer  = [base[0] + 2 * wall, base[1] + 2 * wall];    // 93 x 69
title_d = 0.6;
font = "Liberation Sans:style=Bold";

module rounded_box(size, r, h) {
    hull()
        for (x = [r, size[0] - r], y = [r, size[1] - r])
            translate([x, y, 0]) cylinder(r = r, h = h);
}

difference() {
    rounded_box(outer, r_base + wall, top + skirt);
    translate([wall, wall, top]) rounded_box(base, r_base, skirt + 1);
    // title engraved in the outside of the top (the face on the bed), mirrored to read
    translate([outer[0] / 2, outer[1] / 2, -1])
        linear_extrude(title_d + 1)
            mirror([1, 0]) {
                translate([0, 7]) text("SQUADRON", size = 9, font = font,
                                       halign = "center", valign = "center");
                translate([0, -7]) text("LEADER", size = 9, font = font,
                                        halign = "center", valign = "center");
            }
}

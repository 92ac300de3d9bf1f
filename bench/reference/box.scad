// Squadron Leader - v2 box base with its insert pockets.
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.

$fn = 48;

outer  = [89, 65, 27];
wall   = 2;
floor_t = 2;
r_out  = 5;
r_in   = 3;
template_t = 4;              // the all-in-one template lies flat on top
token_w = 26;
players = [53, 53];          // four stacks standing 2 x 2
dice    = [30, 53];          // 8 dice of 12 mm
ruler   = [85, 6];           // ruler parts on edge
dice_depth  = 13;
ruler_depth = 8;
indent = 1;                  // octagon floor indents under the stacks

inner = [outer[0] - 2 * wall, outer[1] - 2 * wall];
insert_top = outer[2] - template_t;      // 23

module rounded_box(size, r, h) {
    hull()
        for (x = [r, size[0] - r], y = [r, size[1] - r])
            translate([x, y, 0]) cylinder(r = r, h = h);
}

module octagon() {
    rotate(22.5) circle(r = token_w / 2, $fn = 8);
}

difference() {
    rounded_box(outer, r_out, outer[2]);
    // space for the template on top
    translate([wall, wall, insert_top]) rounded_box(inner, r_in, template_t + 1);
    // pockets, kept inside the rounded inner outline
    intersection() {
        translate([wall, wall, floor_t]) rounded_box(inner, r_in, outer[2]);
        union() {
            // players: 53 x 53 at the back left, down to the floor
            translate([wall, wall + ruler[1] + wall, floor_t])
                cube([players[0], players[1], outer[2]]);
            // dice: 30 x 53 at the back right
            translate([wall + players[0] + wall, wall + ruler[1] + wall, insert_top - dice_depth])
                cube([dice[0], dice[1], outer[2]]);
            // ruler slot along the front
            translate([wall, wall, insert_top - ruler_depth])
                cube([ruler[0], ruler[1], outer[2]]);
        }
    }
    // four 1 mm octagon indents in the players' floor
    for (i = [0, 1], j = [0, 1])
        translate([wall + players[0] / 4 + i * players[0] / 2,
                   wall + ruler[1] + wall + players[1] / 4 + j * players[1] / 2,
                   floor_t - indent])
            linear_extrude(indent + 0.01) offset(delta = 0.3) octagon();
}

// Squadron Leader - plane token + 4 altitude tokens on one print plate.
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.

$fn = 24;   // spheres: 24 segments (see README: matches the measured 4-peg cost)

width   = 26;           // octagon across the corners
height  = 4;            // token thickness
spacing = 26;           // pitch of the tokens on the plate
groove  = 1;            // firing-arc / guide groove width and depth
socket_d = 3.25;        // sockets under every token
peg_d    = 3;           // pegs on top of the altitude tokens
peg_off  = 6.5;         // peg centres at (+/-6.5, +/-6.5)
stack_r  = sqrt(2) * width / 4;   // 9.19: radius of the sockets
hole_scale = 0.56;      // altitude ring hole
font = "Liberation Sans:style=Bold";

flat = width / 2 * cos(22.5);     // 12.01: centre to flat

module octagon() {
    rotate(22.5) circle(r = width / 2, $fn = 8);
}

module plane_shape() {
    polygon([[8.7, 0], [8.0, 1.3], [5.0, 1.3], [5.0, 10.3], [1.5, 10.3],
             [1.5, 1.3], [-5.5, 1.0], [-6.0, 4.5], [-8.7, 4.5], [-8.7, -4.5],
             [-6.0, -4.5], [-5.5, -1.0], [1.5, -1.3], [1.5, -10.3],
             [5.0, -10.3], [5.0, -1.3], [8.0, -1.3]]);
}

module sockets() {
    for (a = [0 : 45 : 315])
        rotate(a) translate([stack_r, 0, 0]) sphere(d = socket_d);
}

module plane_token() {
    difference() {
        union() {
            linear_extrude(height) octagon();
            translate([0, 0, height]) linear_extrude(1) plane_shape();
        }
        // firing arc: two lines from the centre at +/-45 deg
        for (a = [45, -45])
            rotate(a) translate([0, -groove / 2, height - groove])
                cube([width / 2 + 1, groove, 3]);
        // forward firing guides
        for (y = [width / 8, -width / 8])
            translate([3.5, y - groove / 2, height - groove])
                cube([flat - 3.5 + 1, groove, 3]);
        sockets();
    }
}

module altitude_token(n) {
    difference() {
        linear_extrude(height) difference() {
            octagon();
            scale(hole_scale) octagon();
        }
        sockets();
        // altitude numeral on the front of the ring
        translate([9.4, 0, height - 0.6])
            linear_extrude(1)
                rotate(90) text(str(n), size = 4, font = font,
                                halign = "center", valign = "center");
    }
    // pegs: the top half of each sphere stands proud
    for (x = [-peg_off, peg_off], y = [-peg_off, peg_off])
        translate([x, y, height]) sphere(d = peg_d);
}

// plate: 3 x 2 grid, 26 apart (76 x 50)
plane_token();
for (i = [1 : 4])
    translate([(i % 3) * spacing, floor(i / 3) * spacing, 0])
        altitude_token(i);

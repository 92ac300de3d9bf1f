// Squadron Leader - four-wheel stat dial, laid out for printing.
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.
// Four 10-sided wheels (16 dia x 8) turn on a 10-sided axle; two flexure arms
// cut from each wheel click over the axle's corners; two side plates hold the
// axle. Assembled: about 19 x 19 x 41.

$fn = 48;

wheel_d  = 16;       // across the corners of the 10-sided rim
wheel_w  = 8;
sides    = 10;
axle_r   = 3;        // axle circumradius (10-sided)
axle_len = 41;
bore_r   = 3.45;     // clear bore around the axle
arm_t    = 0.9;      // flexure arm thickness
slot_w   = 0.8;      // slot behind each arm
arm_ang  = 110;      // angle the slot spans
nub_r    = 0.65;     // detent nub: reaches r 2.8, axle flats 2.85, corners 3
plate    = [19, 19];
plate_t  = 3.5;
plate_r  = 2;
fit      = 0.15;     // axle in the plates (press)
text_d   = 0.6;
text_size = 4;
font = "Liberation Sans:style=Bold";

face_r = wheel_d / 2 * cos(180 / sides);   // 7.61: centre to a rim face

module ngon(r) {
    circle(r = r, $fn = sides);
}

// the wheel's cross-section: 10-sided rim, bore, two flexure arms with nubs
module wheel2d() {
    difference() {
        ngon(wheel_d / 2);
        circle(r = bore_r);
        // slots behind the arms
        for (a = [0, 180])
            rotate(a) intersection() {
                difference() {
                    circle(r = bore_r + arm_t + slot_w);
                    circle(r = bore_r + arm_t);
                }
                polygon([[0, 0],
                         for (t = [-arm_ang / 2 : arm_ang / 4 : arm_ang / 2])
                             2 * wheel_d * [cos(t), sin(t)]]);
            }
        // open one end of each arm so it springs
        for (a = [0, 180])
            rotate(a + arm_ang / 2) translate([bore_r - 0.5, -slot_w / 2])
                square([arm_t + slot_w + 0.5, slot_w]);
    }
    // nubs on the arms, pressing on the axle's corners
    for (a = [0, 180])
        rotate(a) translate([bore_r, 0]) circle(r = nub_r);
}

module wheel() {
    difference() {
        linear_extrude(wheel_w) wheel2d();
        // numerals 1-4 on four faces of the rim, each turned to its face
        for (n = [1 : 4])
            rotate((n - 1) * 360 / sides + 180 / sides)
                translate([face_r - text_d, 0, wheel_w / 2])
                    rotate([0, 90, 0])
                        linear_extrude(text_d + 1)
                            text(str(n), size = text_size, font = font,
                                 halign = "center", valign = "center");
    }
}

module axle() {
    // lying on a flat for printing
    rotate([0, 90, 0]) rotate(180 / sides)
        linear_extrude(axle_len) ngon(axle_r);
}

module side_plate() {
    difference() {
        hull()
            for (x = [plate_r, plate[0] - plate_r], y = [plate_r, plate[1] - plate_r])
                translate([x, y, 0]) cylinder(r = plate_r, h = plate_t);
        // axle socket (press fit)
        translate([plate[0] / 2, plate[1] / 2, -1])
            linear_extrude(plate_t + 2) ngon(axle_r + fit);
    }
}

// print layout: wheels in a row, axle and plates below
for (i = [0 : 3])
    translate([i * (wheel_d + 4), 0, 0]) wheel();
translate([-wheel_d / 2, -wheel_d / 2 - 6, axle_r * cos(180 / sides)]) axle();
for (i = [0, 1])
    translate([axle_len - wheel_d / 2 + 6 + i * (plate[0] + 4), -wheel_d / 2 - 4 - plate[1], 0])
        side_plate();

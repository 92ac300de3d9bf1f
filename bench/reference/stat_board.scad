// Squadron Leader - basic stat board (one of the 13 permutations).
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.
// Columns: Health, Defense, Attack, Speed; icons and numbers cut through.

$fn = 48;

board = [45, 24];
thick = 2;
corner = 3;
stats = [4, 3, 3, 2];     // the variant: health, defense, attack, speed
font = "Liberation Sans:style=Bold";
col = board[0] / 4;       // 11.25

module rounded_plate() {
    hull()
        for (x = [corner, board[0] - corner], y = [corner, board[1] - corner])
            translate([x, y, 0]) cylinder(r = corner, h = thick);
}

module heart_icon() {
    translate([0, -0.6]) {
        translate([-1.5, 1.1]) circle(d = 4.2);
        translate([ 1.5, 1.1]) circle(d = 4.2);
        polygon([[-3.5, 0.4], [3.5, 0.4], [0, -3.6]]);
    }
}

module shield_icon() {
    difference() {
        polygon([[-3.2, 3.4], [3.2, 3.4], [3.2, 0.5], [0, -3.6], [-3.2, 0.5]]);
        polygon([[-2.0, 2.3], [2.0, 2.3], [2.0, 0.6], [0, -2.1], [-2.0, 0.6]]);
    }
    // the shield's centre stripe keeps the inner part attached
    translate([-0.5, -3]) square([1, 6.2]);
}

module attack_icon() {
    // crosshair
    difference() {
        circle(r = 3.5);
        circle(r = 2.5);
    }
    for (a = [0 : 90 : 270])
        rotate(a) translate([1.2, -0.45]) square([3.2, 0.9]);
}

module speed_icon() {
    // double forward chevron
    for (dx = [-1.6, 1.2])
        translate([dx, 0])
            polygon([[1.6, 0], [-0.8, 3.4], [-2.2, 3.4], [0.2, 0], [-2.2, -3.4], [-0.8, -3.4]]);
}

module icon(i) {
    if (i == 0) heart_icon();
    else if (i == 1) shield_icon();
    else if (i == 2) attack_icon();
    else speed_icon();
}

difference() {
    rounded_plate();
    for (i = [0 : 3])
        translate([(i + 0.5) * col, 0, -1]) linear_extrude(thick + 2) {
            translate([0, 16.5]) icon(i);
            translate([0, 6.5]) text(str(stats[i]), size = 7, font = font,
                                    halign = "center", valign = "center");
        }
}

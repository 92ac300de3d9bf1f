// Squadron Leader - all-in-one move template (straight + bank + turn).
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.
// Forward is +x; the start edge is x = 0, centred on y = 0; the curves go left (+y).

$fn = 180;

width  = 26;                 // template width = token width
height = 4;
len    = 3 * width;          // straight: 78
notch  = width / 6;          // 4.333: token centre beyond the end
bank_r = 3.5 * width;        // 91: bank centre line (inner 78, outer 104)
turn_r = 1.5 * width;        // 39: turn centre line (inner 26, outer 52)
guide_w = 0.5;               // guide grooves on the curved edges
guide_d = 1;

module octagon() {
    rotate(22.5) circle(r = width / 2, $fn = 8);
}

// ring segment turning left, starting at the origin heading +x
module arc2d(r, ang) {
    translate([0, r]) intersection() {
        difference() {
            circle(r = r + width / 2);
            circle(r = r - width / 2);
        }
        // wedge from -90 to -90 + ang
        polygon([[0, 0],
                 for (a = [-90 : ang / 8 : -90 + ang]) 2 * r * [cos(a), sin(a)]]);
    }
}

// position and heading of the end of an arc
function arc_end(r, ang) = [r * sin(ang), r - r * cos(ang)];

module chevron() {
    // a ">" pointing forward, cut through
    polygon([[1.5, 0], [-1.5, 3.5], [-3.3, 3.5], [-0.3, 0], [-3.3, -3.5], [-1.5, -3.5]]);
}

module outline() {
    union() {
        translate([0, -width / 2]) square([len, width]);
        arc2d(bank_r, 45);
        arc2d(turn_r, 90);
    }
}

module notches() {
    // start notch (shared)
    translate([-notch, 0]) octagon();
    // straight end
    translate([len + notch, 0]) octagon();
    // bank end: arc end midpoint plus 4.333 along the tangent
    translate(arc_end(bank_r, 45) + notch * [cos(45), sin(45)]) rotate(45) octagon();
    // turn end
    translate(arc_end(turn_r, 90) + notch * [cos(90), sin(90)]) rotate(90) octagon();
}

module chevrons() {
    // cost 1: one chevron on the straight
    translate([len - 20, -6]) chevron();
    // cost 2: two chevrons along the bank centre line
    for (a = [26, 33])
        translate(arc_end(bank_r, a)) rotate(a) chevron();
    // cost 3: three chevrons along the turn centre line
    for (a = [44, 56, 68])
        translate(arc_end(turn_r, a)) rotate(a) chevron();
}

// guide groove along a curved edge, z0 = face it is cut into
module edge_groove(r, edge_r, ang, inside) {
    translate([0, r, 0]) rotate(-90)
        rotate_extrude(angle = ang)
            translate([inside ? edge_r : edge_r - guide_w, -1])
                square([guide_w, guide_d + 1]);
}

module grooves() {
    for (z = [0, height]) {
        translate([0, 0, z == 0 ? 0 : height]) mirror([0, 0, z == 0 ? 1 : 0]) {
            edge_groove(bank_r, bank_r - width / 2, 45, true);
            edge_groove(bank_r, bank_r + width / 2, 45, false);
            edge_groove(turn_r, turn_r - width / 2, 90, true);
            edge_groove(turn_r, turn_r + width / 2, 90, false);
        }
    }
}

difference() {
    linear_extrude(height) difference() {
        outline();
        notches();
        chevrons();
    }
    grooves();
}

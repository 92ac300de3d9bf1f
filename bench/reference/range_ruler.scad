// Squadron Leader - range ruler (one piece).
// Hand-written reconstruction of the reference v2 part, from the spec dimensions.
// Timing baseline only (bench/reference/README.md). CC BY-SA 4.0.

width   = 26 / 4;        // 6.5
section = 78;            // one straight template length
len     = 3 * section;   // 234
height  = 4;
groove_w = 1;
groove_d = 0.8;
text_d   = 0.6;
font = "Liberation Sans:style=Bold";

difference() {
    cube([len, width, height]);
    // range marks across the top
    for (i = [1, 2])
        translate([i * section - groove_w / 2, -1, height - groove_d])
            cube([groove_w, width + 2, groove_d + 1]);
    // range numerals 1 / 2 / 3 in the middle of each third
    for (i = [0 : 2])
        translate([(i + 0.5) * section, width / 2, height - text_d])
            linear_extrude(text_d + 1)
                text(str(i + 1), size = 4.5, font = font,
                     halign = "center", valign = "center");
}

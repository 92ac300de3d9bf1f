"""Our own stroke font: every character is a few centre-line polylines.

Why our own: text engraved on printed parts must come out identical on every machine, so we do
not depend on installed fonts. All coordinates below were designed for this project.

Conventions: cap height is 1.0 em, baseline y=0, each glyph's centre-lines lie in the box
x in [0, advance], y in [0, 1]. Strokes are drawn with round caps and joins, ~0.16-0.2 em wide.
Curves are chamfered corners (octagon style) because every segment costs rendering time and a
0.4 mm nozzle cannot reproduce finer curvature at 4 mm cap height anyway. Parallel strokes in a
glyph are >= 0.38 em apart so counters stay open after engraving.
"""

from dataclasses import dataclass

Point = tuple[float, float]
Stroke = tuple[Point, ...]  # a polyline of at least 2 points, drawn with round caps/joins


@dataclass(frozen=True)
class Glyph:
    advance: float  # pen advance in em (cap height = 1.0), INCLUDING no spacing
    strokes: tuple[Stroke, ...]


def _g(advance: float, *strokes: tuple[Point, ...]) -> Glyph:
    return Glyph(advance, tuple(tuple((float(x), float(y)) for x, y in s) for s in strokes))


# One glyph per line or two reads better than one point per line.
# fmt: off
GLYPHS: dict[str, Glyph] = {
    # --- digits: all 0.6 wide (tabular) so numbers line up in columns ---
    # 0: narrow tall octagon; O is much wider and rounder, which keeps them apart.
    "0": _g(0.6, ((0.18, 0), (0.42, 0), (0.6, 0.26), (0.6, 0.74), (0.42, 1), (0.18, 1),
                  (0, 0.74), (0, 0.26), (0.18, 0))),
    "1": _g(0.6, ((0.1, 0.76), (0.38, 1), (0.38, 0))),
    "2": _g(0.6, ((0, 0.78), (0.16, 1), (0.44, 1), (0.6, 0.8), (0.6, 0.62), (0, 0), (0.6, 0))),
    # 3: flat top saves the upper bowl's segments and is still unmistakable.
    "3": _g(0.6, ((0, 1), (0.6, 1), (0.26, 0.6), (0.42, 0.6), (0.6, 0.42), (0.6, 0.18),
                  (0.42, 0), (0.16, 0), (0, 0.16))),
    # 4: open top (like a 7-segment 4) because a closed triangle counter fills in at 4 mm.
    "4": _g(0.6, ((0.1, 1), (0, 0.34), (0.6, 0.34)), ((0.46, 0.76), (0.46, 0))),
    # 5: square top-left and mid-left corners + flat middle bar set it apart from S.
    "5": _g(0.6, ((0.58, 1), (0, 1), (0, 0.58), (0.42, 0.58), (0.6, 0.4), (0.6, 0.18),
                  (0.42, 0), (0.16, 0), (0, 0.16))),
    "6": _g(0.6, ((0.58, 1), (0.16, 1), (0, 0.84), (0, 0.16), (0.16, 0), (0.44, 0),
                  (0.6, 0.16), (0.6, 0.44), (0.44, 0.6), (0, 0.6))),
    "7": _g(0.6, ((0, 1), (0.6, 1), (0.2, 0))),
    # 8: two stacked hexagons sharing the waist bar.
    "8": _g(0.6, ((0.16, 0.55), (0.04, 0.775), (0.16, 1), (0.44, 1), (0.56, 0.775),
                  (0.44, 0.55), (0.16, 0.55), (0, 0.275), (0.16, 0), (0.44, 0),
                  (0.6, 0.275), (0.44, 0.55))),
    "9": _g(0.6, ((0.02, 0), (0.44, 0), (0.6, 0.16), (0.6, 0.84), (0.44, 1), (0.16, 1),
                  (0, 0.84), (0, 0.56), (0.16, 0.4), (0.6, 0.4))),
    # --- letters ---
    # A: flat apex because a pointed one closes its counter when engraved at 4 mm; the bar
    # low (0.28) so the counter of a 3.4 mm A, stroke 0.7, stays 0.43 mm across (0.37 at 0.34).
    "A": _g(0.7, ((0, 0), (0.27, 1), (0.43, 1), (0.7, 0)), ((0.0756, 0.28), (0.6244, 0.28))),
    "B": _g(0.6, ((0, 0.53), (0.44, 0.53), (0.6, 0.38), (0.6, 0.15), (0.45, 0), (0, 0),
                  (0, 1), (0.42, 1), (0.56, 0.86), (0.56, 0.67), (0.44, 0.53))),
    "C": _g(0.62, ((0.62, 0.84), (0.46, 1), (0.18, 1), (0, 0.8), (0, 0.2), (0.18, 0),
                   (0.46, 0), (0.62, 0.16))),
    "D": _g(0.64, ((0, 0), (0, 1), (0.36, 1), (0.64, 0.72), (0.64, 0.28), (0.36, 0), (0, 0))),
    "E": _g(0.54, ((0.54, 1), (0, 1), (0, 0), (0.54, 0)), ((0, 0.52), (0.44, 0.52))),
    "F": _g(0.54, ((0.54, 1), (0, 1), (0, 0)), ((0, 0.52), (0.44, 0.52))),
    "G": _g(0.66, ((0.64, 0.84), (0.48, 1), (0.18, 1), (0, 0.8), (0, 0.2), (0.18, 0),
                   (0.48, 0), (0.66, 0.18), (0.66, 0.46), (0.36, 0.46))),
    "H": _g(0.62, ((0, 0), (0, 1)), ((0.62, 0), (0.62, 1)), ((0, 0.52), (0.62, 0.52))),
    # I: serifs so it is not mistaken for 1 or a stray stroke.
    "I": _g(0.34, ((0, 1), (0.34, 1)), ((0.17, 1), (0.17, 0)), ((0, 0), (0.34, 0))),
    "J": _g(0.54, ((0.54, 1), (0.54, 0.18), (0.38, 0), (0.16, 0), (0, 0.2))),
    "K": _g(0.6, ((0, 0), (0, 1)), ((0.6, 1), (0, 0.38)), ((0.21, 0.6), (0.6, 0))),
    "L": _g(0.52, ((0, 1), (0, 0), (0.52, 0))),
    "M": _g(0.8, ((0, 0), (0, 1), (0.4, 0.3), (0.8, 1), (0.8, 0))),
    "N": _g(0.64, ((0, 0), (0, 1), (0.64, 0), (0.64, 1))),
    "O": _g(0.76, ((0.22, 0), (0.54, 0), (0.76, 0.24), (0.76, 0.76), (0.54, 1), (0.22, 1),
                   (0, 0.76), (0, 0.24), (0.22, 0))),
    # Q: tail pokes out past the bottom-right chamfer; it may not go below the baseline.
    "Q": _g(0.84, ((0.22, 0), (0.54, 0), (0.76, 0.24), (0.76, 0.76), (0.54, 1), (0.22, 1),
                   (0, 0.76), (0, 0.24), (0.22, 0)), ((0.5, 0.3), (0.84, 0))),
    "P": _g(0.58, ((0, 0), (0, 1), (0.42, 1), (0.58, 0.84), (0.58, 0.6), (0.42, 0.44),
                   (0, 0.44))),
    "R": _g(0.6, ((0, 0), (0, 1), (0.42, 1), (0.58, 0.84), (0.58, 0.6), (0.42, 0.44),
                  (0, 0.44)), ((0.3, 0.44), (0.6, 0))),
    # S: diagonal spine and curled ends, versus the 5's square corners.
    "S": _g(0.6, ((0.58, 0.86), (0.44, 1), (0.16, 1), (0, 0.84), (0, 0.66), (0.6, 0.36),
                  (0.6, 0.16), (0.44, 0), (0.16, 0), (0, 0.14))),
    "T": _g(0.6, ((0, 1), (0.6, 1)), ((0.3, 1), (0.3, 0))),
    "U": _g(0.62, ((0, 1), (0, 0.2), (0.18, 0), (0.44, 0), (0.62, 0.2), (0.62, 1))),
    "V": _g(0.66, ((0, 1), (0.33, 0), (0.66, 1))),
    "W": _g(0.92, ((0, 1), (0.2, 0), (0.46, 0.7), (0.72, 0), (0.92, 1))),
    "X": _g(0.62, ((0, 0), (0.62, 1)), ((0, 1), (0.62, 0))),
    "Y": _g(0.64, ((0, 1), (0.32, 0.5), (0.64, 1)), ((0.32, 0.5), (0.32, 0))),
    "Z": _g(0.58, ((0, 1), (0.58, 1), (0, 0), (0.58, 0))),
    # --- punctuation; dots are short dashes because a stroke needs a non-zero segment ---
    " ": _g(0.35),
    "-": _g(0.36, ((0, 0.5), (0.36, 0.5))),
    ".": _g(0.06, ((0, 0), (0.06, 0))),
    "/": _g(0.4, ((0, 0), (0.4, 1))),
    ":": _g(0.06, ((0, 0), (0.06, 0)), ((0, 0.56), (0.06, 0.56))),
    "+": _g(0.5, ((0, 0.5), (0.5, 0.5)), ((0.25, 0.25), (0.25, 0.75))),
    "'": _g(0.06, ((0.06, 1), (0, 0.74))),
}
# fmt: on


# Gap between neighbouring glyph boxes. With 4 mm tall ink and 0.7 mm strokes (centre-line cap
# height 3.3 mm) 0.4 em leaves a 0.62 mm wall between letters, a bit more than the counters
# inside glyphs; at 0.25 em the wall is 0.13 mm, below one 0.4 mm nozzle line, and letters fuse.
DEFAULT_SPACING_EM = 0.4


def layout_text(
    text: str, spacing_em: float = DEFAULT_SPACING_EM
) -> tuple[tuple[Stroke, ...], float]:
    """Strokes of `text` laid out left to right starting at x=0, baseline y=0, cap height 1.

    Glyph i starts at x_i = sum(advance of glyphs before it) + i * spacing_em. The returned
    total width is x_last + advance_last, i.e. sum(advances) + (n - 1) * spacing_em (0.0 for
    empty text): from the first glyph's left edge to the last glyph's right edge, no trailing
    spacing. Every glyph except the tabular "1" and " " has centre-lines touching both edges
    of its box, so for such text this equals the ink centre-line extent.
    Lowercase is mapped to uppercase; an unknown character raises ValueError naming it.
    """
    strokes: list[Stroke] = []
    pen_x = 0.0
    width = 0.0
    for ch in text:
        glyph = GLYPHS.get(ch.upper())
        if glyph is None:
            raise ValueError(f"no glyph for character {ch!r} (in {text!r})")
        strokes.extend(tuple((x + pen_x, y) for x, y in stroke) for stroke in glyph.strokes)
        width = pen_x + glyph.advance
        pen_x = width + spacing_em
    return tuple(strokes), width

"""The box layout drawn from above as SVG, for the customizer page (no rendering).

The same drawing as layout.png (squadron_cad.fit.layout_io), from the same Layout: the
tin, the box, its pockets, every piece (its name on hover), each pocket labelled with what
it holds, the finger notches, and the spare room on each side, the limiting one in red.
Light: no matplotlib, no trimesh, so an edit's drawing comes back in milliseconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from itertools import combinations, pairwise

from squadron_cad.fit.layout import Layout, Placement, Pocket, held_by, pocket_label
from squadron_cad.fit.units import octagon_points
from squadron_cad.geometry.outlines import rounded_rect_points
from squadron_cad.kit import Kit
from squadron_cad.params import KitParamsBase

TIN, BOX, POCKET, PIECE, BOUGHT, ON_TOP, LIMIT = (
    "#777777",
    "#1f3b73",
    "#dce6f5",
    "#2e7d32",
    "#c0392b",
    "#b35900",
    "#d62828",
)
AXIS_WORDS = {"x": "length", "y": "width", "z": "depth", "corner": "corner"}
CHAR_EM = 0.6  # a sans-serif letter's width, in letter sizes (bold, generous)
SMALLEST = 0.6  # a name smaller than this share of the drawing's letters is a number instead
LINE = 1.3  # a line of text's height, in letter sizes
NUMBERED = 'fill="#102040"'  # the style of a numbered pocket's line below the box


def _path(points: Iterable[Sequence[float]]) -> str:
    """SVG points with y up (the drawing's y axis is the tin's width, upwards)."""
    return " ".join(f"{x:.2f},{-y:.2f}" for x, y, *_ in points)


def _polygon(points: Iterable[Sequence[float]], style: str, title: str = "") -> str:
    tip = f"<title>{escape(title)}</title>" if title else ""
    return f'<polygon points="{_path(points)}" {style}>{tip}</polygon>'


def _text(x: float, y: float, words: str, size: float, extra: str = "") -> str:
    return (
        f'<text x="{x:.2f}" y="{-y:.2f}" font-size="{size:.2f}" text-anchor="middle" '
        f'dominant-baseline="middle" {extra}>{escape(words)}</text>'
    )


def piece_words(kit: Kit, part: str) -> str:
    """A piece's name for people: the kit part's noun, else the part's name (dice)."""
    for spec in kit.parts:
        if spec.name == part:
            return spec.words
    return part.replace("_", " ")


def contents_line(kit: Kit, placed: Iterable[Placement]) -> str:
    """'token, 2 x small token': what a pocket holds."""
    counted = Counter(piece_words(kit, q.part) for q in placed)
    return ", ".join(words if n == 1 else f"{n} x {words}" for words, n in counted.items())


def _piece(placed: Placement, pocket: Pocket | None, colour: str, title: str) -> str:
    (x0, y0, _), (x1, y1, _) = placed.bounds
    if pocket is not None and pocket.kind == "octagon":
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        points = [(cx + x, cy + y) for x, y in octagon_points(x1 - x0)]
    else:
        points = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    style = f'fill="none" stroke="{colour}" stroke-width="0.35" class="piece"'
    return _polygon(points, style, title)


def layout_svg(layout: Layout, params: KitParamsBase, kit: Kit) -> str:
    """The top-down drawing: an SVG document whose units are millimetres."""
    tin, box = params.tin, layout.box
    length = tin.inner_length_mm if tin else box.length
    width = tin.inner_width_mm if tin else box.width
    size = max(2.4, min(length, width) / 28)  # letters in mm, readable at any tin size
    pockets, below = _pockets(layout, kit, size)
    pad = size * 5
    left, top = -length / 2 - pad, -width / 2 - pad
    tall = width + 2 * pad + size * (2 + LINE * max(len(below) - 1, 0))
    view = f"{left:.2f} {top:.2f} {length + 2 * pad:.2f} {tall:.2f}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view}" class="layout" '
        f'role="img" font-family="sans-serif">',
        f"<title>{escape(layout.strategy)}</title>",
    ]
    if tin is not None:
        outline = rounded_rect_points(
            tin.inner_length_mm, tin.inner_width_mm, tin.corner_radius_mm, steps=6
        )
        style = f'fill="none" stroke="{TIN}" stroke-width="0.4" stroke-dasharray="2 1.2"'
        parts.append(_polygon(outline, style, f"tin {tin.name} (inside)"))
    parts.append(
        _polygon(
            rounded_rect_points(box.length, box.width, box.radius, steps=6),
            f'fill="#f7f9fc" stroke="{BOX}" stroke-width="0.5"',
            "box (outside)",
        )
    )
    parts.append(
        _polygon(
            rounded_rect_points(box.inner_length, box.inner_width, box.inner_radius, steps=6),
            f'fill="none" stroke="{BOX}" stroke-width="0.25" stroke-dasharray="0.8 0.8"',
            "box (inside)",
        )
    )
    parts += pockets
    for line, (words, extra) in enumerate(below):  # under the spare room's line
        y = -box.width / 2 - size * (4.4 + LINE * line)
        parts.append(_text(0, y, words, size * _fits(words, length + pad, size), extra))
    parts += _notches(layout, size)
    parts += _margins(layout, size)
    parts.append("</svg>")
    return "\n".join(parts)


def _fits(words: str, room_mm: float, size: float) -> float:
    """The share of the full letter size at which `words` fit across `room_mm`."""
    return min(1.0, room_mm / max(len(words) * size * CHAR_EM, 1e-6))


def _pockets(layout: Layout, kit: Kit, size: float) -> tuple[list[str], list[tuple[str, str]]]:
    """The pockets, their pieces and labels, and the lines written below the box: what lies
    on top under the lid, and what a pocket too small for its label holds (its number)."""
    bought = {q.part for q in layout.placements if q.part not in kit.part_names}
    pockets = {pocket.name: pocket for pocket in layout.pockets}
    names = [pocket.name for pocket in layout.pockets]
    drawn: list[str] = []
    labels: list[str] = []
    below: list[tuple[str, str]] = []
    for pocket in layout.pockets:
        on_top = [q for q in layout.placements if q.on_top] if pocket.on_top else []
        what = contents_line(kit, on_top or held_by(layout, pocket))
        if pocket.on_top:
            style = f'fill="none" stroke="{ON_TOP}" stroke-width="0.45" stroke-dasharray="1.6 0.8"'
            drawn.append(_polygon(pocket.points, style, f"on top, under the lid: {what}"))
            continue
        drawn.append(
            _polygon(pocket.points, f'fill="{POCKET}" stroke="{BOX}" stroke-width="0.3"', what)
        )
        name = pocket_label(pocket.name, names)
        shown = _label(pocket, name, what, size)
        if shown is None:  # a number inside, its words below the box
            number = str(len([b for b in below if b[1] == NUMBERED]) + 1)
            x0, y0, x1, y1 = pocket.bounds_2d
            small = min(size, (y1 - y0) * 0.8, (x1 - x0) / (len(number) * CHAR_EM))
            bold = 'font-weight="bold" fill="#102040"'
            shown = [_text((x0 + x1) / 2, (y0 + y1) / 2, number, small, bold)]
            below.append((f"{number}: {name}, {what}", NUMBERED))
        labels += shown
    for placed in layout.placements:
        if placed.on_top:
            continue
        colour = BOUGHT if placed.part in bought else PIECE
        title = f"{placed.name.replace('_', ' ')} ({piece_words(kit, placed.part)})"
        drawn.append(_piece(placed, pockets.get(placed.unit), colour, title))
    on_top = [q for q in layout.placements if q.on_top]
    if on_top:  # below the drawing: over the pockets it would hide their labels
        words = f"dashed: on top, under the lid: {contents_line(kit, on_top)}"
        below.insert(0, (words, f'fill="{ON_TOP}" font-style="italic"'))
    return drawn + labels, below


def _label(pocket: Pocket, name: str, what: str, size: float) -> list[str] | None:
    """The pocket's name over what it holds (over up to three lines), each as large as fits
    across the pocket; the name alone where what it holds does not fit; None when not even
    the name does."""
    x0, y0, x1, y1 = pocket.bounds_2d
    room, high = (x1 - x0) - size * 0.4, (y1 - y0) - size * 0.4  # clear of the edges
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    name_size = size * _fits(name, room, size)
    if name_size < size * SMALLEST or high < name_size * LINE:
        return None
    # a halo of the pocket's colour keeps the words legible over the pieces' outlines, wide
    # enough to close the gaps between words (a line seen through one read as a comma)
    halo = f'fill="#102040" stroke="{POCKET}" stroke-width="{size * 0.4:.2f}" paint-order="stroke"'
    heading = f'font-weight="bold" {halo}'
    lines, what_size = _wrapped(what, room, high / LINE - name_size, size)
    if not lines:
        return [_text(cx, cy, name, name_size, heading)]
    top = cy + (name_size + what_size * len(lines)) * LINE / 2  # the block, centred
    shown = [_text(cx, top - name_size * LINE / 2, name, name_size, heading)]
    for row, line in enumerate(lines):
        y = top - name_size * LINE - what_size * LINE * (row + 0.5)
        shown.append(_text(cx, y, line, what_size, halo))
    return shown


def _wrapped(what: str, room: float, high: float, size: float) -> tuple[list[str], float]:
    """What a pocket holds, broken after its commas into the fewest lines (up to three) at
    the largest letters that fit `room` across and `high` (in letters) down: ([], 0) when
    none is at least SMALLEST of the drawing's letters."""
    items = what.split(", ")
    best: tuple[list[str], float] = ([], 0.0)
    for count in range(1, min(3, len(items)) + 1):
        for cuts in combinations(range(1, len(items)), count - 1):
            edges = [0, *cuts, len(items)]
            ends = pairwise(edges)
            lines = [", ".join(items[a:b]) + ("," * (b < len(items))) for a, b in ends]
            letters = size * min(_fits(line, room, size) for line in lines)
            letters = min(letters, high / count)
            if letters >= size * SMALLEST and letters > best[1] * 1.05:
                best = (lines, letters)
    return best


def _notches(layout: Layout, size: float) -> list[str]:
    return [
        f'<circle cx="{n.centre[0]:.2f}" cy="{-n.centre[1]:.2f}" r="{size * 0.35:.2f}" '
        f'fill="{BOUGHT}"><title>finger notch</title></circle>'
        for n in layout.notches
    ]


def _margins(layout: Layout, size: float) -> list[str]:
    """The spare room: along the length right of the box, along the width above it, depth
    and the tightest corner below; the one that limits the layout in red."""
    box, margins, limit = layout.box, layout.margins, layout.limited_by
    out = []

    def style(axis: str) -> str:
        red = axis == limit
        return f'fill="{LIMIT if red else "#333"}"' + (' font-weight="bold"' if red else "")

    def words(axis: str) -> str:
        mark = " (limits)" if axis == limit else ""
        return f"{AXIS_WORDS[axis]} +{margins.get(axis, 0):.1f} mm{mark}"

    half_l, half_w = box.length / 2, box.width / 2
    out.append(_text(0, half_w + size * 2.6, "spare room: " + words("y"), size, style("y")))
    turned = f'transform="translate({half_l + size * 2.4:.2f} 0) rotate(90)"'
    out.append(
        f'<text {turned} font-size="{size:.2f}" text-anchor="middle" '
        f'dominant-baseline="middle" {style("x")}>{escape(words("x"))}</text>'
    )
    below = f"{words('z')}, {words('corner')}"
    out.append(
        _text(0, -half_w - size * 2.6, below, size, style("z" if limit == "z" else "corner"))
    )
    edge = f'stroke="{LIMIT}" stroke-width="{size * 0.3:.2f}" stroke-linecap="round"'
    ix, iy = box.inner_length / 2, box.inner_width / 2
    if limit == "x":
        for x in (-ix, ix):
            out.append(f'<line x1="{x:.2f}" y1="{-iy:.2f}" x2="{x:.2f}" y2="{iy:.2f}" {edge}/>')
    elif limit == "y":
        for y in (-iy, iy):
            out.append(f'<line x1="{-ix:.2f}" y1="{y:.2f}" x2="{ix:.2f}" y2="{y:.2f}" {edge}/>')
    elif limit == "corner":
        r = box.inner_radius
        for sx in (-1, 1):
            for sy in (-1, 1):
                cx, cy = sx * (ix - r * 0.3), sy * (iy - r * 0.3)
                out.append(
                    f'<circle cx="{cx:.2f}" cy="{-cy:.2f}" r="{max(r * 0.5, size):.2f}" '
                    f'fill="none" {edge}/>'
                )
    return out

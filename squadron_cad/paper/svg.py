"""SVG files, written with lxml: one per page, the untiled mat, and laser / cutter files.

Page SVGs hold the same items as the PDF page, in the same order (tests compare them),
each path tagged with its role (`class`) and layer (`data-layer`). Units are millimetres:
the viewBox equals the page size, so 1 user unit = 1 mm in any editor.

Laser and cutting-plotter files hold one piece at 1:1 in two Inkscape layers, in the
colours laser software maps by convention: `cut` as red (#ff0000) hairlines (0.025 mm,
0.001 in), `engrave` as black (#000000) filled shapes. Print-only ink is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lxml import etree
from shapely.geometry import LineString
from shapely.ops import unary_union

from squadron_cad.paper.drawing import (
    Area,
    Drawing,
    Item,
    Label,
    Point,
    Stroke,
    area_geometry,
    rings_of,
)
from squadron_cad.paper.metrics import SVG_FONT_FAMILY
from squadron_cad.render.atomic import write_bytes

SVG_NS = "http://www.w3.org/2000/svg"
INKSCAPE_NS = "http://www.inkscape.org/namespaces/inkscape"
CUT_COLOUR = "#ff0000"
ENGRAVE_COLOUR = "#000000"
HAIRLINE_MM = 0.025
LASER_BORDER_MM = 2.0


def num(value: float) -> str:
    """4 decimals, as the PDF writes them; no '-0'."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def path_data(rings: Iterable[Iterable[Point]], height: float, close: bool) -> str:
    parts = []
    for ring in rings:
        points = list(ring)
        head = f"M{num(points[0][0])} {num(height - points[0][1])}"
        tail = "".join(f"L{num(x)} {num(height - y)}" for x, y in points[1:])
        parts.append(head + tail + ("Z" if close else ""))
    return "".join(parts)


def _root(
    width: float, height: float, title: str, credit: str, inkscape: bool = False
) -> etree._Element:
    nsmap = {None: SVG_NS, "inkscape": INKSCAPE_NS} if inkscape else {None: SVG_NS}
    root = etree.Element(
        f"{{{SVG_NS}}}svg",
        nsmap=nsmap,
        width=f"{num(width)}mm",
        height=f"{num(height)}mm",
        viewBox=f"0 0 {num(width)} {num(height)}",
        version="1.1",
    )
    etree.SubElement(root, f"{{{SVG_NS}}}title").text = title
    etree.SubElement(root, f"{{{SVG_NS}}}desc").text = credit  # kept by every editor, not drawn
    return root


def _element(parent: etree._Element, item: Item, height: float) -> None:
    common = {"class": item.tag or "item", "data-layer": item.layer}
    if isinstance(item, Area):
        attrs = {
            "d": path_data(item.rings, height, close=True),
            "fill": item.fill or "none",
            "fill-rule": "evenodd",
        }
        if item.stroke:
            attrs |= {"stroke": item.stroke, "stroke-width": num(item.stroke_mm)}
        etree.SubElement(parent, f"{{{SVG_NS}}}path", attrs | common)
    elif isinstance(item, Stroke):
        attrs = {
            "d": path_data([item.points], height, close=item.closed),
            "fill": "none",
            "stroke": item.colour,
            "stroke-width": num(item.width_mm),
            "stroke-linecap": "round" if item.round_caps else "butt",
            "stroke-linejoin": "round",
        }
        if item.dash_mm:
            attrs["stroke-dasharray"] = " ".join(num(d) for d in item.dash_mm)
        etree.SubElement(parent, f"{{{SVG_NS}}}path", attrs | common)
    else:
        _text(parent, item, height, common)


def _text(parent: etree._Element, item: Label, height: float, common: dict[str, str]) -> None:
    x, y = num(item.at[0]), num(height - item.at[1])
    attrs = {
        "x": x,
        "y": y,
        "font-family": SVG_FONT_FAMILY,
        "font-size": num(item.size_mm),
        "text-anchor": item.anchor,
        "fill": item.colour,
    }
    if item.bold:
        attrs["font-weight"] = "bold"
    if item.angle_deg:
        attrs["transform"] = f"rotate({num(-item.angle_deg)} {x} {y})"
    etree.SubElement(parent, f"{{{SVG_NS}}}text", attrs | common).text = item.text


def page_svg(page: Drawing, width: float, height: float, title: str, credit: str) -> bytes:
    root = _root(width, height, title, credit)
    paths = [item for item in page.items if not isinstance(item, Label)]
    labels = [item for item in page.items if isinstance(item, Label)]
    for item in paths + labels:  # text over the paths, as in the PDF
        _element(root, item, height)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)


def write_page_svg(
    path: Path, page: Drawing, width: float, height: float, title: str, credit: str
) -> None:
    write_bytes(path, page_svg(page, width, height, title, credit))


def whole_svg(picture: Drawing, title: str, credit: str, border_mm: float = 5.0) -> bytes:
    """An untiled drawing at 1:1 on a canvas just large enough for it."""
    x0, y0, x1, y1 = picture.bounds()
    moved = picture.moved(border_mm - x0, border_mm - y0)
    return page_svg(moved, x1 - x0 + 2 * border_mm, y1 - y0 + 2 * border_mm, title, credit)


# ---- laser and cutting plotters --------------------------------------------------------


def laser_svg(piece: Drawing, title: str, credit: str) -> bytes:
    """One piece at 1:1: a red hairline cut layer and a black engrave layer."""
    cut, engrave = laser_layers(piece)
    x0, y0, x1, y1 = piece.on_layer("cut", "engrave").bounds()
    dx, dy = LASER_BORDER_MM - x0, LASER_BORDER_MM - y0
    width, height = x1 - x0 + 2 * LASER_BORDER_MM, y1 - y0 + 2 * LASER_BORDER_MM
    root = _root(width, height, title, credit, inkscape=True)
    for name, rings, is_cut in (("cut", cut, True), ("engrave", engrave, False)):
        group = etree.SubElement(
            root,
            f"{{{SVG_NS}}}g",
            {
                "id": name,
                f"{{{INKSCAPE_NS}}}groupmode": "layer",
                f"{{{INKSCAPE_NS}}}label": name,
            },
        )
        moved = [[(x + dx, y + dy) for x, y in ring] for ring in rings]
        if not moved:
            continue
        attrs = (
            {"fill": "none", "stroke": CUT_COLOUR, "stroke-width": num(HAIRLINE_MM)}
            if is_cut
            else {"fill": ENGRAVE_COLOUR, "fill-rule": "evenodd", "stroke": "none"}
        )
        etree.SubElement(
            group, f"{{{SVG_NS}}}path", {"d": path_data(moved, height, close=True)} | attrs
        )
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)


def laser_layers(piece: Drawing) -> tuple[list[tuple[Point, ...]], list[tuple[Point, ...]]]:
    """Rings to cut along, and the rings of the region to engrave (strokes made solid)."""
    cut: list[tuple[Point, ...]] = []
    for item in piece.on_layer("cut").items:
        if isinstance(item, Area):
            cut.extend(item.rings)
        elif isinstance(item, Stroke):
            cut.append(item.points)
    shapes = []
    for item in piece.on_layer("engrave").items:
        if isinstance(item, Area):
            shapes.append(area_geometry(item))
        elif isinstance(item, Stroke):
            shapes.append(LineString(item.points).buffer(item.width_mm / 2, quad_segs=8))
    engrave = list(rings_of(unary_union(shapes))) if shapes else []
    return cut, engrave

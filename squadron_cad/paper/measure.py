"""Read the written files back: every painted path of a PDF page and of an SVG page.

The figures the paper command reports are measured here, on the files themselves, not on
the drawing that produced them. PDF pages are read with pypdf: the content stream's path
operators are replayed through the current transformation matrix into millimetres (page
frame, y up). SVG pages are read with lxml. Text is skipped in both, so the n-th path of a
PDF page is the n-th path of its SVG, where `class` names the path's role.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from pypdf import PdfReader
from pypdf.generic import ContentStream

from squadron_cad.paper.drawing import Point

MM_PER_PT = 25.4 / 72
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
PAINT = {"S", "s", "f", "F", "f*", "B", "B*", "b", "b*"}


@dataclass(frozen=True)
class Path2D:
    """One painted path: its subpaths (lists of points, mm), its role and layer if known."""

    subpaths: tuple[tuple[Point, ...], ...]
    tag: str = ""
    layer: str = ""
    closed: bool = False  # its subpaths are closed (PDF `h`, SVG `Z`)

    @property
    def points(self) -> list[Point]:
        return [p for sub in self.subpaths for p in sub]

    def bounds(self) -> tuple[float, float, float, float]:
        xs = [x for x, _ in self.points]
        ys = [y for _, y in self.points]
        return (min(xs), min(ys), max(xs), max(ys))


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    """m then n (PDF's row-vector convention: m x n)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _apply(m: Matrix, x: float, y: float) -> Point:
    a, b, c, d, e, f = m
    return ((a * x + c * y + e) * MM_PER_PT, (b * x + d * y + f) * MM_PER_PT)


def pdf_paths(reader: PdfReader, page_index: int) -> list[Path2D]:
    """Every painted path of a page, in drawing order, in mm."""
    page = reader.pages[page_index]
    stream = ContentStream(page.get_contents(), reader)
    ctm, stack = IDENTITY, []
    subpaths: list[list[Point]] = []
    closed = False
    found: list[Path2D] = []
    for operands, operator in stream.operations:
        op = operator.decode("latin-1")
        if op == "q":
            stack.append(ctm)
        elif op == "Q":
            ctm = stack.pop()
        elif op == "cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            ctm = _multiply((a, b, c, d, e, f), ctm)
        elif op == "m":
            subpaths.append([_apply(ctm, float(operands[0]), float(operands[1]))])
        elif op == "l":
            subpaths[-1].append(_apply(ctm, float(operands[0]), float(operands[1])))
        elif op == "re":
            x, y, w, h = (float(v) for v in operands)
            corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
            subpaths.append([_apply(ctm, px, py) for px, py in corners])
        elif op == "h":
            closed = True
        elif op in PAINT:
            closed = closed or op in {"s", "b", "b*", "f", "F", "f*", "B", "B*"}
            found.append(Path2D(tuple(tuple(sub) for sub in subpaths if sub), closed=closed))
            subpaths, closed = [], False
        elif op == "n":
            subpaths, closed = [], False
    return found


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")


def svg_paths(svg_file: Path) -> tuple[list[Path2D], float]:
    """Every <path> of an SVG page with its class and layer, in mm, y up; and the height."""
    root = etree.parse(str(svg_file)).getroot()
    height = float(root.get("viewBox").split()[3])
    found = []
    for element in root.iter("{http://www.w3.org/2000/svg}path"):
        data = element.get("d")
        found.append(
            Path2D(
                parse_path_data(data, height),
                element.get("class", ""),
                element.get("data-layer", ""),
                closed="Z" in data or element.get("fill", "none") != "none",
            )
        )
    return found, height


def parse_path_data(data: str, height: float) -> tuple[tuple[Point, ...], ...]:
    """Our own path data: absolute M and L commands, Z to close."""
    subpaths: list[list[Point]] = []
    for command, args in re.findall(r"([MLZ])([^MLZ]*)", data):
        if command == "Z":
            continue
        values = [float(v) for v in _NUMBER.findall(args)]
        point = (values[0], height - values[1])
        if command == "M":
            subpaths.append([point])
        else:
            subpaths[-1].append(point)
    return tuple(tuple(sub) for sub in subpaths)


def tagged_pdf_paths(pdf_file: Path, svg_files: list[Path]) -> list[list[Path2D]]:
    """Each PDF page's paths, named by the matching SVG page's classes and layers.

    Raises ValueError when a page's PDF and SVG do not hold the same number of paths or
    their points differ by more than 0.001 mm: the two files would not be one drawing.
    """
    reader = PdfReader(str(pdf_file))
    if len(reader.pages) != len(svg_files):
        raise ValueError(f"{len(reader.pages)} PDF pages but {len(svg_files)} SVG pages")
    pages = []
    for index, svg_file in enumerate(svg_files):
        in_pdf = pdf_paths(reader, index)
        in_svg, _height = svg_paths(svg_file)
        if len(in_pdf) != len(in_svg):
            raise ValueError(f"page {index + 1}: {len(in_pdf)} PDF paths, {len(in_svg)} in SVG")
        named = []
        for from_pdf, from_svg in zip(in_pdf, in_svg, strict=True):
            worst = max_point_gap(from_pdf, from_svg)
            if worst > 0.001:
                raise ValueError(f"page {index + 1}: a {from_svg.tag} path is {worst:.4f} mm off")
            if from_pdf.closed != from_svg.closed:
                raise ValueError(f"page {index + 1}: a {from_svg.tag} path is closed in one file")
            named.append(Path2D(from_pdf.subpaths, from_svg.tag, from_svg.layer, from_pdf.closed))
        pages.append(named)
    return pages


def max_point_gap(a: Path2D, b: Path2D) -> float:
    pa, pb = a.points, b.points
    if len(pa) != len(pb):
        return math.inf
    return max((math.dist(p, q) for p, q in zip(pa, pb, strict=True)), default=0.0)


def polyline_length(points: list[Point]) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points))

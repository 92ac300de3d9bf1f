"""Tests for our stroke font (geometry.glyphs); Squadron Leader's plane silhouette:
tests/unit/kits/squadron_leader/test_plane_silhouette.py."""

import itertools
import math
import re

import pytest

from squadron_cad.geometry.glyphs import DEFAULT_SPACING_EM, GLYPHS, Glyph, Stroke, layout_text

REQUIRED_KEYS = set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") | set(" -./:+'")
DIGITS = "0123456789"
EPS = 1e-9

Segment = tuple[tuple[float, float], tuple[float, float]]


def _segments(glyph: Glyph) -> list[Segment]:
    return [(a, b) for stroke in glyph.strokes for a, b in itertools.pairwise(stroke)]


def _seg_distance(s: Segment, t: Segment) -> float:
    from shapely.geometry import LineString

    return LineString(s).distance(LineString(t))


def _direction(s: Segment) -> tuple[float, float]:
    (x0, y0), (x1, y1) = s
    length = math.hypot(x1 - x0, y1 - y0)
    return (x1 - x0) / length, (y1 - y0) / length


def _projections_overlap(s: Segment, t: Segment) -> bool:
    """Whether the two (near-parallel) segments lie side by side along s's direction."""
    dx, dy = _direction(s)
    ps = sorted(x * dx + y * dy for x, y in s)
    pt = sorted(x * dx + y * dy for x, y in t)
    return min(ps[1], pt[1]) - max(ps[0], pt[0]) > EPS


def test_all_required_keys_present() -> None:
    assert set(GLYPHS) >= REQUIRED_KEYS


@pytest.mark.parametrize("key", sorted(GLYPHS))
def test_strokes_are_polylines_inside_glyph_box(key: str) -> None:
    glyph = GLYPHS[key]
    assert glyph.advance > 0
    for stroke in glyph.strokes:
        assert len(stroke) >= 2
        for x, y in stroke:
            assert -EPS <= x <= glyph.advance + EPS, (key, x)
            assert -EPS <= y <= 1 + EPS, (key, y)


@pytest.mark.parametrize("key", sorted(GLYPHS))
def test_no_zero_length_segments(key: str) -> None:
    for (x0, y0), (x1, y1) in _segments(GLYPHS[key]):
        assert math.hypot(x1 - x0, y1 - y0) > 1e-6, key


@pytest.mark.parametrize("key", sorted(set(GLYPHS) - {"1", " "}))
def test_ink_touches_both_box_edges(key: str) -> None:
    # Why: layout_text's width is box based; this makes it equal the ink extent too.
    xs = [x for stroke in GLYPHS[key].strokes for x, _ in stroke]
    assert min(xs) == pytest.approx(0.0)
    assert max(xs) == pytest.approx(GLYPHS[key].advance)


def test_digits_are_tabular() -> None:
    advances = {GLYPHS[d].advance for d in DIGITS}
    assert len(advances) == 1
    assert advances.pop() == pytest.approx(0.6, abs=0.05)


def test_letter_widths() -> None:
    for key in "ABCDEFGHJKLNOPRSTUVXYZ":
        assert 0.5 <= GLYPHS[key].advance <= 0.85, key
    assert GLYPHS["M"].advance > GLYPHS["N"].advance
    assert GLYPHS["W"].advance > GLYPHS["V"].advance


def test_zero_and_o_differ_in_width() -> None:
    assert GLYPHS["O"].advance - GLYPHS["0"].advance >= 0.1


@pytest.mark.parametrize("key", sorted(GLYPHS))
def test_parallel_strokes_keep_counters_open(key: str) -> None:
    # Near-parallel segments that do not touch and lie side by side must be >= 0.38 em apart.
    segments = _segments(GLYPHS[key])
    for i, s in enumerate(segments):
        for t in segments[i + 1 :]:
            (ax, ay), (bx, by) = _direction(s), _direction(t)
            if abs(ax * by - ay * bx) > math.sin(math.radians(15)):
                continue
            distance = _seg_distance(s, t)
            if distance < EPS or not _projections_overlap(s, t):
                continue
            assert distance >= 0.38 - EPS, (key, s, t, distance)


def test_font_is_small() -> None:
    total = sum(len(_segments(g)) for g in GLYPHS.values())
    assert total <= 220


def _advances(text: str) -> list[float]:
    return [GLYPHS[c.upper()].advance for c in text]


@pytest.mark.parametrize("text", ["1", "11", "SQUADRON LEADER", "12:30", "a+b", " X "])
@pytest.mark.parametrize("spacing", [0.0, 0.25, 0.4])
def test_layout_width_is_advances_plus_inner_spacing(text: str, spacing: float) -> None:
    _, width = layout_text(text, spacing)
    expected = sum(_advances(text)) + spacing * (len(text) - 1)
    assert width == pytest.approx(expected)


def test_layout_width_of_11() -> None:
    _, width = layout_text("11", 0.25)
    assert width == pytest.approx(2 * GLYPHS["1"].advance + 0.25)


def test_layout_default_spacing() -> None:
    _, width = layout_text("HH")
    assert width == pytest.approx(2 * GLYPHS["H"].advance + DEFAULT_SPACING_EM)


def test_layout_empty() -> None:
    assert layout_text("") == ((), 0.0)


def test_layout_places_glyphs_at_pen_positions() -> None:
    spacing = 0.3
    strokes, width = layout_text("HI", spacing)
    h, i = GLYPHS["H"], GLYPHS["I"]
    assert len(strokes) == len(h.strokes) + len(i.strokes)
    offset = h.advance + spacing

    def shifted(stroke: Stroke) -> Stroke:
        return tuple((x + offset, y) for x, y in stroke)

    assert strokes[: len(h.strokes)] == h.strokes
    assert strokes[len(h.strokes) :] == tuple(shifted(s) for s in i.strokes)
    xs = [x for s in strokes for x, _ in s]
    assert min(xs) == pytest.approx(0.0)
    assert max(xs) == pytest.approx(width)  # ink ends exactly at the returned width


def test_layout_lowercase_maps_to_uppercase() -> None:
    assert layout_text("squadron 7") == layout_text("SQUADRON 7")


@pytest.mark.parametrize("bad", ["#", "é", "?"])
def test_layout_unknown_character_names_it(bad: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        layout_text(f"AB{bad}C")

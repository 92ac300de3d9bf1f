"""The inch range ruler (16 inches in four sections, the ruler joint component's snap
joint) and the rigid 8-inch movement gauge.

Frames: x along the ruler from its zero end, y across (centred: the joint component
measures sections centred on y = 0), bed at z = 0. Ticks are cut from the
+y edge at every inch; a tick on a section seam is cut half on each section, so the seam
is the mark. Each label sits just before its tick, clear of the seams.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solid2 import linear_extrude, translate
from solid2.core.object_base import OpenSCADObject

from squadron_cad.components.ruler_joint.shape import joint_shape, jointed_section
from squadron_cad.geometry.glyphs import layout_text
from squadron_cad.geometry.shapes import centred_text, text
from squadron_cad.kits.squadrons import constants
from squadron_cad.kits.squadrons.parts.common import bar, engrave

LABEL_GAP_MM = 1.0  # a label ends this far before its tick


def _tick(x: Any, width: Any, half: Any, length: Any) -> OpenSCADObject:
    """A tick cut from the +y edge, centred on x, running out past the edge."""
    return bar(x - width / 2, half - length, x + width / 2, half + 1)


@dataclass(frozen=True)
class TickLabel:
    """A label's stroke text and where its ink box's lower-left corner sits."""

    text: str
    left: Any
    bottom: Any
    height: Any
    width: Any  # ink width, strokes included


def tick_label(label: str, tick_x: Any, tick_width: Any, top_y: Any, height: Any, stroke: Any):
    """Stroke text ending LABEL_GAP_MM before the tick, its top at top_y."""
    width = layout_text(label)[1] * (height - stroke) + stroke  # as shapes.text measures it
    return TickLabel(label, tick_x - tick_width / 2 - LABEL_GAP_MM - width, top_y - height,
                     height, width)  # fmt: skip


def _label(mark: TickLabel, stroke: Any) -> OpenSCADObject:
    shape, _width = text(mark.text, mark.height, stroke)
    return translate([mark.left, mark.bottom])(shape)


def section_joints(index: int) -> tuple[bool, bool]:
    """Does section `index` (1..RULER_SECTIONS) carry a tab at its far end, a slot at 0?"""
    return index < constants.RULER_SECTIONS, index > 1


def inches_on_section(index: int) -> range:
    """The whole inches whose tick (or half tick) lies on this section."""
    per = constants.RULER_LENGTH_IN // constants.RULER_SECTIONS
    return range((index - 1) * per, index * per + 1)


def section_first_inch(index: int) -> int:
    return (index - 1) * constants.RULER_LENGTH_IN // constants.RULER_SECTIONS


def section_ticks(index: int) -> list[tuple[int, Any, bool]]:
    """(inch, x on the section, labelled) of each tick on section `index`; the ruler's two
    ends are its zero and its 16, not ticks."""
    first = section_first_inch(index)
    return [
        (inch, (inch - first) * constants.INCH_MM, inch in constants.RULER_LABELS_IN)
        for inch in inches_on_section(index)
        if inch not in (0, constants.RULER_LENGTH_IN)
    ]


def section_labels(p: Any, index: int) -> list[TickLabel]:
    """The labels on section `index`, each just before its tick."""
    r = p.ruler
    length, half = p.ruler_section_mm, r.width_mm / 2
    first = section_first_inch(index)
    labels = []
    for inch in constants.RULER_LABELS_IN:
        x = (inch - first) * constants.INCH_MM
        if 0 < x <= float(length) + 1e-6:
            labels.append(
                tick_label(str(inch), x, r.mark_width_mm, half - r.tick_length_mm - 1,
                           r.numeral_height_mm, p.text.stroke_mm)
            )  # fmt: skip
    return labels


def build_section(design: Any, index: int) -> OpenSCADObject:
    p = design.params
    r = p.ruler
    length, half = p.ruler_section_mm, r.width_mm / 2
    outline = bar(0, -half, length, half)
    has_tab, has_slot = section_joints(index)
    shape = joint_shape(r)  # the sectioned ruler's joint: bears on its shoulders, snaps shut
    body = jointed_section(outline, r, shape, length, has_tab, has_slot)
    ticks = []
    for _inch, x, labelled in section_ticks(index):
        ticks.append(_tick(x, r.mark_width_mm, half, r.tick_length_mm))
        if labelled:
            ticks.append(_tick(x, r.mark_width_mm, half, r.label_tick_length_mm))
    labels = [_label(mark, p.text.stroke_mm) for mark in section_labels(p, index)]
    return engrave(body, r.thickness_mm, [(r.mark_depth_mm, ticks), (p.text.depth_mm, labels)])


def section_builder(index: int) -> Any:
    def build(design: Any) -> OpenSCADObject:
        return build_section(design, index)

    build.__name__ = f"build_range_ruler_{index}"
    return build


def gauge_word_spans(p: Any) -> list[tuple[str, float, float, float]]:
    """(word, its tick's x, ink from x, ink to x) of each word along the gauge's foot, one
    line each (params.words_line_y)."""
    spans = []
    for inch, word in constants.GAUGE_WORDS:
        _, width = text(word, p.gauge.word_height_mm, p.text.stroke_mm)
        x = inch * constants.INCH_MM
        spans.append((word, x, float(x - width / 2), float(x + width / 2)))
    return spans


def gauge_ticks() -> list[tuple[int, Any, bool]]:
    """(inch, x, labelled) of each tick along the gauge; its ends are its 0 and its 8."""
    labelled = dict(constants.GAUGE_LABELS)
    return [
        (inch, inch * constants.INCH_MM, inch in labelled)
        for inch in range(1, constants.GAUGE_LENGTH_IN)
    ]


def gauge_labels(p: Any) -> list[TickLabel]:
    g = p.gauge
    top = g.width_mm / 2 - g.tick_length_mm - 1
    mark = p.ruler.mark_width_mm
    return [
        tick_label(
            label, inch * constants.INCH_MM, mark, top, g.numeral_height_mm, p.text.stroke_mm
        )
        for inch, label in constants.GAUGE_LABELS
    ]


def gauge_word_centres(p: Any) -> list[tuple[str, Any, Any]]:
    """(word, centre x, centre y) of each word, centred under its tick, a line each."""
    return [
        (word, inch * constants.INCH_MM, p.words_line_y(line))
        for line, (inch, word) in enumerate(constants.GAUGE_WORDS)  # a line each (words_line_y)
    ]


def build_gauge(design: Any) -> OpenSCADObject:
    """8 inches: ticks every inch, 2 (Advance, Evasion), +3 (Boost), 6, 7 and 8 labelled;
    the words ADV/EVA and BOOST +3 on two lines along the foot, each centred under its
    tick."""
    p = design.params
    g = p.gauge
    length, half = constants.GAUGE_LENGTH_IN * constants.INCH_MM, g.width_mm / 2
    body = linear_extrude(height=g.thickness_mm)(bar(0, -half, length, half))
    mark = p.ruler.mark_width_mm
    ticks = []
    for _inch, x, labelled in gauge_ticks():
        ticks.append(_tick(x, mark, half, g.tick_length_mm))
        if labelled:
            ticks.append(_tick(x, mark, half, g.label_tick_length_mm))
    marks = [_label(label, p.text.stroke_mm) for label in gauge_labels(p)]
    marks += [
        translate([x, y])(centred_text(word, g.word_height_mm, p.text.stroke_mm))
        for word, x, y in gauge_word_centres(p)  # each centred under the tick it names
    ]
    return engrave(body, g.thickness_mm, [(p.ruler.mark_depth_mm, ticks), (p.text.depth_mm, marks)])

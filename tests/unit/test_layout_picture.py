"""The layout picture is drawn once per layout and tin; the cache never serves a stale one
(the toy kit's tiles in their tray)."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.fit import layout_io
from squadron_cad.fit.layout import Layout
from squadron_cad.kit import Kit, kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline import layout_files
from squadron_cad.render.cache import RenderCache
from squadron_cad.resolve import resolve


@pytest.fixture(autouse=True, scope="module")
def _toy(toy_kit: Kit) -> None:
    """Every test here lays out the toy kit."""


def _layout(overrides: list[str]) -> tuple[Layout, KitParamsBase]:
    params = resolve(overrides=overrides, kit="toy")
    return kit_of(params).design(params).layout, params


def test_a_parameter_the_layout_ignores_keeps_the_digest() -> None:
    layout, params = _layout([])
    same_layout, other_params = _layout(["tile.mark_depth_mm=1.0"])  # a groove: no outline
    assert layout_io.layout_digest(layout, params) == layout_io.layout_digest(
        same_layout, other_params
    )


@pytest.mark.parametrize("change", ["tile.width_mm=22", "tin.inner_length_mm=90"])
def test_a_changed_layout_or_tin_changes_the_digest(change: str) -> None:
    layout, params = _layout([])
    other, other_params = _layout([change])
    assert layout_io.layout_digest(layout, params) != layout_io.layout_digest(other, other_params)


def test_an_unchanged_layout_is_not_drawn_again(tmp_path: Path, monkeypatch) -> None:
    layout, params = _layout([])
    cache = RenderCache(tmp_path / "cache")
    first = layout_files.layout_picture(layout, params, tmp_path / "first.png", cache)

    def draw_again(*_args: object) -> None:
        raise AssertionError("drawn although the cache holds this picture")

    monkeypatch.setattr(layout_io, "layout_png", draw_again)
    second = layout_files.layout_picture(layout, params, tmp_path / "second.png", cache)
    assert second.read_bytes() == first.read_bytes()
    assert first.read_bytes().startswith(b"\x89PNG")


def test_the_early_picture_is_the_new_tins_not_the_cached_one(tmp_path: Path) -> None:
    """A build draws the picture in a thread before its renders, with a cache that holds
    the previous tin's: it must come back as the new tin's picture, and be kept."""
    cache = RenderCache(tmp_path / "cache")
    layout, params = _layout([])
    old = layout_files.picture_png(layout, params, cache)
    params = resolve(overrides=["tin.inner_length_mm=90"], kit="toy")
    design = kit_of(params).design(params)
    with layout_files.early_picture(design, cache, wanted=True) as drawing:
        assert drawing is not None
        new = drawing.result()
    assert new != old
    assert new == layout_io.layout_png(design.layout, params)  # drawn anew, not a stale one
    assert layout_files.picture_png(design.layout, params, cache) == new


def test_no_early_picture_when_not_wanted(tmp_path: Path) -> None:
    params = resolve(kit="toy")
    design = kit_of(params).design(params)
    cache = RenderCache(tmp_path / "cache")
    with layout_files.early_picture(design, cache, wanted=False) as drawing:
        assert drawing is None

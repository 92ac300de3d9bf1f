"""The layout picture is drawn once per layout and tin; the cache never serves a stale one."""

from __future__ import annotations

from pathlib import Path

import pytest

from squadron_cad.fit import layout_io
from squadron_cad.fit.layout import Layout
from squadron_cad.kit import kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline import layout_files
from squadron_cad.render.cache import RenderCache
from squadron_cad.resolve import resolve


def _layout(overrides: list[str]) -> tuple[Layout, KitParamsBase]:
    params = resolve(overrides=overrides)
    return kit_of(params).design(params).layout, params


def test_a_parameter_the_layout_ignores_keeps_the_digest() -> None:
    layout, params = _layout([])
    same_layout, other_params = _layout(["ruler.joint_clearance_mm=0.2"])
    assert layout_io.layout_digest(layout, params) == layout_io.layout_digest(
        same_layout, other_params
    )


@pytest.mark.parametrize("change", ["token.width_mm=28", "tin.inner_length_mm=120"])
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

"""Squadron Leader's preview scenes: the stack in the template's start notch, and its
marked pieces drawn darker above their raised marks in the packed box."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.kits.squadron_leader import scenes
from squadron_cad.outputs import previews
from squadron_cad.resolve import resolve


def stl(folder: Path, name: str, size: float = 10.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.stl"
    trimesh.creation.box(extents=[size, size, 2]).export(path)
    return path


def test_stack_sits_in_the_start_notch_with_tokens_stacked(tmp_path: Path) -> None:
    params = resolve(kit="squadron-leader")
    for name in ("plane_token", "altitude_token", "template_all"):
        stl(tmp_path, name)
    view = scenes.stack_view(tmp_path, params)
    assert view is not None
    template, *stack = view.items
    assert template.stl.name == "template_all.stl"
    heights = [item.transform[2][3] for item in stack]
    assert heights == [i * params.token.height_mm for i in range(5)]
    assert all(item.transform[0][3] == pytest.approx(-26 / 6) for item in stack)
    assert {item.colour for item in stack} == {params.player_colours[0].hex}


def test_the_plane_tokens_are_drawn_darker_above_their_marks(tmp_path: Path) -> None:
    """A part's accent_from_mm, as the packed box's picture reads it: 4 mm up a token."""
    params = resolve(kit="squadron-leader")
    for name in ("box", "plane_token"):
        stl(tmp_path / "stl", name)
    place = [list(row) for row in previews.translation(0.0, 0.0, 0.0)]
    tokens = [{"name": f"player{n}_plane_token", "stl": "stl/plane_token.stl", "transform": place}
              for n in (1, 2)]  # fmt: skip
    layout = {"box": {"stl": "stl/box.stl", "transform": np.eye(4).tolist()}, "contents": tokens}
    (tmp_path / "layout.json").write_text(json.dumps(layout))
    view = previews.box_view(tmp_path, params)
    assert view is not None
    assert [item.accent_from_z_mm for item in view.items] == [None, 4.0, 4.0]

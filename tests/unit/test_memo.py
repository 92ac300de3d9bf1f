"""What kit checks remember between builds: by the content measured, never stale (how
Squadron Leader's checks use it: tests/unit/kits/squadron_leader/test_checks_memo.py)."""

from __future__ import annotations

from pathlib import Path

import trimesh

from squadron_cad.checks import memo
from squadron_cad.render.cache import RenderCache


def test_a_value_is_computed_once_per_inputs_and_version(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path)
    calls: list[str] = []

    def compute(inputs: str) -> dict[str, str]:
        calls.append(inputs)
        return {"measured": inputs}

    with memo.remembering_in(cache, "v1"):
        for inputs in ("a", "a", "b"):
            value = memo.remember("kind", inputs, lambda i=inputs: compute(i))
            assert value == {"measured": inputs}
    with memo.remembering_in(cache, "v2"):  # changed code: measured again
        memo.remember("kind", "a", lambda: compute("a"))
    memo.remember("kind", "a", lambda: compute("a"))  # outside a build: always computed
    assert calls == ["a", "b", "a", "a"]


def test_the_mesh_digest_follows_the_content() -> None:
    box = trimesh.creation.box(extents=(1, 2, 3))
    assert memo.mesh_digest(box) == memo.mesh_digest(box.copy())
    moved = box.copy()
    moved.apply_translation((0, 0, 0.001))
    assert memo.mesh_digest(moved) != memo.mesh_digest(box)

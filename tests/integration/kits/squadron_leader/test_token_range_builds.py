"""Both ends of token.width_mm's documented range build with the defaults (which follow
the token), every check and every rule's invariant holding on the rendered meshes
(issue 33, item 8): the smallest in the default tin, the largest in a 400 mm tin on a
1000 mm bed. Draft quality, no slicer, pictures or plates: a render costs seconds."""

from __future__ import annotations

import math

import pytest
from helpers import MESHES_ONLY, TEST_JOBS

from squadron_cad.checks.mesh import load_mesh
from squadron_cad.kits.squadron_leader.sections import TokenParams
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

FLATS = math.cos(math.radians(22.5))
BIG_TIN_AND_BED = [
    "tin.inner_length_mm=400",
    "tin.inner_width_mm=400",
    "tin.inner_depth_mm=60",
    "printer.bed_length_mm=1000",
    "printer.bed_width_mm=1000",
]


def ends() -> list[tuple[float, list[str]]]:
    """token.width_mm's documented least and most (its field's bounds)."""
    bounds = {
        name: float(getattr(bound, name))
        for bound in TokenParams.model_fields["width_mm"].metadata
        for name in ("ge", "le")
        if getattr(bound, name, None) is not None
    }
    return [(bounds["ge"], []), (bounds["le"], BIG_TIN_AND_BED)]


@pytest.fixture(scope="module", params=ends(), ids=["smallest", "largest"])
def built(request, tmp_path_factory, shared_cache):
    width, tin = request.param
    params = resolve(overrides=[f"token.width_mm={width:g}", "quality=draft", *tin])
    options = BuildOptions(
        out_dir=tmp_path_factory.mktemp(f"width{width:g}"),
        jobs=TEST_JOBS,
        cache_dir=shared_cache,
        **MESHES_ONLY,
    )
    return width, build(params, options)


def test_every_check_and_invariant_holds(built) -> None:
    _width, report = built
    assert not report.failures, [f.line() for f in report.failures]
    invariants = report.extras["invariants"]
    assert invariants
    assert all(item["ok"] for item in invariants)


def test_the_token_and_the_ruler_are_the_width_asked(built) -> None:
    width, report = built
    stl = {result.spec.name: result.stl for result in report.parts}
    token = load_mesh(stl["altitude_token"]).extents
    assert token[0] == pytest.approx(width * FLATS, abs=0.05)
    ruler = load_mesh(stl["range_ruler_1"]).extents
    assert min(ruler[:2]) == pytest.approx(width / 4, abs=0.05)

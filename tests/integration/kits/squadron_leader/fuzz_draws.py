"""One fuzz draw rendered: a parameter set the models accept, built at draft quality in a tin
that holds any kit drawn, must give meshes that pass every check (per part and across the
kit, the rules' invariants too)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from helpers import TEST_JOBS

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.transaction import build
from squadron_cad.resolve import resolve

# A tin (and a bed for its box) that holds any kit drawn here: the fit has its own tests.
ROOMY_TIN = [
    "tin.inner_length_mm=400",
    "tin.inner_width_mm=300",
    "tin.inner_depth_mm=80",
    "printer.bed_length_mm=450",
    "printer.bed_width_mm=350",
]


def accepted(sets: list[str]) -> SquadronLeaderParams | None:
    """The parameters, or None where the models refuse the draw."""
    try:
        return resolve(overrides=("quality=draft", *ROOMY_TIN, *sets))
    except InputError:
        return None


def renders_clean(params: SquadronLeaderParams, sets: list[str], cache: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="squadron-fuzz-") as work:
        options = BuildOptions(
            out_dir=Path(work) / "kit",  # its staging folder beside it goes with the folder
            jobs=TEST_JOBS,
            slice=False,
            plates=False,
            previews=False,
            cache_dir=cache,  # parts a draw leaves as they were are not rendered twice
        )
        report = build(params, options)
        assert len(report.parts) == len(PARTS)
        failures = [finding.line() for finding in report.failures]
        assert not failures, f"{sets}: {failures}"
        held = [item["ok"] for item in report.extras["invariants"]]
        assert held, sets
        assert all(held), sets

"""The emitted out/scad/<part>.scad files are Customizer-ready and stand on their own.

Each renders in OpenSCAD alone in a folder (no includes, nothing missing), and a
Customizer parameter set on the command line (-D, or a -p/-P parameter set as the
Customizer saves them) changes the part, derived sizes included. The files are wide_kit's
(token width 30, draft), rendered once for the run by `cgal_renders`.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
import trimesh

from squadron_cad.kits.squadron_leader.parts.registry import PARTS
from squadron_cad.render import openscad
from squadron_cad.resolve import resolve

PARAMETER = re.compile(
    r"^(?P<name>\w+) = (?P<value>-?[0-9.e]+);"
    r"(?: // \[(?P<low>-?[0-9.e]+):(?P<step>[0-9.e]+):(?P<high>-?[0-9.e]+)\])?$"
)
FLATS = math.cos(math.radians(22.5))


WIDTH_MM = 30  # wide_kit's token width; the overrides below set the default, 26


@pytest.fixture(scope="module")
def renders(cgal_renders, wide_draft_overrides):
    """Every part's emitted source, as build writes it to out/scad, and its CGAL render."""
    return cgal_renders(wide_draft_overrides)


@pytest.fixture(scope="module")
def scad_dir(renders) -> Path:
    return renders.scad_dir


def run_openscad(scad: Path, target: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    tool = openscad.locate()
    command = [tool.executable, "-o", str(target), "--export-format", "binstl", *extra, scad.name]
    return subprocess.run(
        command, cwd=scad.parent, capture_output=True, text=True, timeout=600, check=False
    )


def complaints(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if re.match(r"^(ERROR|WARNING)", line)]


@pytest.mark.parametrize("name", [spec.name for spec in PARTS])
def test_each_emitted_file_renders_on_its_own(renders, name: str) -> None:
    """The CGAL backend renders the file alone in a temporary folder and refuses any
    ERROR or WARNING in OpenSCAD's log (the render would have failed)."""
    assert renders.backends[name] == "cgal"
    mesh = trimesh.load(renders.stl(name), file_type="stl")
    assert len(mesh.faces) > 0
    assert mesh.is_watertight


def customizer_parameters(text: str) -> list[re.Match[str]]:
    head, found, _hidden = text.partition("/* [Hidden] */")
    assert found, "derived values live under /* [Hidden] */"
    return [m for line in head.splitlines() if (m := PARAMETER.match(line))]


@pytest.mark.parametrize("name", [spec.name for spec in PARTS])
def test_parameters_are_on_top_with_descriptions_and_ranges(scad_dir: Path, name: str) -> None:
    text = (scad_dir / f"{name}.scad").read_text()
    head = text.partition("/* [Hidden] */")[0]
    assert not re.search(r"^\s*(module|function)\b", head, re.M), "parameters before modules"
    lines = head.splitlines()
    parameters = customizer_parameters(text)
    assert parameters, "a part with no Customizer parameters"
    for match in parameters:
        before = lines[lines.index(match.group(0)) - 1]
        assert before.startswith("// "), f"{match['name']} has no description above it"
        assert match["low"] is not None, f"{match['name']} has no [min:step:max] range"
        value, low, high = (Decimal(match[key]) for key in ("value", "low", "high"))
        assert low <= value <= high, match.group(0)
    assert re.search(r"^/\* \[\w[\w ]*\] \*/$", head, re.M), "parameters are grouped"


def test_defaults_lie_on_their_slider_step(scad_dir: Path) -> None:
    off_grid = []
    for path in sorted(scad_dir.glob("*.scad")):
        for match in customizer_parameters(path.read_text()):
            value, low, step = (Decimal(match[key]) for key in ("value", "low", "step"))
            if (value - low) % step:
                off_grid.append(f"{path.stem}: {match.group(0)}")
    assert not off_grid, off_grid


def extents(path: Path) -> list[float]:
    return [float(v) for v in trimesh.load(path, file_type="stl").extents]


def test_a_d_override_changes_the_part(scad_dir: Path, renders, tmp_path: Path) -> None:
    target = tmp_path / "narrow.stl"
    done = run_openscad(scad_dir / "plane_token.scad", target, "-D", "token_width_mm=26")
    assert done.returncode == 0
    assert not complaints(done.stderr)
    base = extents(renders.stl("plane_token"))
    narrow = extents(target)
    assert base[0] == pytest.approx(WIDTH_MM * FLATS, abs=0.02)
    assert narrow[0] == pytest.approx(26 * FLATS, abs=0.02)
    assert narrow[1] == pytest.approx(26 * FLATS, abs=0.02)
    assert narrow[2] == pytest.approx(base[2], abs=1e-6)


def test_derived_sizes_follow_an_override(scad_dir: Path, renders, tmp_path: Path) -> None:
    """template_length_mm (3 token widths) is derived in the hidden section."""
    target = tmp_path / "short.stl"
    done = run_openscad(scad_dir / "template_straight.scad", target, "-D", "token_width_mm=26")
    assert done.returncode == 0
    assert not complaints(done.stderr)
    assert extents(renders.stl("template_straight"))[0] == pytest.approx(90, abs=0.01)
    assert extents(target)[0] == pytest.approx(78, abs=0.01)


def test_a_customizer_parameter_set_applies(scad_dir: Path, tmp_path: Path) -> None:
    """The file the Customizer saves (-p) selects a set (-P): only parameters it parsed."""
    sets = tmp_path / "sets.json"
    payload = {"parameterSets": {"thick": {"token_height_mm": "6"}}, "fileFormatVersion": "1"}
    sets.write_text(json.dumps(payload))
    target = tmp_path / "thick.stl"
    done = run_openscad(scad_dir / "altitude_token.scad", target, "-p", str(sets), "-P", "thick")
    assert done.returncode == 0
    assert not complaints(done.stderr)
    stacking = resolve().stacking
    assert extents(target)[2] == pytest.approx(6 + stacking.peg_height_mm, abs=1e-4)

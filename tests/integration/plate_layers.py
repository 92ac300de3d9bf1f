"""One filament change per plate, proven on the slicer's layers: a plate sliced by
PrusaSlicer as a single-extruder printer, read back layer by layer."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trimesh

from squadron_cad.checks import meshgeo, slicer
from squadron_cad.outputs.threemf import read_objects


def gcode_layers(gcode: str) -> list[tuple[float, float, int]]:
    """(top z, height, colour) of every layer the G-code prints: colour 0 the body's,
    1 after the first filament change (M600), and so on."""
    layers: list[list[float]] = []
    changes = 0
    for line in gcode.splitlines():
        if line.startswith(";Z:"):
            layers.append([float(line[3:]), 0.0, changes])
        elif line.startswith(";HEIGHT:") and layers:
            layers[-1][1] = float(line[8:])
        elif line.split(";")[0].strip() == "M600":
            changes += 1
            if layers:
                layers[-1][2] = changes  # it comes before the layer's first extrusion
    return [(z, height, int(colour)) for z, height, colour in layers]


def area_at(mesh: trimesh.Trimesh, z: float) -> float:
    return float(meshgeo.section(mesh, z).area)


def assert_one_change_colours_marks_only(
    plate: Path, summary: dict[str, Any], params: Any, work: Path
) -> None:
    """The 3MF's own colour change (M600) comes where the BOM row says, and on every layer
    (cut at its middle) no piece's body prints in the marks' colour and no mark in the
    body's; the marks do print, in colour. The G-code goes into `work`."""
    exe = shutil.which("prusa-slicer")
    assert exe is not None
    settings = slicer.SliceSettings.from_params(params)
    gcode = work / plate.with_suffix(".gcode").name
    run = subprocess.run(
        [exe, *settings.arguments(), "--output", str(gcode), str(plate)],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "HOME": str(gcode.parent)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    layers = gcode_layers(gcode.read_text())
    change = summary["filament_change_mm"]
    if change is None:
        assert max(colour for _z, _h, colour in layers) == 0, plate.name
        return
    changed = [z for z, _h, colour in layers if colour == 1 and z]
    assert min(changed) == pytest.approx(change), plate.name  # where the BOM says
    assert max(colour for _z, _h, colour in layers) == 1, plate.name  # one change
    for item in read_objects(str(plate)):
        body, marks = (trimesh.Trimesh(v.vertices, v.faces, process=True) for v in item.volumes)
        printed_marks = 0.0
        for z, height, colour in layers:
            cut = z - height / 2  # where the slicer cuts the layer
            wrong = body if colour else marks
            assert area_at(wrong, cut) < 1e-6, (plate.name, item.name, z, colour)
            printed_marks += area_at(marks, cut) if colour else 0.0
        assert printed_marks > 0, (plate.name, item.name)  # the marks print, in colour

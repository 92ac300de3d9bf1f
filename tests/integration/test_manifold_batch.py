"""The WebAssembly Manifold batch, run for real: what it renders, how it fails, and that
it leaves no process and no temporary behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import trimesh
from helpers import TEST_JOBS
from solid2 import cube, difference, polyhedron, translate
from solid2.core.scad_render import scad_render

from squadron_cad.checks.mesh import judge_solid, load_mesh
from squadron_cad.errors import ToolError
from squadron_cad.geometry.shapes import v_prism
from squadron_cad.render import manifold_batch, manifold_probe, node_tools, openscad
from squadron_cad.render.atomic import TEMP_PREFIX
from squadron_cad.render.backends import RenderJob, select_backend
from squadron_cad.render.manifold_batch import BatchJob, WasmOpenScad
from squadron_cad.render.openscad import RenderResult

CUBE = "cube([10, 10, 4]);\n"
SPIN = "function spin(n) = n <= 0 ? 0 : spin(n - 1);\necho(spin(1e9));\ncube(1);\n"


@pytest.fixture(scope="module")
def tool() -> WasmOpenScad:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node or npm is not installed: the Manifold backend cannot run here")
    node_tools.install()
    return manifold_probe.locate()


@pytest.fixture(autouse=True)
def one_process_a_batch() -> Iterator[None]:
    """The session keeps warm node processes (tests/integration/conftest.py); here each
    batch has a process of its own, as a command's run has, unless a test asks (warm)."""
    manifold_batch.keep_warm(0)
    yield
    manifold_batch.keep_warm(TEST_JOBS)


@pytest.fixture
def warm() -> None:
    manifold_batch.keep_warm(1)


def children_running_the_batch() -> list[int]:
    """Our child processes that run the batch script (none once a batch is over)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parent = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid"))
        if int(parent) == os.getpid() and "openscad-batch" in command:
            found.append(int(entry.name))
    return found


def temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{TEMP_PREFIX}*"))


def test_the_probe_finds_openscad_2025_with_manifold(tool: WasmOpenScad) -> None:
    assert tool.openscad_version.startswith("2025.")
    assert "manifold" in tool.identity
    assert tool.package_version == node_tools.pin().version


def test_v_prism_renders_outward_under_manifold(tool: WasmOpenScad, tmp_path: Path) -> None:
    target = tmp_path / "prism.stl"
    job = BatchJob("prism", scad_render(v_prism(10, 2, 3)), target)
    manifold_batch.render_batch(tool, [job], 60)
    solid = judge_solid(load_mesh(target))
    assert solid.accepted
    assert solid.bodies == 1
    assert solid.volume_mm3 == pytest.approx(10 * 2 * 3)


def test_manifold_keeps_a_reversed_polyhedron_that_cgal_mends(
    tool: WasmOpenScad, tmp_path: Path
) -> None:
    """Why the v_prism fix matters: the same inside-out polyhedron in a boolean (cutting a
    cube far away from it), two kernels."""
    params = v_prism(10, 2, 3)._params
    reversed_faces = [list(reversed(face)) for face in params["faces"]]
    inside_out = polyhedron(points=params["points"], faces=reversed_faces)
    source = scad_render(difference()(inside_out, translate([100, 0, 0])(cube(1))))
    target = tmp_path / "reversed.stl"
    manifold_batch.render_batch(tool, [BatchJob("reversed", source, target)], 60)
    assert judge_solid(load_mesh(target)).volume_mm3 == pytest.approx(-60)
    cgal_target = tmp_path / "reversed_cgal.stl"
    openscad.render(openscad.locate(), "reversed", source, cgal_target, 60)
    assert judge_solid(load_mesh(cgal_target)).volume_mm3 == pytest.approx(60)


def test_a_broken_part_fails_alone_in_one_line(tool: WasmOpenScad, tmp_path: Path) -> None:
    jobs = [
        BatchJob("first", CUBE, tmp_path / "first.stl"),
        BatchJob("broken", "cube(", tmp_path / "broken.stl"),
        BatchJob("warned", "cube(size_unknown);", tmp_path / "warned.stl"),
        BatchJob("last", "sphere(3, $fn = 24);", tmp_path / "last.stl"),
    ]
    done: list[RenderResult] = []
    with pytest.raises(ToolError) as caught:
        manifold_batch.render_batch(tool, jobs, 60, on_done=done.append)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("broken: OpenSCAD complained: ERROR: Parser error")
    assert message.endswith("(+1 more failed)")
    assert [result.part for result in done] == ["first", "last"]
    assert all(result.backend == "manifold" for result in done)
    assert trimesh.load_mesh(tmp_path / "first.stl").volume == pytest.approx(400)
    assert not (tmp_path / "broken.stl").exists()
    assert not (tmp_path / "warned.stl").exists()
    assert temporaries(tmp_path) == []
    assert children_running_the_batch() == []


def test_a_stalled_part_is_killed_at_its_timeout(tool: WasmOpenScad, tmp_path: Path) -> None:
    jobs = [
        BatchJob("quick", CUBE, tmp_path / "quick.stl"),
        BatchJob("stalled", SPIN, tmp_path / "stalled.stl"),
    ]
    # a second's limit: the spin burns a core until it is stopped
    with pytest.raises(ToolError, match=r"^stalled: the Manifold backend did not finish within 1 "):
        manifold_batch.render_batch(tool, jobs, 1)
    assert (tmp_path / "quick.stl").is_file()
    assert not (tmp_path / "stalled.stl").exists()
    assert temporaries(tmp_path) == []
    assert children_running_the_batch() == []


def test_ctrl_c_stops_the_batch_and_leaves_nothing(tool: WasmOpenScad, tmp_path: Path) -> None:
    def interrupt(_result: RenderResult) -> None:
        raise KeyboardInterrupt

    jobs = [
        BatchJob("first", CUBE, tmp_path / "first.stl"),
        BatchJob("second", SPIN, tmp_path / "second.stl"),
    ]
    with pytest.raises(KeyboardInterrupt):
        manifold_batch.render_batch(tool, jobs, 60, on_done=interrupt)
    assert not (tmp_path / "second.stl").exists()
    assert temporaries(tmp_path) == []
    assert children_running_the_batch() == []


@pytest.mark.usefixtures("warm")
def test_a_warm_process_renders_one_batch_after_another(tool: WasmOpenScad, tmp_path: Path) -> None:
    """A process that builds more than once (the tests do) keeps node started
    and OpenSCAD's module compiled between batches: the same process renders the next."""
    manifold_batch.render_batch(tool, [BatchJob("first", CUBE, tmp_path / "first.stl")], 60)
    started = children_running_the_batch()
    assert len(started) == 1
    again = [BatchJob("second", "cube(2);", tmp_path / "second.stl")]
    assert manifold_batch.render_batch(tool, again, 60)[0].backend == "manifold"
    assert children_running_the_batch() == started
    assert trimesh.load_mesh(tmp_path / "second.stl").volume == pytest.approx(8)
    manifold_batch.keep_warm(0)
    assert children_running_the_batch() == []


@pytest.mark.usefixtures("warm")
def test_a_warm_process_that_stalls_is_stopped_not_kept(tool: WasmOpenScad, tmp_path: Path) -> None:
    manifold_batch.render_batch(tool, [BatchJob("first", CUBE, tmp_path / "first.stl")], 60)
    started = children_running_the_batch()
    # warm, SPIN's recursion is refused within the timeout; this loop runs 14 s
    loop = "function spin(n, a = 0) = n <= 0 ? a : spin(n - 1, a + 1);\necho(spin(1e8));\n"
    jobs = [BatchJob("quick", CUBE, tmp_path / "q.stl"), BatchJob("stalled", loop, tmp_path / "s")]
    with pytest.raises(ToolError, match=r"^stalled: the Manifold backend did not finish"):
        manifold_batch.render_batch(tool, jobs, 1)
    assert children_running_the_batch() == []
    assert temporaries(tmp_path) == []
    manifold_batch.render_batch(tool, [BatchJob("next", CUBE, tmp_path / "next.stl")], 60)
    assert children_running_the_batch() not in ([], started)  # a new one


def test_a_batch_process_killed_mid_batch_is_named_with_its_signal(
    tool: WasmOpenScad, tmp_path: Path
) -> None:
    def kill_the_batch(_result: RenderResult) -> None:
        for pid in children_running_the_batch():
            os.kill(pid, signal.SIGKILL)

    jobs = [BatchJob("first", CUBE, tmp_path / "1.stl"), BatchJob("second", SPIN, tmp_path / "2")]
    with pytest.raises(ToolError) as caught:
        manifold_batch.render_batch(tool, jobs, 60, on_done=kill_the_batch)
    assert str(caught.value).startswith(
        "second: the Manifold batch process ended early (killed by signal 9): "
    )
    assert children_running_the_batch() == []
    assert temporaries(tmp_path) == []


def test_parallel_batches_return_every_part_in_order(tool: WasmOpenScad, tmp_path: Path) -> None:
    jobs = [BatchJob(f"cube{n}", f"cube({n});", tmp_path / f"{n}.stl") for n in (1, 2, 3)]
    results = manifold_batch.render_parallel(tool, jobs, 2, 60)
    assert [result.part for result in results] == ["cube1", "cube2", "cube3"]
    for size in (1, 2, 3):
        assert trimesh.load_mesh(tmp_path / f"{size}.stl").volume == pytest.approx(size**3)


def test_auto_renders_with_cgal_what_manifold_gets_wrong(
    tool: WasmOpenScad, tmp_path: Path
) -> None:
    params = v_prism(10, 2, 3)._params
    reversed_faces = [list(reversed(face)) for face in params["faces"]]
    inside_out = polyhedron(points=params["points"], faces=reversed_faces)
    cut = scad_render(difference()(inside_out, translate([100, 0, 0])(cube(1))))
    backend = select_backend("auto")
    assert backend.wasm == tool
    jobs = [RenderJob(name, source, tmp_path / f"{name}.stl") for name, source in
            (("cube", CUBE), ("cut", cut))]  # fmt: skip
    reported: list[RenderResult] = []
    results = backend.render(jobs, 60, 1, on_done=reported.append)
    assert [(r.part, r.backend) for r in results] == [("cube", "manifold"), ("cut", "cgal")]
    assert sorted(r.part for r in reported) == ["cube", "cut"]
    assert judge_solid(load_mesh(tmp_path / "cut.stl")).volume_mm3 == pytest.approx(60)


def test_auto_raises_cgal_s_error_when_neither_renders(tool: WasmOpenScad, tmp_path: Path) -> None:
    backend = select_backend("auto")
    assert backend.wasm == tool
    with pytest.raises(ToolError, match=r"^broken: OpenSCAD failed \(exit code 1\): ERROR: Pars"):
        backend.render([RenderJob("broken", "cube(", tmp_path / "broken.stl")], 60, 1)
    assert temporaries(tmp_path) == []


def _project_copy(folder: Path) -> Path:
    """A tools folder with the real package (linked), its lock and a copy of the batch script."""
    root = folder / "project"
    (root / "node_modules").mkdir(parents=True)
    real = node_tools.tools_root()
    (root / "node_modules" / node_tools.PACKAGE).symlink_to(
        real / "node_modules" / node_tools.PACKAGE
    )
    shutil.copy(real / "package-lock.json", root / "package-lock.json")
    shutil.copy(node_tools.BATCH_SCRIPT, root / node_tools.BATCH_SCRIPT.name)
    return root


def _probe_fresh(tool: WasmOpenScad, root: Path) -> WasmOpenScad:
    manifold_probe._probe.cache_clear()
    try:
        script = root / node_tools.BATCH_SCRIPT.name
        return manifold_probe._probe(tool.node, str(root), str(script))
    finally:
        manifold_probe._probe.cache_clear()


def test_the_probe_verdict_is_kept_until_the_batch_script_changes(
    tool: WasmOpenScad, tmp_path: Path
) -> None:
    root = _project_copy(tmp_path)
    kept = root / manifold_probe.PROBE_CACHE
    assert _probe_fresh(tool, root).openscad_version == tool.openscad_version
    verdicts = json.loads(kept.read_text())
    assert list(verdicts.values()) == [tool.openscad_version]
    # A verdict planted under the same key is believed: the probe did not run again.
    kept.write_text(json.dumps(dict.fromkeys(verdicts, "planted")))
    assert _probe_fresh(tool, root).openscad_version == "planted"
    # Another batch script is probed anew.
    script = root / node_tools.BATCH_SCRIPT.name
    script.write_text(script.read_text() + "\n// changed\n")
    assert _probe_fresh(tool, root).openscad_version == tool.openscad_version


def test_a_build_that_falls_back_to_cgal_says_why(tmp_path: Path, monkeypatch) -> None:
    """`auto` without a usable Manifold backend renders with CGAL (several times slower):
    the build's notes say so and how to mend it, rather than leaving the maker to wonder."""
    from squadron_cad.pipeline.options import BuildOptions
    from squadron_cad.pipeline.transaction import build
    from squadron_cad.resolve import resolve

    monkeypatch.setenv(manifold_probe.NODE_ENV, "no-such-node-here")
    options = BuildOptions(
        out_dir=tmp_path / "out", only=("template_straight",), slice=False, previews=False
    )
    report = build(resolve(), options)
    assert report.tool.backend == "cgal"
    said = [n for n in report.notices if n.startswith("rendered with CGAL")]
    assert said == [
        "rendered with CGAL, as the Manifold backend is unavailable: node not found "
        f"(no-such-node-here): {node_tools.INSTALL_HINT}"
    ]

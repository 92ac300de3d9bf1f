"""Backend plumbing that needs no renderer: the log says which kernel ran, Manifold's
slivers are cleaned, batches are shared out evenly, the npm package is pinned exactly."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import trimesh

from squadron_cad.errors import InputError, ToolError
from squadron_cad.render import manifold_probe, node_tools, openscad
from squadron_cad.render.backends import select_backend
from squadron_cad.render.manifold_batch import BatchJob, share_out
from squadron_cad.render.openscad import backend_of_log, top_level_kind
from squadron_cad.render.stl import clean_stl, read_binary_stl, verify_binary_stl

ROOT = Path(__file__).resolve().parents[2]

LOG_2021 = "Total rendering time: 0:00:00.001\n   Top level object is a 3D object:\n   Simple: y\n"
LOG_MANIFOLD = "Total rendering time: 0:00:00.2\n   Top level object is a 3D object (manifold):\n"
LOG_POLYSET = "   Top level object is a 3D object (PolySet):\n   Convex:       no\n"
LOG_NEF = "   Top level object is a 3D object (Nef polyhedron):\n"


def test_the_log_names_the_kernel() -> None:
    assert top_level_kind(LOG_2021) == ""
    assert top_level_kind(LOG_MANIFOLD) == "manifold"
    assert top_level_kind(LOG_POLYSET) == "PolySet"
    assert top_level_kind("ERROR: Parser error") is None


def test_manifold_asked_is_confirmed_by_the_log_or_refused() -> None:
    assert backend_of_log("p", LOG_MANIFOLD, manifold_asked=True) == "manifold"
    assert backend_of_log("p", LOG_POLYSET, manifold_asked=True) == "manifold"  # no 3D boolean
    assert backend_of_log("p", LOG_2021, manifold_asked=False) == "cgal"
    for log in (LOG_NEF, LOG_2021, ""):
        with pytest.raises(ToolError, match="asked for the Manifold backend"):
            backend_of_log("p", log, manifold_asked=True)


def test_an_unknown_backend_is_an_input_error() -> None:
    with pytest.raises(InputError, match="--backend fast: choose one of auto, cgal, manifold"):
        select_backend("fast")


def write_stl(path: Path, mesh: trimesh.Trimesh) -> None:
    path.write_bytes(trimesh.exchange.stl.export_stl(mesh))


def slivered_block() -> trimesh.Trimesh:
    """A block with two zero-area triangles on one edge, as Manifold leaves them."""
    block = trimesh.creation.box([10, 10, 4])
    first, second = block.edges_unique[0]
    vertices = np.vstack([block.vertices, block.vertices[[first, second]].mean(axis=0)])
    extra = len(vertices) - 1
    faces = np.vstack([block.faces, [[first, extra, second], [second, extra, first]]])
    return trimesh.Trimesh(vertices, faces, process=False)


def test_cleaning_removes_zero_area_slivers(tmp_path: Path) -> None:
    path = tmp_path / "part.stl"
    write_stl(path, slivered_block())
    assert not trimesh.load_mesh(path).is_watertight
    assert clean_stl("part", path)
    verify_binary_stl("part", path)
    cleaned = trimesh.load_mesh(path)
    assert cleaned.is_watertight
    assert len(cleaned.faces) == 12
    assert cleaned.volume == pytest.approx(400.0, rel=1e-6)
    assert np.allclose(cleaned.bounds, [[-5, -5, -2], [5, 5, 2]])


def test_a_mesh_manifold3d_refuses_is_left_for_the_checks(tmp_path: Path) -> None:
    block = trimesh.creation.box([10, 10, 4])
    holed = trimesh.Trimesh(block.vertices, block.faces[1:], process=False)
    path = tmp_path / "holed.stl"
    write_stl(path, holed)
    before = path.read_bytes()
    assert not clean_stl("holed", path)
    assert path.read_bytes() == before
    assert len(read_binary_stl("holed", before)) == 11


def test_batches_are_shared_out_by_cost() -> None:
    costs = {"a": 8.0, "b": 7.0, "c": 2.0, "d": 2.0, "e": 1.0}
    jobs = [BatchJob(name, "", Path(name)) for name in costs]
    groups = share_out(jobs, 2, lambda job: costs[job.part])
    loads = sorted(sum(costs[job.part] for job in group) for group in groups)
    assert loads == [10.0, 10.0]
    assert sorted(job.part for group in groups for job in group) == sorted(costs)
    assert len(share_out(jobs[:1], 4, lambda _job: 1.0)) == 1  # no empty batches


def test_the_wasm_package_is_pinned_exactly_with_its_integrity() -> None:
    """One pin: package.json, package-lock.json (a checkout's npm ci) and the pin the
    package carries for an installed squadron-cad (its own npm ci) name the same tarball."""
    manifest = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = manifest["dependencies"][node_tools.PACKAGE]
    assert set(pinned) <= set("0123456789.")  # an exact version: no ^, ~ or range
    entry = lock["packages"][f"node_modules/{node_tools.PACKAGE}"]
    assert entry["version"] == pinned == node_tools.locked_version(ROOT)
    assert entry["integrity"].startswith("sha512-")
    assert node_tools.pin() == node_tools.Pin(entry["version"], entry["integrity"])
    assert "node_modules/" in (ROOT / ".gitignore").read_text().splitlines()


def test_install_does_nothing_when_the_pinned_version_is_there(tmp_path: Path) -> None:
    package = tmp_path / "node_modules" / node_tools.PACKAGE
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": node_tools.pin().version}))
    said = node_tools.install(tmp_path)
    assert said.startswith(f"{node_tools.PACKAGE} {node_tools.pin().version} is installed in ")
    # A per-user folder gets a lock of the pin alone, so npm ci there checks the tarball.
    lock = json.loads((tmp_path / "package-lock.json").read_text())
    entry = lock["packages"][f"node_modules/{node_tools.PACKAGE}"]
    assert entry["integrity"] == node_tools.pin().integrity


def test_a_missing_package_is_named_by_the_probe(tmp_path: Path) -> None:
    node_tools.write_npm_project(tmp_path)
    reason = manifold_probe.unavailable_reason(root=tmp_path)
    if reason is not None and reason.startswith("node not found"):
        pytest.skip("node is not installed")
    assert reason is not None
    assert f"{node_tools.pin().version} is not installed" in reason
    assert "squadron-cad setup" in reason


def test_outside_a_checkout_the_tools_live_in_the_user_cache(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(node_tools.TOOLS_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(node_tools, "checkout_root", lambda: None)
    assert node_tools.tools_root() == tmp_path / "squadron_cad" / "node-tools"
    monkeypatch.setenv(node_tools.TOOLS_DIR_ENV, str(tmp_path / "mine"))
    assert node_tools.tools_root() == tmp_path / "mine"


FAKE = ROOT / "tests" / "fakes" / "fake_openscad.py"


def test_auto_renders_with_the_openscad_named(monkeypatch) -> None:
    """$SQUADRON_OPENSCAD (a 2021 OpenSCAD here, no Manifold) pins auto to its CGAL."""
    from squadron_cad.render import openscad

    monkeypatch.setenv("SQUADRON_OPENSCAD", str(FAKE))
    openscad._probe.cache_clear()
    try:
        backend = select_backend("auto")
    finally:
        openscad._probe.cache_clear()
    assert backend.name == "cgal"
    assert backend.native is not None
    assert backend.native.executable == str(FAKE)
    assert backend.identity == backend.native.identity
    assert "named" in backend.note


def test_the_backend_choices_are_the_clis() -> None:
    from squadron_cad.cli.options import BACKENDS
    from squadron_cad.render.backends import BACKEND_CHOICES

    assert BACKENDS == BACKEND_CHOICES


def test_a_render_started_just_after_the_stop_is_killed_too() -> None:
    """A Ctrl-C as the renders begin: a worker starts its process after the first kill.
    Stopping goes on killing until every worker is done, rather than waiting out the
    render (here 30 s; a real one up to --timeout)."""

    def late_render() -> int:
        time.sleep(0.3)  # after stop_until_done's first stop_all
        process = subprocess.Popen(["sleep", "30"], start_new_session=True)
        openscad.track(process)  # type: ignore[arg-type]
        try:
            return process.wait()
        finally:
            openscad.untrack(process)  # type: ignore[arg-type]

    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(late_render)
        time.sleep(0.05)  # the worker is under way
        begun = time.monotonic()
        openscad.stop_until_done([future])
        assert future.result() == -signal.SIGKILL
        assert time.monotonic() - begun < 10


class SlowSubmits(ThreadPoolExecutor):
    """A pool whose submit takes a while, as on a loaded machine, so that a Ctrl-C lands
    while the helper thread is still submitting."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        time.sleep(0.1)
        return super().submit(fn, *args, **kwargs)


@contextlib.contextmanager
def ctrl_c_after(seconds: float) -> Iterator[None]:
    """Python's Ctrl-C handler in place, and a SIGINT to the main thread `seconds` into
    the block (as a maker's Ctrl-C lands while the block runs)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    timer = threading.Timer(seconds, signal.pthread_kill, (main_thread, signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_while_submitting_leaves_every_started_worker_known() -> None:
    """The Ctrl-C arrives as the first render starts and the rest are being submitted:
    every started worker must be among the caller's futures, or stopping the renders
    misses it and the build waits out its render (the suite's SIGTERM test once took 23 s
    for a 20 s render)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    def first() -> None:
        signal.pthread_kill(main_thread, signal.SIGINT)

    def render() -> None:
        pass

    futures: list[Future[None]] = []
    pool = SlowSubmits(2)

    def submit_and_wait() -> None:
        openscad.submit_all(pool, [first, render, render], futures)
        time.sleep(5)  # the signal is delivered by now on any machine

    try:
        with pytest.raises(KeyboardInterrupt):
            submit_and_wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        pool.shutdown(wait=True)
    assert len(futures) == 3
    assert all(future.done() for future in futures)


def test_a_ctrl_c_while_the_submitting_thread_starts_still_waits_for_it(monkeypatch) -> None:
    """The Ctrl-C lands as the helper thread starts (the build had just said "render"):
    the submitting must still be waited for, or a render submitted after it is unknown
    to the caller and the build waits out its render (the SIGTERM test took 24 s once
    more when the held stop was raised before the wait)."""
    monkeypatch.setattr(openscad.threading, "Thread", _SlowToBegin)
    slowed_before = _SlowToBegin.begun
    futures: list[Future[None]] = []
    known = -1
    pool = SlowSubmits(2)
    try:
        with ctrl_c_after(0.1):
            try:
                openscad.submit_all(pool, [lambda: None] * 3, futures)
            except KeyboardInterrupt:
                known = len(futures)  # what the caller's stop would see
    finally:
        pool.shutdown(wait=True)
    assert _SlowToBegin.begun > slowed_before, "the helper did not begin slowly: no test"
    assert known == 3


def test_work_beside_the_build_is_stopped_even_when_it_starts_late() -> None:
    """Cancelling the slicer's or the pictures' thread: a process it starts just after the
    first stop is killed by the next one, not waited for (30 s here)."""
    from squadron_cad.pipeline.clock import BackgroundWork

    live: list[subprocess.Popen[bytes]] = []

    def work() -> int:
        time.sleep(0.3)  # after cancel's first stop
        live.append(subprocess.Popen(["sleep", "30"]))
        return live[-1].wait()

    def stop() -> None:
        for process in live:
            process.kill()

    beside = BackgroundWork("late", work, stop)
    beside.start()
    time.sleep(0.05)
    begun = time.monotonic()
    beside.cancel()
    assert time.monotonic() - begun < 10
    assert beside.result() == -signal.SIGKILL


def test_a_ctrl_c_while_waiting_for_work_beside_still_waits_for_its_end() -> None:
    """A Ctrl-C while the build waits for the slicer's or the pictures' result: cancelling
    must still wait until the work has ended. Python 3.11 marks a thread ended when a
    Ctrl-C interrupts its join, and a cancel that trusted it returned at once, the work
    still running beside a staging folder being removed."""
    from squadron_cad.pipeline.clock import BackgroundWork

    live: list[subprocess.Popen[bytes]] = []
    ended = threading.Event()

    def work() -> None:
        live.append(subprocess.Popen(["sleep", "30"]))
        live[-1].wait()
        time.sleep(0.5)  # what a slicer does after its process: read, cache, report
        ended.set()

    def stop() -> None:
        for process in live:
            process.kill()

    beside = BackgroundWork("late", work, stop)
    beside.start()
    with ctrl_c_after(0.3), pytest.raises(KeyboardInterrupt):
        beside.result()
    beside.cancel()
    assert ended.is_set()


class _SlowToBegin(threading.Thread):
    """A thread whose first step waits: on a loaded machine a new thread may take
    milliseconds to run, and until it runs it has no ident."""

    begun = 0  # how many began slowly: 0 if CPython no longer calls _bootstrap

    def _bootstrap(self) -> None:  # CPython's first call in the new thread
        _SlowToBegin.begun += 1
        time.sleep(0.5)
        super()._bootstrap()  # type: ignore[misc]


def test_a_ctrl_c_while_work_beside_starts_still_waits_for_its_end() -> None:
    """A Ctrl-C as the previews' thread was starting (the build had just said "previews"):
    cancel() took the thread for never started and returned, the staging folder was
    removed, then the pictures were written into it, and the folder stayed."""
    from squadron_cad.pipeline.clock import BackgroundWork

    ended = threading.Event()

    def work() -> None:
        time.sleep(0.2)
        ended.set()

    beside = BackgroundWork("late", work, lambda: None)
    beside.thread = _SlowToBegin(target=beside._run, daemon=True)
    slowed_before = _SlowToBegin.begun
    with ctrl_c_after(0.1), pytest.raises(KeyboardInterrupt):
        beside.start()
    beside.cancel()
    assert _SlowToBegin.begun > slowed_before, "the thread did not begin slowly: no test"
    assert ended.is_set()


def test_a_small_batch_joins_another_instead_of_its_own_node() -> None:
    """A new tin renders the box (44 kB of OpenSCAD) and its lid (6.6 kB): one node
    process, not two (a second start-up costs more CPU than the lid's render)."""
    sizes = {"box": 44354.0, "box_lid": 6594.0}
    jobs = [BatchJob(name, "", Path(name)) for name in sizes]
    groups = share_out(jobs, 2, lambda job: sizes[job.part])
    assert [[job.part for job in group] for group in groups] == [["box", "box_lid"]]
    near = {"a": 10.0, "b": 3.0}  # a fair share of the work: its own process
    jobs = [BatchJob(name, "", Path(name)) for name in near]
    assert len(share_out(jobs, 2, lambda job: near[job.part])) == 2

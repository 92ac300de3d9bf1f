"""Render backends: which OpenSCAD kernel turns the parts' sources into STLs (--backend).

- cgal: the OpenSCAD on PATH (Debian's 2021 build, CGAL): the fallback that always works,
  and the one that draws the preview pictures whatever renders the STLs.
- manifold: OpenSCAD's Manifold kernel: a native OpenSCAD that offers --backend=manifold
  (its log must confirm it), else OpenSCAD 2025's WebAssembly build run by node, one batch
  process per worker (squadron_cad.render.manifold_batch).
- auto: the fastest of these that works here and whose probe scene passes the mesh checks
  (native Manifold, then WebAssembly Manifold, then CGAL); why it fell back is kept in
  Backend.note. A part Manifold renders that manifold3d does not read as a valid solid with
  the job's number of bodies is rendered again with CGAL (its result says "cgal"). An
  OpenSCAD named by the caller (--openscad, $SQUADRON_OPENSCAD) is the one auto uses: its
  Manifold backend if it has one, else its CGAL.

Every backend renders a list of jobs and reports each part as it lands, so a build can
check one part while the next renders.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Literal

from squadron_cad.errors import InputError, ToolError
from squadron_cad.render import manifold_batch, manifold_probe, openscad
from squadron_cad.render.manifold_batch import BatchJob, OnDone, WasmOpenScad
from squadron_cad.render.openscad import OpenScad, RenderResult

BackendChoice = Literal["auto", "cgal", "manifold"]
BACKEND_CHOICES: tuple[BackendChoice, ...] = ("auto", "cgal", "manifold")
RenderJob = BatchJob  # one part: its name, its OpenSCAD source, where its STL goes


@dataclass(frozen=True)
class Backend:
    """A render backend that was found and probed on this machine."""

    name: Literal["cgal", "manifold"]
    native: OpenScad | None  # the OpenSCAD executable that renders, if native
    wasm: WasmOpenScad | None = None  # the WebAssembly build, if that renders
    note: str = ""  # why auto did not pick a faster backend
    fallback: OpenScad | None = None  # auto: CGAL for a part Manifold gets wrong

    @property
    def identity(self) -> str:
        """What a cached render depends on besides the source (render cache keys): the
        renderer and, for auto, the CGAL that stands in for a part Manifold gets wrong."""
        tool = self.wasm or self.native
        assert tool is not None
        if self.fallback is None:
            return tool.identity
        return f"{tool.identity}; else {self.fallback.identity}"

    def version_of(self, backend: str) -> str:
        """The OpenSCAD version behind a part's result ("manifold" or "cgal")."""
        if backend == "manifold" and self.wasm is not None:
            return self.wasm.openscad_version
        if backend == "cgal" and self.fallback is not None:
            return self.fallback.version
        assert self.native is not None
        return self.native.version

    @property
    def description(self) -> str:
        if self.wasm is not None:
            return (
                f"manifold (OpenSCAD {self.wasm.openscad_version} WebAssembly, "
                f"node {self.wasm.node_version})"
            )
        assert self.native is not None
        return f"{self.name} (OpenSCAD {self.native.version}, {self.native.executable})"

    def render(
        self,
        jobs: Sequence[RenderJob],
        timeout_s: float,
        workers: int,
        on_done: OnDone | None = None,
    ) -> list[RenderResult]:
        """Render every job, `workers` at a time; results in job order. on_done is called
        (from a worker thread) with each part's result as soon as its STL is in place."""
        if self.fallback is not None:
            return self._render_or_fall_back(jobs, timeout_s, workers, on_done)
        if self.wasm is not None:
            return manifold_batch.render_parallel(self.wasm, jobs, workers, timeout_s, on_done)
        assert self.native is not None
        return _render_native(self.native, jobs, timeout_s, workers, on_done)

    def _render_or_fall_back(
        self,
        jobs: Sequence[RenderJob],
        timeout_s: float,
        workers: int,
        on_done: OnDone | None,
    ) -> list[RenderResult]:
        """Manifold first; CGAL for each part it fails or gets wrong."""
        fallback = self.fallback
        assert fallback is not None
        by_part = {job.part: job for job in jobs}
        done: dict[str, RenderResult] = {}

        def judged(result: RenderResult) -> None:
            job = by_part[result.part]
            if not _valid_solid(job):
                result = openscad.render(fallback, job.part, job.source, job.target, timeout_s)
            done[job.part] = result
            if on_done is not None:
                on_done(result)

        fast = [job for job in jobs if not job.cgal_only]
        # A part Manifold could not render: CGAL has its own say below.
        with contextlib.suppress(ToolError):
            dataclasses.replace(self, fallback=None).render(fast, timeout_s, workers, judged)
        missing = [job for job in jobs if job.part not in done]
        for result in _render_native(fallback, missing, timeout_s, workers, on_done):
            done[result.part] = result
        return [done[job.part] for job in jobs]


_PROBING: list[threading.Thread] = []  # probes started beside a build's imports


def probe_beside(choice: str = "auto", openscad_executable: str | None = None) -> None:
    """Probe in a thread the tools `select_backend` will ask for (OpenSCAD's --version and
    --help, node): their processes run while the build imports and loads its kit, and the
    answers are kept (openscad.locate, manifold_probe.locate). Installs nothing; a tool that
    fails is probed again, and said, by select_backend."""
    thread = threading.Thread(
        target=_probe_tools, args=(choice, openscad_executable), name="tool probes", daemon=True
    )
    _PROBING.append(thread)
    thread.start()


def _probe_tools(choice: str, openscad_executable: str | None) -> None:
    with contextlib.suppress(Exception):
        native = openscad.locate(openscad_executable)
        if choice != "cgal" and not native.manifold:
            manifold_probe.locate()


def select_backend(
    choice: str = "auto", openscad_executable: str | None = None, node: str | None = None
) -> Backend:
    """The backend for --backend `choice`; a ToolError if an asked-for one is missing."""
    while _PROBING:  # a probe under way: its answer, rather than a second probe
        _PROBING.pop().join()
    if choice not in BACKEND_CHOICES:
        raise InputError(f"--backend {choice}: choose one of {', '.join(BACKEND_CHOICES)}")
    native = openscad.locate(openscad_executable)  # needed in every case: previews
    cgal = dataclasses.replace(native, manifold=False)
    if choice == "cgal":
        return Backend("cgal", cgal)
    fallback = cgal if choice == "auto" else None
    if native.manifold:
        return Backend("manifold", native, fallback=fallback)
    named = openscad_executable or os.environ.get(openscad.EXECUTABLE_ENV)
    if choice == "auto" and named:
        note = f"CGAL: the OpenSCAD named ({named}) has no Manifold backend"
        return Backend("cgal", cgal, note=note)
    installed = manifold_probe.install_on_first_use()
    try:
        wasm = manifold_probe.locate(node)
    except ToolError as error:
        if choice == "manifold":
            raise ToolError(
                f"--backend manifold: {native.executable} (OpenSCAD {native.version}) has no "
                f"Manifold backend and its WebAssembly build is unavailable: {error}; "
                "use --backend cgal"
            ) from error
        note = f"CGAL, as the Manifold backend is unavailable: {error}"
        if installed:
            note += f" ({installed})"
        return Backend("cgal", native, note=note)
    note = f"Manifold, set up once for this user: {installed}" if installed else ""
    return Backend("manifold", None, wasm, fallback=fallback, note=note)


def _valid_solid(job: RenderJob) -> bool:
    """Whether manifold3d reads the job's STL as a valid solid with the job's bodies."""
    from squadron_cad.checks.mesh import judge_solid, load_mesh  # the meshing stack, late

    solid = judge_solid(load_mesh(job.target))
    return solid.accepted and solid.bodies == job.bodies and min(solid.body_volumes_mm3) > 0


def _render_native(
    tool: OpenScad,
    jobs: Sequence[RenderJob],
    timeout_s: float,
    workers: int,
    on_done: OnDone | None,
) -> list[RenderResult]:
    """One OpenSCAD process per part, `workers` at a time; the first failure stops the rest."""

    def one(job: RenderJob) -> RenderResult:
        result = openscad.render(tool, job.part, job.source, job.target, timeout_s)
        if on_done is not None:
            on_done(result)
        return result

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="render")
    futures: list[Future[RenderResult]] = []
    try:  # submitting inside: a Ctrl-C between two submits still waits for the workers
        openscad.submit_all(pool, [functools.partial(one, job) for job in jobs], futures)
        wait(futures, return_when=FIRST_EXCEPTION)
        for future in futures:
            error = future.exception() if future.done() else None
            if error is not None:
                raise error
        return [future.result() for future in futures]
    except BaseException:
        openscad.stop_until_done(futures)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

"""The package installs as a maker would install it, and works away from the checkout:
`pip install .` (not editable) and a wheel from `python -m build`, each into a fresh
virtual environment, then `squadron-cad` run from another folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from squadron_cad.render import node_tools

ROOT = Path(__file__).resolve().parents[2]


def fresh_env(folder: Path) -> Path:
    """A new virtual environment that borrows this one's third-party libraries (no
    download) but not its editable squadron_cad: only what is installed into it counts.
    It gets no pip of its own (ensurepip costs 3 CPU-s): `pip_into` installs with ours."""
    venv.EnvBuilder(with_pip=False, clear=True).create(folder)
    python = folder / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    borrowed = sysconfig.get_paths()["purelib"]
    (Path(site) / "borrowed.pth").write_text(borrowed + "\n")  # appended after its own
    return python


def source_copy(tmp: Path) -> Path:
    """The checkout without its .venv, out/ or node_modules: what a clone holds."""
    target = tmp / "src"
    skip = shutil.ignore_patterns(
        ".venv", "out", "node_modules", ".git", "*.egg-info", "__pycache__", "build", "dist"
    )
    shutil.copytree(ROOT, target, ignore=skip, symlinks=True)
    return target


def pip_into(env: Path, target: Path, cwd: Path) -> subprocess.CompletedProcess:
    """`pip install` into env's interpreter, by this environment's pip (the same release)."""
    command = [sys.executable, "-m", "pip", "--python", str(env), "install", "--no-deps"]
    return run([*command, "--quiet", str(target)], cwd)


def run(args: list, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def tools_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The per-user folder an installed squadron-cad sets OpenSCAD's Manifold build up in
    (one for the module: the second install finds it set up)."""
    return tmp_path_factory.mktemp("user-cache") / "node-tools"


def check_the_installed_tool(env: Path, work: Path, tools: Path) -> None:
    tool = env.parent / "squadron-cad"
    os.environ[node_tools.TOOLS_DIR_ENV] = str(tools)
    try:
        _check_the_installed_tool(tool, env, work)
    finally:
        del os.environ[node_tools.TOOLS_DIR_ENV]


def _check_the_installed_tool(tool: Path, env: Path, work: Path) -> None:
    where = run([env, "-c", "import squadron_cad; print(squadron_cad.__file__)"], work)
    assert "site-packages" in where.stdout, where.stdout + where.stderr
    kits = run([tool, "kits"], work)
    assert kits.returncode == 0, kits.stderr
    assert "squadron-leader" in kits.stdout
    assert run([tool, "tins"], work).returncode == 0
    built = run(
        [
            tool,
            "build",
            "--out",
            str(work / "k"),
            "--only",
            "template_straight",  # any part proves the install; this one renders in 0.1 s
            "--set",
            "quality=draft",
            "--no-previews",
            "--no-slice",
        ],
        work,
    )
    assert built.returncode == 0, built.stderr
    assert (work / "k" / "stl" / "template_straight.stl").stat().st_size > 3_000
    # Away from the checkout it still renders with Manifold: the batch script ships in the
    # wheel, and the pinned npm package was set up in the per-user folder.
    manifest = json.loads((work / "k" / "manifest.json").read_text())
    assert manifest["openscad"]["backend"] == "manifold", manifest["notices"]
    tools = Path(os.environ[node_tools.TOOLS_DIR_ENV])
    assert node_tools.installed_version(tools) == node_tools.pin().version


def test_pip_install_dot_works_outside_the_checkout(tmp_path: Path, tools_dir: Path) -> None:
    source = source_copy(tmp_path)
    env = fresh_env(tmp_path / "env")
    # As a maker runs it: pip builds in isolation (setuptools from the index).
    installed = pip_into(env, source, tmp_path)
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    check_the_installed_tool(env, work, tools_dir)


def test_a_wheel_from_python_m_build_carries_the_defaults(tmp_path: Path, tools_dir: Path) -> None:
    source = source_copy(tmp_path)
    wheel_dir = tmp_path / "dist"
    made = run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(wheel_dir),
            str(source),
        ],
        tmp_path,
    )
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    (wheel,) = wheel_dir.glob("squadron_cad-*.whl")
    listing = run([sys.executable, "-m", "zipfile", "-l", str(wheel)], tmp_path).stdout
    assert "squadron_cad/kits/squadron_leader/default.yaml" in listing
    assert "squadron_cad/kits/squadron_leader/tins/v2-box.yaml" in listing
    assert "squadron_cad/render/openscad-batch.mjs" in listing
    assert "squadron_cad/render/manifold-pin.json" in listing
    env = fresh_env(tmp_path / "env")
    installed = pip_into(env, wheel, tmp_path)
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    check_the_installed_tool(env, work, tools_dir)

"""tests/conftest.py marks a test by its folders: a new file under tests/integration (or
tests/integration/web) is left out of `make test-fast` without a marker of its own."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# Each test checks the markers it was given (none of its own: no pytestmark).
MARKED = """\
def test_it(request) -> None:
    assert [marker.name for marker in request.node.iter_markers()] == {expected}
"""


def test_a_test_is_marked_by_its_folder(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    folders = (
        ("unit", []),
        ("integration", ["integration"]),
        ("integration/web", ["web", "integration"]),  # the nearest folder's marker first
    )
    for folder, expected in folders:
        (tests / folder).mkdir(parents=True)
        name = folder.replace("/", "_")
        (tests / folder / f"test_in_{name}.py").write_text(MARKED.format(expected=expected))
    run = pytest_in(tmp_path, "-m", "not web")
    assert "2 passed, 1 deselected" in run.stdout, run.stdout + run.stderr


def pytest_in(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest over root/tests (files already written there) with the suite's conftest."""
    shutil.copy(TESTS / "conftest.py", root / "tests" / "conftest.py")
    ini = "[pytest]\ntestpaths = tests\nmarkers =\n    integration\n    web\n"
    (root / "pytest.ini").write_text(ini)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_files_put_first_are_files_of_the_suite() -> None:
    """A renamed or removed file would silently leave the order (conftest's LONGEST_FIRST,
    UNIT_LONGEST_FIRST), and a file in the other group's list would never be put first."""
    spec = importlib.util.spec_from_file_location("suite_conftest", TESTS / "conftest.py")
    assert spec is not None
    assert spec.loader is not None
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    for first, group in (
        (suite.LONGEST_FIRST, "integration/"),
        (suite.UNIT_LONGEST_FIRST, "unit/"),
    ):
        missing = [name for name in first if not (TESTS / name).is_file()]
        assert not missing, f"the files put first name files that are not there: {missing}"
        assert all(name.startswith(group) for name in first)


def test_the_second_worker_collects_from_the_other_end_to_the_same_order(tmp_path: Path) -> None:
    """xdist's second worker imports the files last to first (conftest's pytest_configure),
    and both workers must still list the same tests in the same order."""
    tests = tmp_path / "tests"
    names = ("integration/kits/test_c.py", "integration/test_b.py", "unit/test_a.py")
    noting = "import os\nopen(os.environ['IMPORTED'], 'a').write(__name__ + '\\n')\n"
    for name in names:
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(noting + "def test_one(): pass\ndef test_two(): pass\n")
    listed, imported = {}, {}
    for worker in ("gw0", "gw1"):
        log = tmp_path / f"{worker}.log"
        run = pytest_in(tmp_path, "--collect-only", PYTEST_XDIST_WORKER=worker, IMPORTED=str(log))
        assert run.returncode == 0, run.stdout + run.stderr
        listed[worker] = [line for line in run.stdout.splitlines() if "::" in line]
        imported[worker] = log.read_text().split()
    assert listed["gw0"] == listed["gw1"]
    assert len(listed["gw0"]) == 6
    assert listed["gw0"][0] == "tests/integration/kits/test_c.py::test_one"
    assert imported["gw0"] == ["test_c", "test_b", "test_a"]
    assert imported["gw1"] == ["test_a", "test_b", "test_c"]

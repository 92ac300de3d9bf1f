"""A build renders before the meshing libraries load: they are imported beside the renders.

Each probe runs in a fresh interpreter: this session has imported everything already.
"""

from __future__ import annotations

import subprocess
import sys

from squadron_cad.outfolder import PREVIEWS_NAME
from squadron_cad.outputs import previews

HEAVY = ("trimesh", "scipy", "matplotlib", "PIL", "networkx")

UNTIL_THE_RENDERS = """
import sys
import squadron_cad.pipeline.transaction
print(sorted(name for name in {heavy!r} if name in sys.modules))
"""

BESIDE_THE_RENDERS = """
import sys
from squadron_cad.pipeline import machinery
machinery.import_beside().join()
print(sorted(name for name in machinery.AFTER_EMITTING + {heavy!r} if name not in sys.modules))
"""


def _loaded_in_a_fresh_interpreter(code: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code.format(heavy=HEAVY)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_build_reaches_its_renders_without_the_meshing_libraries() -> None:
    """The transaction, the renderer and the layout files import none of them (on 4feb81c
    the transaction imported trimesh, scipy and PIL before its first render)."""
    assert _loaded_in_a_fresh_interpreter(UNTIL_THE_RENDERS) == "[]"


def test_the_thread_beside_the_renders_imports_every_stage_after_them() -> None:
    """What the stages after the renders need, and the libraries under them, are loaded by
    the thread the build starts beside its renders."""
    assert _loaded_in_a_fresh_interpreter(BESIDE_THE_RENDERS) == "['matplotlib']"


def test_the_transaction_names_the_pictures_folder_as_the_pictures_do() -> None:
    assert PREVIEWS_NAME == previews.FOLDER

"""The example output folders of the README and the docs pages are not offered to git as
new files."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUT_FOLDER = re.compile(r"--out ([a-z][\w./-]*)")  # DIR (upper case) is a placeholder


def readme_out_folders() -> set[str]:
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return {folder for page in pages for folder in OUT_FOLDER.findall(page.read_text())}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_every_readme_out_folder_is_ignored() -> None:
    folders = readme_out_folders()
    assert {"letter", "out-space-planes"} <= folders  # the pattern still finds them
    for folder in sorted(folders):
        probe = f"{folder}/bom.md"
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", probe], cwd=ROOT, check=False
        )
        assert ignored.returncode == 0, f"{probe} is not in .gitignore"

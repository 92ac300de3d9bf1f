"""The virtual display's launcher: Xvfb stops with the build where setpriv can say so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from squadron_cad.render import display


@pytest.fixture(autouse=True)
def fresh_probe():
    display._dies_with_us.cache_clear()
    yield
    display._dies_with_us.cache_clear()


def test_a_setpriv_without_pdeathsig_is_not_used(tmp_path: Path, monkeypatch) -> None:
    """busybox's setpriv (or util-linux before 2.33) refuses --pdeathsig: wrapped in it,
    Xvfb never ran and previews failed ('Xvfb exited with code 1')."""
    fake = tmp_path / "setpriv"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert display._dies_with_us() == []


def test_util_linux_setpriv_is_used_when_it_works() -> None:
    wrapper = display._dies_with_us()
    if not wrapper:
        pytest.skip("no working setpriv on this machine")
    assert wrapper[1:] == ["--pdeathsig", "TERM", "--"]

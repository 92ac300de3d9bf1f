"""requirements.lock pins every library `make setup` installs, within pyproject.toml's
ranges, and the .venv the tests run in holds exactly those versions."""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    """The lock's pins that apply to this interpreter and platform: name -> version."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if not line or line.startswith((" ", "#")):
            continue
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate():
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", line
            pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [spec for group in project["optional-dependencies"].values() for spec in group]
    return [Requirement(spec) for spec in project["dependencies"] + extras]


def test_the_lock_pins_every_declared_library_within_its_range() -> None:
    pins = _pins()
    for requirement in _declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements.lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {requirement.name} {pins[name]}, outside pyproject.toml's "
            f"{requirement.specifier}: run the command at the top of requirements.lock"
        )


def test_the_environment_holds_the_pinned_versions() -> None:
    if (Path(sys.prefix) / ".unpinned").is_file():
        pytest.skip(
            "setup installed pyproject.toml's ranges: no wheels of the pins for this Python"
        )
    pins = _pins()
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    differing = {name: (version, installed.get(name)) for name, version in pins.items()}
    differing = {name: pair for name, pair in differing.items() if pair[0] != pair[1]}
    assert not differing, f"pinned, installed: {differing} (make setup installs the pins)"

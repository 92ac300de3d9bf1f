"""Markers by folder: every test under tests/integration is `integration`, every test
under tests/integration/web is `web` as well (`make test-fast` leaves both out), so a new
file there needs no marker of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).parent
FOLDER_MARKERS = {"integration": pytest.mark.integration, "web": pytest.mark.web}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(TESTS):
            continue
        for folder in item.path.relative_to(TESTS).parts[:-1]:
            marker = FOLDER_MARKERS.get(folder)
            if marker is not None:
                item.add_marker(marker)

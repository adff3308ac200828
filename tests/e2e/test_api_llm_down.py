"""An LLM outage degrades the API, never takes it out of rotation: the stack's model server is
stopped, `/readyz` (the start-up probe) stays 200 and names the LLM under `degraded`,
`/healthz/llm` and the `selfimprint_llm_up` gauge say it is down, messages are still extracted
(structured extraction needs no model) and a prose context falls back to the extractive one."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import wait_extracted

pytestmark = pytest.mark.e2e

# The API probes the model every api_llm_probe_interval_s (15 s by default).
NOTICED_WITHIN_S = 60.0


def _until(api_url: str, path: str, status: int) -> httpx.Response:
    deadline = time.monotonic() + NOTICED_WITHIN_S
    while True:
        answer = httpx.get(f"{api_url}{path}", timeout=10)
        if answer.status_code == status or time.monotonic() > deadline:
            return answer
        time.sleep(1.0)


@pytest.fixture
def llm_stopped(stack_settings: Settings) -> Iterator[None]:
    assert stack.stop(stack_settings, "llm"), "the stack's LLM server was not running"
    try:
        yield
    finally:
        stack.up(stack_settings)  # starts what is not running: the LLM alone


async def test_an_llm_outage_leaves_the_api_ready_and_prose_falls_back(
    stack_settings: Settings, tenant_key: str, graph_driver: AsyncDriver, llm_stopped: None
) -> None:
    api = stack_settings.api_url
    llm = _until(api, "/healthz/llm", 503)
    assert llm.status_code == 503, llm.text
    assert llm.json()["ok"] is False and "unreachable" in llm.json()["error"]

    ready = httpx.get(f"{api}/readyz", timeout=10)
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert {c["name"]: c["ok"] for c in body["checks"]} == {
        "neo4j": True,
        "temporal": True,
        "s3": True,
        "embedder": True,
    }
    assert [d["name"] for d in body["degraded"]] == ["llm"]
    assert "selfimprint_llm_up 0.0" in httpx.get(f"{api}/metrics", timeout=10).text

    tenant, user = tenant_key.split("_")[1], f"u-{uuid.uuid4().hex[:8]}"
    sent_at = datetime.now(UTC) - timedelta(minutes=5)
    said = [
        Message(id="m1", role=Role.USER, text="I work as a welder in Gdansk.", sent_at=sent_at),
        Message(id="m2", role=Role.USER, text="My sister Ola lives in Krakow.", sent_at=sent_at),
    ]
    async with SelfImprintClient(api, tenant_key) as si:
        await si.put_user(user, UserProfile())
        assert (await si.post_messages(user, said)).accepted == 2
        logs = MessageLogs(graph_driver, stack_settings.neo4j_database)
        extracted = await wait_extracted(logs, UserScope(tenant, user), timeout_s=300)
        assert extracted == {"pending": 0, "extracted": 2, "failed": 0}
        context = await si.context(user, "Where do I work?", mode="prose")
    assert context.mode == "fast"
    assert context.fallback_reason is not None
    assert context.fallback_reason.startswith("LLM unavailable")
    assert "welder" in context.context


def test_the_llm_is_reported_up_again_once_it_is_back(stack_settings: Settings) -> None:
    """Runs after the outage above (file order): the restarted server is noticed."""
    answer = _until(stack_settings.api_url, "/healthz/llm", 200)
    assert answer.status_code == 200, answer.text
    assert httpx.get(f"{stack_settings.api_url}/readyz", timeout=10).json()["degraded"] == []

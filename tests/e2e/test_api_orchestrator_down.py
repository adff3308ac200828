"""Message acceptance does not depend on Temporal: an API process whose orchestrator is down
still stores and acknowledges messages, and nothing it accepted is lost once a lifecycle
workflow runs for the user again (it finds them in the message log when it starts, or the
operator's `selfimprint messages retell` starts it)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from neo4j import AsyncDriver

import api.app
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.cli.messages import retell_all
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.devstack.ports import free_ports
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import wait_extracted

pytestmark = pytest.mark.e2e

NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)


async def test_messages_are_accepted_while_the_orchestrator_is_down_and_extracted_after(
    stack_settings: Settings,
    tenant_key: str,
    graph_driver: AsyncDriver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tenant, user = tenant_key.split("_")[1], f"u-{uuid.uuid4().hex[:8]}"
    scope = UserScope(tenant, user)
    database = stack_settings.neo4j_database
    await Neo4jAccounts(graph_driver, database).put_profile(scope, UserProfile())
    # An API process pointed at a port where no Temporal listens.
    nobody = f"{stack_settings.bind_host}:{free_ports(1)[0]}"
    monkeypatch.setattr(api.app, "NUDGE_DRAIN_S", 0.5)
    app = api.app.create_app(stack_settings.model_copy(update={"temporal_address": nobody}))
    sent_at = NOW.isoformat()
    body = {
        "messages": [
            {
                "id": "m1",
                "role": "user",
                "text": "I start at the bakery on Monday.",
                "sent_at": sent_at,
            },
            {"id": "m2", "role": "user", "text": "Early shifts, 5 am.", "sent_at": sent_at},
        ]
    }
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://api",
            headers={"Authorization": f"Bearer {tenant_key}"},
        ) as http:
            answer = await http.post(f"/v1/users/{user}/messages", json=body)
        assert answer.status_code == 202, answer.text
        assert answer.json() == {
            "accepted": 2,
            "duplicates": 0,
            "extraction": {"pending": 2, "oldest_pending_sent_at": "2026-03-02T09:00:00Z"},
        }
        assert app.state.notifier.untold_users == 1  # still trying to reach Temporal

    logs = MessageLogs(graph_driver, database)
    assert await logs.for_user(scope).pending() == ["m1", "m2"]  # durable, though untold

    # Temporal is reachable again (the stack's API): the next message starts the lifecycle,
    # and its first reconcile finds the two the other process could not announce.
    later = Message(id="m3", role=Role.USER, text="The first shift went fine.", sent_at=NOW)
    async with SelfImprintClient(stack_settings.api_url, tenant_key) as si:
        assert (await si.post_messages(user, [later])).accepted == 1
    assert await wait_extracted(logs, scope) == {"pending": 0, "extracted": 3, "failed": 0}


async def test_the_operator_retell_starts_lifecycles_for_messages_nobody_announced(
    stack_settings: Settings, tenant_key: str, graph_driver: AsyncDriver
) -> None:
    """After a long outage, a user with stored messages and no running lifecycle would wait for
    their next message; `selfimprint messages retell` starts it, and the messages are
    extracted once."""
    tenant, user = tenant_key.split("_")[1], f"u-{uuid.uuid4().hex[:8]}"
    scope = UserScope(tenant, user)
    database = stack_settings.neo4j_database
    await Neo4jAccounts(graph_driver, database).put_profile(scope, UserProfile())
    logs = MessageLogs(graph_driver, database)
    stored = [
        Message(id=f"r{i}", role=Role.USER, text=text, sent_at=NOW)
        for i, text in enumerate(["My brother moved to Riga.", "He works at a port there."])
    ]
    await logs.for_user(scope).append(stored, require_profile=True)  # accepted, never told

    told = await retell_all(stack_settings, older_than=timedelta(0), limit=100_000)
    assert told[scope.key] == 2
    assert await wait_extracted(logs, scope) == {"pending": 0, "extracted": 2, "failed": 0}

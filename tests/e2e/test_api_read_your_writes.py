"""Read your writes (issue 36): an assistant that asks for context right after the user spoke
knows what was just said, and every answer says how much extraction still owes.

The first test is the integration as an app backend writes it, on the whole stack: post, ask at
once, find the words. Whether extraction has already caught up by the time the context is asked
is a race the test does not assume either way: the words must be in the context both ways. The
second holds extraction back deterministically (an API process whose Temporal is unreachable,
as in test_api_orchestrator_down) to check the pending section itself, its budget and its
errors, then lets the stack's lifecycle extract everything and checks the section is gone.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from neo4j import AsyncDriver

import api.app
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.devstack.ports import free_ports
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.pending_messages import heading
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import wait_extracted

pytestmark = pytest.mark.e2e

PENDING_HEADING = heading("en")


@pytest.fixture
async def logs(stack_settings: Settings) -> AsyncIterator[MessageLogs]:
    driver = open_driver(stack_settings)
    yield MessageLogs(driver, stack_settings.neo4j_database)
    await driver.close()


def scope(tenant_key: str, user_id: str) -> UserScope:
    return UserScope(tenant_key.split("_")[1], user_id)


def just_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


async def test_a_context_asked_right_after_posting_holds_what_was_just_said(
    client: SelfImprintClient, logs: MessageLogs, tenant_key: str
) -> None:
    user = f"ryw-{uuid.uuid4().hex[:8]}"
    await client.put_user(user, UserProfile(plan="paid", time_zone="Europe/Lisbon"))
    said = Message(
        id="m1",
        role=Role.USER,
        text="My sister Anna is moving to Lisbon in June.",
        sent_at=just_now(),
    )
    accepted = await client.post_messages(user, [said])
    # Read in the write's own statement, before the lifecycle is even told: never extracted yet.
    assert accepted.accepted == 1 and accepted.extraction.pending >= 1
    assert accepted.extraction.oldest_pending_sent_at == said.sent_at

    answer = await client.context(
        user, "What could I give her as a farewell present?", after_message="m1"
    )
    assert "Lisbon" in answer.context and answer.tokens <= 400
    listed = [m.id for m in answer.pending_messages]
    remembered = {s for m in answer.memories for s in m.sources}
    assert "m1" in listed or "m1" in remembered, answer
    if listed:  # not extracted yet (the usual case): shown verbatim, marked as such
        assert answer.extraction.pending >= 1
        assert answer.pending_messages[0].text == said.text
        assert not answer.pending_messages[0].truncated
        assert f"{PENDING_HEADING}:\n- {said.text}" in answer.context

    assert (await wait_extracted(logs, scope(tenant_key, user)))["pending"] == 0
    later = await client.context(
        user, "What could I give her as a farewell present?", after_message="m1"
    )
    assert later.extraction.pending == 0 and later.extraction.oldest_pending_sent_at is None
    assert later.pending_messages == [] and PENDING_HEADING not in later.context
    profile = await client.request("GET", f"/v1/users/{user}")
    assert profile["extraction"] == {"pending": 0, "oldest_pending_sent_at": None}


async def test_messages_held_back_from_extraction_are_shown_within_the_budget_then_dropped(
    stack_settings: Settings,
    tenant_key: str,
    graph_driver: AsyncDriver,
    client: SelfImprintClient,
    logs: MessageLogs,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user, other = f"ryw-{uuid.uuid4().hex[:8]}", f"ryw-{uuid.uuid4().hex[:8]}"
    database = stack_settings.neo4j_database
    await Neo4jAccounts(graph_driver, database).put_profile(scope(tenant_key, user), UserProfile())
    # Another user of the same tenant, with a message id of their own (through the stack).
    await client.put_user(other, UserProfile())
    secret = Message(id="secret-1", role=Role.USER, text="My PIN is 4711.", sent_at=just_now())
    await client.post_messages(other, [secret])

    first_at = just_now() - timedelta(minutes=2)
    # About 55 tokens: whole in a 400-token context, cut in a 120-token one.
    long_text = "I finally told my manager that I am leaving the team. " * 4
    batch = {
        "messages": [
            {
                "id": "m1",
                "role": "user",
                "text": "I adopted a cat named Miso.",
                "sent_at": first_at,
            },
            {
                "id": "m2",
                "role": "assistant",
                "text": "Congratulations on Miso!",
                "sent_at": first_at + timedelta(seconds=30),
            },
            {"id": "m3", "role": "user", "text": long_text, "sent_at": just_now()},
        ]
    }
    # An API process whose Temporal is unreachable: nothing it accepts is extracted meanwhile.
    nobody = f"{stack_settings.bind_host}:{free_ports(1)[0]}"
    monkeypatch.setattr(api.app, "NUDGE_DRAIN_S", 0.5)
    app = api.app.create_app(stack_settings.model_copy(update={"temporal_address": nobody}))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://api",
            headers={"Authorization": f"Bearer {tenant_key}"},
            timeout=120,
        ) as http:

            async def context(**body: Any) -> httpx.Response:
                return await http.post(f"/v1/users/{user}/context", json=body)

            posted = await http.post(f"/v1/users/{user}/messages", json=_json(batch))
            assert posted.status_code == 202, posted.text
            assert {k: v for k, v in posted.json().items() if k != "extraction"} == {
                "accepted": 3,
                "duplicates": 0,
            }
            assert _backlog(posted.json()) == (3, first_at)
            # A retry of the batch: nothing new, the same backlog.
            again = await http.post(f"/v1/users/{user}/messages", json=_json(batch))
            assert again.json()["duplicates"] == 3 and _backlog(again.json()) == (3, first_at)
            assert _backlog((await http.get(f"/v1/users/{user}")).json()) == (3, first_at)

            # Naming the last message: the user's own words, newest first, under the heading.
            shown = await context(message="What's new with me?", after_message="m3")
            assert shown.status_code == 200, shown.text
            body = shown.json()
            assert _backlog(body) == (3, first_at)
            assert [(m["id"], m["truncated"]) for m in body["pending_messages"]] == [
                ("m3", False),
                ("m1", False),
            ]  # the assistant's reply is not the user's words
            assert body["pending_messages"][1]["text"] == "I adopted a cat named Miso."
            assert f"{PENDING_HEADING}:\n- " in body["context"] and "Miso." in body["context"]
            assert body["tokens"] <= 400 and shown.headers["server-timing"].count("backlog") == 1

            # Without naming one, the answer only says how many wait.
            plain = (await context(message="What's new with me?")).json()
            assert plain["extraction"]["pending"] == 3 and plain["pending_messages"] == []
            assert PENDING_HEADING not in plain["context"]

            # A small budget: the newest is cut to fit and the older one stays out.
            small = (await context(message="Hi", budget_tokens=120, after_message="m3")).json()
            assert small["tokens"] <= 120
            (cut,) = small["pending_messages"]
            assert cut["id"] == "m3" and cut["truncated"] and cut["text"].endswith("…")
            assert long_text.startswith(cut["text"][:-1].strip())

            # Bad input: 4xx with the API's error body; another user's id leaks nothing.
            unknown = await context(message="Hi", after_message="never-sent")
            theirs = await context(message="Hi", after_message=secret.id)
            for answer in (unknown, theirs):
                assert answer.status_code == 422, answer.text
                error = answer.json()["error"]
                assert error["code"] == "unknown_message"
                assert error["details"] == [
                    {
                        "loc": ["body", "after_message"],
                        "msg": "no message of this user has this id",
                        "type": "unknown_message",
                    }
                ]
            assert "4711" not in theirs.text
            assert theirs.json()["error"]["message"] == unknown.json()["error"]["message"].replace(
                "never-sent", secret.id
            )
            malformed = await context(message="Hi", after_message="not an id!")
            assert malformed.status_code == 422
            assert malformed.json()["error"]["code"] == "invalid_request"
            nobody_home = await http.post(
                "/v1/users/nobody-here/context", json={"message": "Hi", "after_message": "m1"}
            )
            assert nobody_home.status_code == 404
            assert nobody_home.json()["error"]["code"] == "unknown_user"

    # The stack's lifecycle: the next message starts it, and it extracts what was held back.
    follow_up = Message(id="m4", role=Role.USER, text="Miso sleeps all day.", sent_at=just_now())
    assert (await client.post_messages(user, [follow_up])).extraction.pending == 4
    assert (await wait_extracted(logs, scope(tenant_key, user)))["pending"] == 0
    done = await client.context(user, "What's new with me?", after_message="m4")
    assert done.extraction.pending == 0 and done.pending_messages == []
    assert PENDING_HEADING not in done.context
    profile_after = await client.request("GET", f"/v1/users/{user}")
    assert profile_after["extraction"] == {"pending": 0, "oldest_pending_sent_at": None}


def _backlog(answer: dict[str, Any]) -> tuple[int, datetime | None]:
    """An answer's extraction state, its time parsed (the API writes UTC as "Z")."""
    extraction = answer["extraction"]
    oldest = extraction["oldest_pending_sent_at"]
    return extraction["pending"], None if oldest is None else datetime.fromisoformat(oldest)


def _json(batch: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "messages": [
            {k: v.isoformat() if isinstance(v, datetime) else v for k, v in m.items()}
            for m in batch["messages"]
        ]
    }

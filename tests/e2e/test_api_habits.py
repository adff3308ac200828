"""A habit given up a clause after it is named (issue 34), through the API on the default
(structured) stack: the later memory contradicts the habit the user told of, and the habit is an
unresolved tension."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import tell

pytestmark = pytest.mark.e2e


async def test_a_habit_given_up_in_the_next_clause_contradicts_the_habit(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    """ "Каждый вечер бегаю в парке", then "раньше бегала по вечерам в парке, а после отпуска
    вообще забросила": the second names the habit in one clause and gives it up in the next.
    Rule removed (`slots._gives_up` false), the habit reads as still done and nothing is
    contradicted; "а сосед перестал здороваться" in its place (another's giving up) contradicts
    nothing either way."""
    user = f"habits-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant_key.split("_")[1], user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(days=20)

    def said(message_id: str, text: str, days: int) -> Message:
        return Message(id=message_id, role=Role.USER, text=text, sent_at=sent + timedelta(days))

    await tell(stack_settings, client, scope, [said("h1", "Каждый вечер бегаю в парке.", 0)])
    memories = await tell(
        stack_settings,
        client,
        scope,
        [
            said("h2", "бегаю по вечерам в парке, а сосед перестал здороваться", 5),
            said("h3", "раньше бегала по вечерам в парке, а после отпуска вообще забросила", 10),
        ],
    )
    (habit,) = [m for m in memories if "h1" in m["sources"]]

    async def contradicted_by(message_id: str) -> bool:
        for m in memories:
            if message_id not in m["sources"] or m["id"] == habit["id"]:
                continue
            edges = (await client.memory(user, m["id"]))["edges"]
            if any(e["type"] == "contradicts" and e["other_id"] == habit["id"] for e in edges):
                return True
        return False

    assert await contradicted_by("h3"), memories
    assert not await contradicted_by("h2"), memories

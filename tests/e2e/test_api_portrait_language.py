"""The portrait speaks the user's language (issue 36): a Russian speaker reads Russian headings;
a preferred language set on the profile wins over what the memories are written in."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import wait_extracted

pytestmark = pytest.mark.e2e

SAID = ("Работаю медсестрой в больнице.", "Мой брат Тимур живёт в Казани.")


@pytest.mark.parametrize(("preferred", "labels"), [(None, "ru"), ("en", "en")])
async def test_the_portrait_headings_follow_the_user(
    stack_settings: Settings,
    client: SelfImprintClient,
    tenant_key: str,
    preferred: str | None,
    labels: str,
) -> None:
    user = f"portrait-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant_key.split("_")[1], user)
    await client.put_user(user, UserProfile(language=preferred))
    sent = datetime.now(UTC) - timedelta(minutes=1)
    await client.post_messages(
        user,
        [Message(id=f"m{i}", role=Role.USER, text=t, sent_at=sent) for i, t in enumerate(SAID)],
    )
    driver = open_driver(stack_settings)
    try:
        await wait_extracted(MessageLogs(driver, stack_settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    user_state = await client.get_user(user)
    assert user_state["extraction"]["pending"] == 0, user_state
    headings = [line for line in (await client.portrait(user)).splitlines() if line[:3] == "## "]
    assert headings, await client.portrait(user)
    russian = ("## Факт:", "## Событие:", "## Человек:", "## Незакрытое:", "## Чувство:")
    english = ("## Fact:", "## Event:", "## Person:", "## Open loop:", "## Emotional note:")
    expected = russian if labels == "ru" else english
    assert all(h.startswith(expected) for h in headings), headings

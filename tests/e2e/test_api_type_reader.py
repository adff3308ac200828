"""The fine-tuned type reader types what users say (issue 34), through the API on the default
(structured) stack: four messages of the old eval split that the linear head alone misreads
through the same extractor (`tests/unit/test_type_reader_extraction.py` shows both sides)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import tell
from tests.unit.test_type_reader_extraction import READ_RIGHT_ONLY_BY_THE_TUNED_READER

pytestmark = pytest.mark.e2e


async def test_the_stored_memories_have_the_type_the_guide_gives(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    user = f"reader-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant_key.split("_")[1], user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(hours=2)
    messages = [
        Message(id=f"t{i}", role=Role.USER, text=text, sent_at=sent + timedelta(minutes=i))
        for i, (text, _) in enumerate(READ_RIGHT_ONLY_BY_THE_TUNED_READER)
    ]
    memories = await tell(stack_settings, client, scope, messages)
    for message, (text, expected) in zip(
        messages, READ_RIGHT_ONLY_BY_THE_TUNED_READER, strict=True
    ):
        whole = [m for m in memories if message.id in m["sources"] and m["content"] == text]
        assert [m["type"] for m in whole] == [expected], (text, memories)

"""The Python client package (clients/python, issue 36), blocking flavour, against the test
stack as an app backend would use it: a user, messages posted twice (a retry), a context asked
at once that holds what was just said, the user's portrait, and errors as typed exceptions."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from selfimprint_client import (
    InvalidRequestError,
    Message,
    NotFoundError,
    SelfImprint,
    UnauthorizedError,
    UserProfile,
)

from selfimprint.config import Settings

pytestmark = pytest.mark.e2e


def test_an_app_posts_asks_and_reads_with_the_blocking_client(
    stack_settings: Settings, tenant_key: str
) -> None:
    user = f"py-{uuid.uuid4().hex[:8]}"
    said = Message(
        id="m1",
        role="user",
        text="My sister Anna is moving to Lisbon in June.",
        sent_at=datetime.now(UTC).replace(microsecond=0),
    )
    with SelfImprint(stack_settings.api_url, tenant_key) as memory:
        created = memory.put_user(user, UserProfile(plan="paid", time_zone="Europe/Lisbon"))
        assert created["profile"]["time_zone"] == "Europe/Lisbon"
        assert memory.get_user(user)["profile"]["plan"] == "paid"

        first = memory.post_messages(user, [said])
        again = memory.post_messages(user, [said])  # a retry: idempotent on the id
        assert (first.accepted, first.duplicates) == (1, 0)
        assert (again.accepted, again.duplicates) == (0, 1)

        # Asked at once, before extraction ran or while it runs: the words are there.
        ctx = memory.context(
            user, "What could I give her as a farewell present?", after_message="m1"
        )
        assert "Lisbon" in ctx.context and ctx.tokens <= 400
        remembered = {s for m in ctx.memories for s in m.sources}
        assert "m1" in [p.id for p in ctx.pending_messages] or "m1" in remembered, ctx

        assert isinstance(memory.portrait(user), str)
        assert isinstance(memory.portrait_data(user)["memories"], list)
        assert memory.forget(user, "Lisbon")["dry_run"] is True  # the dry run is the default

        with pytest.raises(NotFoundError) as missing:
            memory.get_user(f"nobody-{uuid.uuid4().hex[:6]}")
        assert (missing.value.status, missing.value.code) == (404, "unknown_user")
        with pytest.raises(NotFoundError) as gone:
            memory.memory(user, "no-such-memory")
        assert gone.value.code == "unknown_memory"
        with pytest.raises(InvalidRequestError) as unknown:
            memory.context(user, "Anything?", after_message="never-sent")
        assert unknown.value.code == "unknown_message"

    with SelfImprint(stack_settings.api_url, "si_nobody_x") as stranger:
        with pytest.raises(UnauthorizedError):
            stranger.get_user(user)

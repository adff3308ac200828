"""The reinforcement rate limit (spec §6): repeating a claim cannot pump a memory."""

from __future__ import annotations

from selfimprint.config import Settings
from tests.scenarios.support import a_life


async def test_fifteen_reinforcements_in_a_day_apply_ten_and_flag_the_memory(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (tallies never read back), every mention counts and nothing is flagged."""
    claim = "I am the best chess player in the whole city."
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(claim)
        for _ in range(15):  # each its own batch: one batch reinforces a memory once
            await life.say(claim)
        (memory,) = [m for m in await life.memories() if m["content"] == claim]
        assert memory["flagged"] is True
        assert len(memory["sources"]) == 16  # every mention is still evidence
        detail = await life.http.get(f"/v1/users/{life.user_id}/memories/{memory['id']}")
        assert detail.json()["memory"]["flagged"] is True

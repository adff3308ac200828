"""Topic shifts (issue 32, domain.structured.topics): a message that answers the other side and
then turns to the user's own news ("..., how did it go? By the way, I'm allergic to peanuts.")
is read as two runs, each from its own words: the reply as small talk (not stored), the news as
a fact of its own, not diluted by the reply."""

from __future__ import annotations

from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import a_life

REPLY = "Wow, that sounds amazing, how did the show go?"
NEWS = "By the way, I'm allergic to peanuts and cashews."
TOGETHER = "That sounds amazing, how did the show go? I'm allergic to shellfish, sadly."


def _memories_of(memories: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    return [m for m in memories if m["content"] in text]


async def test_the_news_after_a_topic_shift_is_a_memory_of_its_own(
    stack_settings: Settings, tenant_key: str
) -> None:
    """The reply before "By the way" is small talk and is not stored; the allergy is a fact
    citing the message, and a question about allergies is answered with it. Without a cue the
    message stays one memory. Rule removed (no topic_shift cue), the first message is read
    whole, as small talk (the head gives it 0.94), and the allergy is not stored at all (seen)."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(f"{REPLY} {NEWS}")
        await life.say(TOGETHER)
        memories = await life.memories()
        (news,) = _memories_of(memories, f"{REPLY} {NEWS}")
        assert (news["content"], news["type"]) == (NEWS, "fact"), memories
        (together,) = _memories_of(memories, TOGETHER)
        assert together["content"] == TOGETHER, memories
        context = await life.context("Am I allergic to any nuts?")
        assert NEWS in {m["content"] for m in context["memories"]}, context

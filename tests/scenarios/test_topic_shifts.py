"""Topic shifts (issue 32, domain.structured.topics): a message that answers the other side and
then turns to the user's own news ("..., how did it go? By the way, I'm allergic to peanuts.")
is not small talk because its opening is: the news types it, and it is kept whole."""

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


async def test_news_after_a_topic_shift_is_not_lost_as_small_talk(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Read whole, the first message is small talk (the head: none 0.54, feeling 0.20); its
    news after "By the way" is a fact, so the message is stored, as a fact, and a question about
    allergies is answered with it. The second message has no cue and is about the user anyway.
    Rule removed (no topic_shift cue), the allergy is not stored at all (seen)."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(f"{REPLY} {NEWS}")
        await life.say(TOGETHER)
        memories = await life.memories()
        (news,) = _memories_of(memories, f"{REPLY} {NEWS}")
        assert (news["content"], news["type"]) == (f"{REPLY} {NEWS}", "fact"), memories
        (together,) = _memories_of(memories, TOGETHER)
        assert together["content"] == TOGETHER, memories
        context = await life.context("Am I allergic to any nuts?")
        assert news["content"] in {m["content"] for m in context["memories"]}, context

"""Reinforcement and compaction merge only what says the same thing (issue 19): over weeks, a
user's different statements that embed close stay apart, and what they repeat is one memory."""

from __future__ import annotations

from selfimprint.config import Settings
from tests.scenarios.support import a_life

# Each later line embeds within e5 cosine 0.92 of the first (0.95, 0.92, 0.97) but says
# something else: another number, a question, a plan instead of what happened.
FIRST = ("I have two kids.", "My brother lives in Berlin.", "I went hiking on Saturday.")
LATER = (
    "I have three kids.",
    "Does my brother still live in Berlin?",
    "I'm planning to go hiking on Saturday.",
)
BAR_EXAM = "I'm studying for the bar exam."
BAR_EXAM_AGAIN = "so yeah, I'm studying for the bar exam..."  # e5 cosine 0.94, same words


async def test_different_statements_that_embed_close_stay_apart_over_weeks(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (cosine >= 0.92 alone, as before), each later line reinforces the first one:
    its words are gone and the first memory claims its message as a source."""
    async with a_life(stack_settings, tenant_key) as life:
        first_ids = [await life.say(text) for text in (*FIRST, BAR_EXAM)]
        await life.days_pass(6)
        later_ids = [await life.say(text) for text in LATER]
        again = await life.say(BAR_EXAM_AGAIN)
        await life.days_pass(9)  # a weekly compaction ran on the user's graph
        await life.say("Nothing much today.")
        memories = {m["content"]: m for m in await life.memories()}
        for text, ids in zip((*FIRST, *LATER), (*first_ids[:3], *later_ids), strict=True):
            assert memories[text]["sources"] == ids, (text, sorted(memories))
        # What the user repeated is one memory that cites both messages.
        assert BAR_EXAM_AGAIN not in memories
        assert memories[BAR_EXAM]["sources"] == [*first_ids[3], *again]


async def test_compaction_folds_only_restatements_said_in_one_batch(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Ingestion compares a candidate with stored memories, not with its own batch, so two lines
    of one batch are two memories until the weekly compaction dedupes them. Rule removed from
    compaction (cosine > 0.92 alone), "three kids" is folded into "two kids"."""
    async with a_life(stack_settings, tenant_key) as life:
        await life.say("I have two kids.", "I have three kids.")
        await life.say("I love my new road bike.", "I love my new road bike!")
        for _ in range(5):  # a weekly compaction runs within these ten days
            await life.say("Nothing much today.")
            await life.days_pass(2)
        contents = [m["content"] for m in await life.memories()]
        assert "I have two kids." in contents and "I have three kids." in contents, contents
        bikes = [c for c in contents if c.startswith("I love my new road bike")]
        assert len(bikes) == 1, contents

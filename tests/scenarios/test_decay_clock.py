"""Forgetting over weeks (spec §3.3, §3.8.1): what a user away for two months comes back to,
and how a backfilled conversation is dated."""

from __future__ import annotations

from datetime import datetime, timedelta

from selfimprint.config import Settings
from tests.scenarios.support import a_life

FACTS = (
    "My dog is a grey whippet called Tofu.",
    "I play the cello in an amateur orchestra on Thursdays.",
)


async def test_away_sixty_days_then_back_the_old_facts_still_come_back(
    stack_settings: Settings, tenant_key: str
) -> None:
    """The clock pauses after 7 idle days: 60 days away cost 7 days of decay (0.92**7 ~ 0.56),
    not 60 (0.007, below the 0.05 removal threshold). Rule removed (no decay clock recorded),
    both facts are gone from the context and from the graph."""
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(*FACTS)
        await life.days_pass(60)  # sleeps, compactions, warm and cold tier moves happen here
        await life.say("Hi again, I'm back from a long trip.")
        await life.until_hot()
        context = await life.context("How is my dog Tofu doing? And the orchestra?")
        used = {m["content"] for m in context["memories"]}
        assert set(FACTS) <= used, context
        weights = {m["content"]: m["weight"] for m in await life.memories()}
        # Both sides of the 7-day pause (issue 33): a clock pausing after 6 idle days would
        # leave 0.92**6 ~ 0.61, one pausing after 8 days 0.92**8 ~ 0.51.
        assert 0.92**7.5 < weights[FACTS[0]] < 0.92**6.5, weights


async def test_a_backfilled_conversation_keeps_its_sent_at_times(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Messages imported 90 days late are dated when they were written (recency, decay and
    time-of-day patterns depend on it). Rule removed: created_at is the import time."""
    async with a_life(stack_settings, tenant_key) as life:
        said = life.clock.now - timedelta(days=90, hours=5)
        await life.say("I started learning Portuguese with an app.", sent_at=said)
        (memory,) = await life.memories()
        assert datetime.fromisoformat(memory["created_at"]) == said

"""A question that names someone finds what the user said about them weeks ago (issue 19:
lexical relevance in retrieval), although two weeks of newer chatter outweigh it on recency and
weight, and its embedding is barely closer to the question than the chatter's."""

from __future__ import annotations

from selfimprint.config import Settings
from tests.scenarios.support import a_life
from tests.scenarios.test_compaction_over_weeks import CHATTER

COUSIN = "My cousin Dmitri lives in Kazan."


async def test_a_question_naming_someone_finds_what_was_said_about_them(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (`retrieval_lexical_pool` = 0: similarity alone), the newer chatter fills
    the context and the cousin is not in it."""
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(COUSIN)
        for line in CHATTER:  # two weeks of other things, a line or two a day
            await life.days_pass(0.9)
            await life.say(line)
        # A small budget (a few memories), so that the context must choose.
        context = await life.context("Is Dmitri coming to visit?", budget_tokens=120)
        contents = [m["content"] for m in context["memories"]]
        assert COUSIN in contents, contents
        assert len(contents) < len(CHATTER) // 2

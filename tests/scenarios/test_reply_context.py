"""A terse answer is found by the question it answered (domain.reply_context): the assistant
asked what the user painted, the user said "A sunset over the harbour", and after two days of
newer chatter "What did I paint?" brings that answer back, although none of its words are the
question's."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from selfimprint.config import Settings
from tests.scenarios.support import Life, a_life
from tests.scenarios.test_compaction_over_weeks import CHATTER

ASKED = "What did you paint at the art class last weekend?"
ANSWER = "A sunset over the harbour, all orange and purple."


async def _two_days_after_the_answer(life: Life) -> list[str]:
    await life.say(ASKED, role="assistant")
    await life.say(ANSWER, sent_at=life.clock.now + timedelta(seconds=5))
    for line in CHATTER[:8]:  # other things, a few hours apart
        await life.days_pass(0.25)
        await life.say(line)
    # A small budget (a few memories), so that the context must choose.
    context = await life.context("What did I paint?", budget_tokens=60)
    return [m["content"] for m in context["memories"]]


async def test_an_answer_is_found_by_the_question_it_answered(
    stack_settings: Settings, tenant_key: str
) -> None:
    async with a_life(stack_settings, tenant_key) as life:
        contents = await _two_days_after_the_answer(life)
        stored = {m["content"] for m in await life.memories()}
    assert ASKED not in stored  # the assistant's words are no memory
    assert ANSWER in contents, contents
    assert len(contents) <= 4


async def test_without_reply_context_the_newer_chatter_wins(
    stack_settings: Settings, tenant_key: str, tmp_path: Path
) -> None:
    """The rule removed (`ingestion.reply_context_chars` 0): the same life, and the answer is
    not in the context. Keeps the test above from passing on the answer's own words."""
    tuning = tmp_path / "tuning.json"
    tuning.write_text(json.dumps({"ingestion": {"reply_context_chars": 0}}), "utf-8")
    async with a_life(stack_settings, tenant_key, tuning_file=tuning) as life:
        contents = await _two_days_after_the_answer(life)
    assert contents and ANSWER not in contents, contents

"""Belief confidence moves with evidence in the running system (the epistemic-memory article,
issue 16): what the user keeps saying over the weeks is confirmed and gains confidence; what a
later statement contradicts is challenged, loses confidence, and ranks lower in the context than
it did (the score's confidence factor, `scoring.confidence_factor`). A confirmation lifts the
score only where `scoring.confidence_support_share` says so (0 by default: the restatement has
already lifted the memory's weight and recency)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import Life, a_life

SISTER = "My sister Ana lives in Lisbon with her two cats."
BROTHER = "My brother Tom lives in Porto with his old dog."
QUESTION = "Tell me about my sister and my brother, where do they live?"
# The restatement in the words of restatement.py's own scenario: same words, looser form.
AGAIN = "so yeah, {}.."

JOB = "I work as an engineer at Initech, mostly on the billing system."
QUIT = "I quit Initech, I am not working there anymore."


def _similarity_only(folder: Path, **scoring: float) -> Path:
    """A tuning file whose score is similarity alone, so only the confidence factor moves it;
    without reply context (domain.reply_context), so that two statements said one after the
    other stay equally relevant (the second would otherwise also be read after the first); and
    without the context's lower rank for a memory a contradiction ended (issue 33), which
    would lower a contradicted memory's score whatever its confidence."""
    tuning = folder / "tuning.json"
    weights = {"similarity_weight": 1.0, "recency_weight": 0.0, "effective_weight_weight": 0.0}
    no_replies = {"reply_context_chars": 0}
    current_alike = {"superseded_score_factor": 1.0}
    tuning.write_text(
        json.dumps(
            {"scoring": weights | scoring, "ingestion": no_replies, "context": current_alike}
        )
    )
    return tuning


def _by_content(memories: list[dict[str, Any]], text: str) -> dict[str, Any]:
    found = [m for m in memories if m["content"] == text]
    assert found, (text, [(m["type"], m["content"]) for m in memories])
    return found[0]


async def _scores(life: Life) -> dict[str, float]:
    used = (await life.context(QUESTION, budget_tokens=4000))["memories"]
    return {m["content"]: float(m["score"]) for m in used}


async def test_what_the_user_keeps_saying_is_confirmed_and_wins_the_context(
    stack_settings: Settings, tenant_key: str, tmp_path: Path
) -> None:
    """Rule removed (the restatement recorded no evidence), the confirmed memory's confidence
    and `confirmed_at` stay as they were, and it stays below the other one in the context.

    The score here is similarity alone and a confirmation counts whole (a tuning file):
    reinforcement also lifts a restated memory's weight and recency, which would rank it first
    without any confidence at all."""
    tuning = _similarity_only(tmp_path, confidence_support_share=1.0)
    async with a_life(stack_settings, tenant_key, tuning_file=tuning) as life:
        await life.say(SISTER, BROTHER)
        before = await _scores(life)
        # The one the question is a little less about is the one the user keeps coming back to.
        low, high = sorted((SISTER, BROTHER), key=lambda t: before[t])
        assert before[low] > 0.85 * before[high], before  # equally relevant, near enough
        memories = await life.memories()
        start = _by_content(memories, low)
        assert start["confirmed_at"] is None
        restated: list[str] = []
        for _ in range(3):  # three later sessions, five days apart
            await life.days_pass(5)
            restated += await life.say(AGAIN.format(low[0].lower() + low[1:].rstrip(".")))
        memory = (await life.memory(start["id"]))["memory"]
        assert memory["sources"][-3:] == restated, memory  # each restatement reinforced it
        assert memory["confirmed_at"] is not None
        assert datetime.fromisoformat(memory["confirmed_at"]) > datetime.fromisoformat(
            start["created_at"]
        )
        other = _by_content(await life.memories(), high)
        assert other["confirmed_at"] is None
        # Fifteen days later the confirmed memory is surer than when it was new, the other one
        # has faded (dormancy, component 4).
        assert memory["confidence"] > start["confidence"] > other["confidence"], (memory, other)
        after = await _scores(life)
        assert after[low] > after[high], (before, after)


async def test_a_contradicted_memory_is_challenged(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (the contradiction recorded no evidence against the old memory), its
    confidence is the untouched one's and `challenged_at` stays empty."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(JOB)
        job = _by_content(await life.memories(), JOB)
        assert job["challenged_at"] is None
        await life.days_pass(3)
        await life.say(QUIT)
        memories = await life.memories()
        quit_ = _by_content(memories, QUIT)
        challenged = _by_content(memories, JOB)
        assert challenged["challenged_at"] is not None, challenged
        assert challenged["confirmed_at"] is None
        # Lower than it was, and lower than dormancy alone over three days would make it.
        assert challenged["confidence"] < 0.9 * job["confidence"], (job, challenged)
        assert quit_["challenged_at"] is None


PART_TIME = "I also tutor kids in maths at the library on Saturdays."
WORK_QUESTION = "What do I do for work these days?"


async def test_a_challenged_memory_ranks_lower_than_it_did(
    stack_settings: Settings, tenant_key: str, tmp_path: Path
) -> None:
    """The default factor: a contradicted memory's score falls by its confidence factor while an
    untouched one's stays. Rule removed (the factor off, or the challenge not recorded), the
    challenged memory's score is what it was. The score here is similarity alone (a tuning file
    that leaves the factor at its defaults), so the down-weight of the contradicted memory's
    weight, which would lower it anyway, does not count."""
    tuning = _similarity_only(tmp_path)
    async with a_life(
        stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED, tuning_file=tuning
    ) as life:
        await life.say(JOB, PART_TIME)
        used = (await life.context(WORK_QUESTION, budget_tokens=4000))["memories"]
        before = {m["content"]: float(m["score"]) for m in used}
        await life.days_pass(3)
        await life.say(QUIT)
        challenged = _by_content(await life.memories(), JOB)
        assert challenged["challenged_at"] is not None, challenged
        used = (await life.context(WORK_QUESTION, budget_tokens=4000))["memories"]
        after = {m["content"]: float(m["score"]) for m in used}
        assert before[PART_TIME] > 0.0, before
        job_ratio = after[JOB] / before[JOB]
        other_ratio = after[PART_TIME] / before[PART_TIME]
        # One contradiction takes ~0.1 off confidence: ~x0.95 at the default weight of 0.5.
        assert job_ratio < 0.98 * other_ratio, (before, after)
        assert job_ratio > 0.5, (before, after)  # the factor's floor at weight 0.5

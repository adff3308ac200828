"""Forgetting demotes (issue 32): what a user said once, months ago, fades out of the default
context but is not destroyed. A specific question brings it back (recognition); a loosely
related one does not; and a tension the user never resolved outlives the decay of both sides."""

from __future__ import annotations

from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from selfimprint.domain.decay import DEFAULT_DECAY
from tests.scenarios.support import Life, a_life

ALLERGY = "I'm allergic to penicillin, found out the hard way in 2019."
SISTER = "My sister Olga lives in Tallinn with her two kids."
CHATTER = (
    "Watched a documentary about octopuses last night, wild stuff.",
    "The weather has been grey for a week now.",
    "Trying a new sourdough recipe this weekend.",
    "Finally fixed the squeaky door in the hallway.",
    "Started reading a long novel about a lighthouse keeper.",
    "My phone battery dies by lunchtime these days.",
    "Went for a long walk along the river on Sunday.",
)


def _memory(memories: list[dict[str, Any]], text: str) -> dict[str, Any]:
    found = [m for m in memories if m["content"] == text]
    assert found, (text, [m["content"] for m in memories])
    return found[0]


async def _used(life: Life, question: str) -> set[str]:
    context = await life.context(question)
    return {m["content"] for m in context["memories"]}


async def test_a_fact_said_once_is_recognised_six_months_later(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Two facts said once, then a message of unrelated chatter every two weeks for six
    months (the decay clock runs 7 of every 14 days: ~90 days of decay, a fact's weight under
    0.92**90, far below the 0.05 removal threshold; the weekly sweeps run while the user is
    active, a monthly message would let the graph sit in the warm tier between sweeps). Both
    facts have faded; a question about each brings it back, an unrelated question does not.
    Rules removed: with the sweeper deleting every faded memory, the facts are gone from the
    graph; without recognition, they stay out of every context."""
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(ALLERGY, SISTER)
        for week in range(13):
            await life.days_pass(14)  # sleeps, weekly compactions (the sweeper), tier moves
            await life.say(CHATTER[week % len(CHATTER)])
            await life.until_hot()

        memories = await life.memories()
        for fact in (ALLERGY, SISTER):
            assert _memory(memories, fact)["weight"] < DEFAULT_DECAY.removal_threshold  # faded

        assert ALLERGY in await _used(life, "Which medicine am I allergic to?")
        assert SISTER in await _used(life, "Where does my sister live?")
        unrelated = await _used(life, "Any tips for my garden?")
        assert not {ALLERGY, SISTER} & unrelated, unrelated


JOB = "I work as a nurse at St. Mary's hospital, mostly night shifts."
QUIT = "I quit St. Mary's, I am not working there anymore."


async def test_an_unresolved_tension_outlives_the_decay_of_both_sides(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Day 0 a job, day 1 quitting it, then a message every 6 days (the user never idle long
    enough to pause the decay clock): by day 43 the job has faded and six weekly sweeps have
    run, and the tension the user never resolved is
    still on the record (issue 33's finding). Rule removed (the sweeper deleting faded facts),
    the tensions log is empty."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(JOB)
        await life.days_pass(1)
        await life.say(QUIT)
        answer = await life.http.get(f"/v1/users/{life.user_id}/tensions")
        assert answer.status_code == 200, answer.text
        (tension,) = answer.json()["tensions"]
        for day in range(6, 43, 6):
            await life.days_pass(6)
            await life.say(CHATTER[day % len(CHATTER)])
        memories = await life.memories()
        assert _memory(memories, JOB)["weight"] < DEFAULT_DECAY.removal_threshold
        answer = await life.http.get(
            f"/v1/users/{life.user_id}/tensions", params={"status": "unresolved"}
        )
        assert answer.status_code == 200, answer.text
        assert [t["id"] for t in answer.json()["tensions"]] == [tension["id"]]

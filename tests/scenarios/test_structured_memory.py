"""Structured extraction over weeks (issue 17): what a user says becomes typed memories, so the
type-keyed rules act on it; a change said weeks later is a tension with the older memory."""

from __future__ import annotations

from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import a_life


def _by_content(memories: list[dict[str, Any]], text: str) -> dict[str, Any]:
    found = [m for m in memories if m["content"] == text]
    assert found, (text, [(m["type"], m["content"]) for m in memories])
    return found[0]


async def test_a_feeling_fades_faster_than_a_fact(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (extraction=verbatim: every message a fact), both fade alike."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(
            "I am so frustrated and angry with myself today.",
            "I work as a pharmacist at a hospital in Leeds.",
        )
        memories = await life.memories()
        feeling = _by_content(memories, "I am so frustrated and angry with myself today.")
        job = _by_content(memories, "I work as a pharmacist at a hospital in Leeds.")
        assert (feeling["type"], feeling["valence"]) == ("emotional_note", "negative")
        assert job["type"] == "fact"
        for day in (1, 2, 3):  # three days, the user active on each (the decay clock runs)
            await life.days_pass(1)
            await life.say(f"Another ordinary day number {day} at the pharmacy counter.")
        now = {m["id"]: m for m in await life.memories()}
        # Spec §3.3: negative notes 0.5/day, facts 0.92/day: after three active days the note
        # holds (0.5/0.92)^3 ~ 0.16 of the fact's weight relative to where each started.
        assert feeling["id"] not in now or (
            now[feeling["id"]]["weight"] / feeling["weight"]
            < 0.5 * now[job["id"]]["weight"] / job["weight"]
        )


async def test_a_job_ended_weeks_later_is_a_tension_with_the_old_job(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rules removed (no slot claims, or the extractor shown only the 12 latest memories), the
    old job stands unchallenged."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say("I work as a nurse at St. Mary's hospital, mostly night shifts.")
        job = _by_content(
            await life.memories(), "I work as a nurse at St. Mary's hospital, mostly night shifts."
        )
        weeks_of_life = [
            "My sister Olga is visiting from Riga next month.",
            "I started learning the cello, it is harder than I thought.",
            "We adopted a grey cat called Biscuit from the shelter.",
            "I am trying to run three times a week before breakfast.",
            "My neighbour Tomas fixed my bike chain on Saturday.",
            "I finally finished reading that long novel about whaling.",
            "I am planning a trip to Porto with friends in the autumn.",
            "The new dentist near the station is surprisingly gentle.",
            "I bake sourdough bread every Sunday morning now.",
            "My colleague Priya recommended a podcast about sleep.",
            "I switched my phone plan to a cheaper provider.",
            "We painted the living room a pale green colour.",
            "I have been drinking less coffee and more green tea.",
            "My friend Dan got engaged to his girlfriend in Vienna.",
        ]
        for text in weeks_of_life:
            await life.days_pass(1.5)
            await life.say(text)
        await life.days_pass(1)
        await life.say("I quit St. Mary's, I am not working there anymore.")
        memories = await life.memories()
        quit_ = _by_content(memories, "I quit St. Mary's, I am not working there anymore.")
        detail = await life.memory(quit_["id"])
        assert any(
            e["type"] == "contradicts" and e["other_id"] == job["id"] for e in detail["edges"]
        ), detail["edges"]
        tensions = (await life.portrait()).split("# Tensions", 1)[1]
        assert "status:unresolved" in tensions and "St. Mary's hospital" in tensions


async def test_a_relative_date_becomes_a_scheduled_trigger(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rules removed (triggers and smart skip read written dates only), "the day after
    tomorrow" is nothing to prepare for: the night's sleep is skipped or schedules nothing, and
    the surgery loses to what matches dinner."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        for day in range(8):  # a week of talk: the sleep schedule has begun
            await life.say(f"Day {day}: I walked the dog along the river again this morning.")
            await life.days_pass(1)
        await life.say(
            "My knee surgery is the day after tomorrow, at the city hospital.",
            "I love cooking Thai green curry with lots of basil.",
            "I usually make pasta with garlic and olive oil on weekdays.",
            "My favourite dinner is grilled salmon with rice.",
            "I bake bread on Sundays, mostly rye.",
        )
        await life.days_pass(1)  # the night's sleep schedules what is coming up
        context = await life.context("Any ideas for dinner tonight?")
        ranked = [m["content"] for m in context["memories"]]  # best first
        # Inside its trigger window the surgery outranks all but at most one dinner memory.
        assert "My knee surgery is the day after tomorrow, at the city hospital." in ranked[:2], (
            ranked
        )

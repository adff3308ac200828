"""The session review and the prepared open-loop questions reach the context (issue 16; the
epistemic-memory article, component 8; spec §3.5.1 operation 6)."""

from __future__ import annotations

from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import Life, a_life

# Ten things the user says, one per session (verbatim extraction: each one a fact).
FACTS = [
    "I live in a small flat near the river in Bristol.",
    "My favourite food is my grandmother's mushroom soup.",
    "I play five-a-side football every Thursday evening.",
    "I have a younger brother who studies chemistry in Glasgow.",
    "I drink my coffee black with no sugar.",
    "I am learning Portuguese on my lunch breaks.",
    "I grew up on a sheep farm in Wales.",
    "I prefer trains to planes whenever I can.",
    "I keep a vegetable patch with tomatoes and beans.",
    "I work night shifts at a bakery on weekends.",
]


async def _review_of(life: Life, message: str) -> dict[str, Any] | None:
    review: dict[str, Any] | None = (await life.context(message))["review"]
    return review


async def test_the_tenth_session_asks_the_review_and_answers_move_the_beliefs(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (the lifecycle never starts the review: `self._start_review()` dropped from
    its loop), the 10th session's context carries no review."""
    async with a_life(stack_settings, tenant_key) as life:
        for session, fact in enumerate(FACTS, start=1):
            if session > 1:
                await life.days_pass(1)  # a day of silence: the next message opens a session
            await life.say(fact)
            if session == 9:
                assert await _review_of(life, "How was your week?") is None
        context = await life.context("How was your week?")
        review = context["review"]
        assert review is not None, context
        memories = {m["content"]: m for m in await life.memories()}
        by_confidence = sorted(memories.values(), key=lambda m: (-m["confidence"], m["id"]))
        highest = [i["memory_id"] for i in review["items"] if i["side"] == "highest"]
        lowest = [i["memory_id"] for i in review["items"] if i["side"] == "lowest"]
        # Dormancy decay: the belief confirmed longest ago is the least sure now.
        assert highest == [m["id"] for m in by_confidence[:3]]
        assert lowest == [m["id"] for m in reversed(by_confidence[-3:])]
        assert memories[FACTS[-1]]["id"] in highest and memories[FACTS[0]]["id"] in lowest
        assert "Before we go on" in context["context"]
        assert FACTS[0] in context["context"]

        wrong, confirmed = highest[0], lowest[0]
        before = {m: (await life.memory(m))["memory"]["confidence"] for m in (wrong, confirmed)}
        url = f"/v1/users/{life.user_id}/reviews/{review['id']}"
        body = {
            "answers": [
                {"memory_id": wrong, "verdict": "wrong"},
                {"memory_id": confirmed, "verdict": "confirm"},
            ]
        }
        answered = await life.http.post(url, json=body)
        assert answered.status_code == 200, answered.text
        after = {m: (await life.memory(m))["memory"] for m in (wrong, confirmed)}
        assert after[wrong]["confidence"] == 0.0 < before[wrong]
        assert after[wrong]["status"] == "refuted"
        assert after[confirmed]["confidence"] > before[confirmed]

        again = await life.http.post(url, json=body)  # a retry: nothing moves again
        assert again.status_code == 200, again.text
        assert (await life.memory(confirmed))["memory"]["confidence"] == (
            after[confirmed]["confidence"]
        )
        other = {"answers": [{"memory_id": wrong, "verdict": "confirm"}]}
        conflict = await life.http.post(url, json=other)
        assert conflict.status_code == 409, conflict.text
        assert conflict.json()["error"]["code"] == "review_already_answered"
        outsider = {"answers": [{"memory_id": "not-in-it", "verdict": "confirm"}]}
        stranger = await life.http.post(url, json=outsider)
        assert stranger.status_code == 422, stranger.text
        missing = await life.http.post(url.replace(review["id"], "review-99"), json=body)
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "review_not_found")

        later = await life.context("How was your week?")
        assert later["review"] is None and "Before we go on" not in later["context"]


async def test_an_ignored_review_stops_being_asked_but_can_still_be_answered(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (the prompts query without its offer-window filter), the review still
    closes the context three days after its session."""
    async with a_life(stack_settings, tenant_key) as life:
        for session, fact in enumerate(FACTS, start=1):
            if session > 1:
                await life.days_pass(1)
            await life.say(fact)
        review = await _review_of(life, "How was your week?")
        assert review is not None
        await life.days_pass(3)  # the user never answers; the window is 2 days
        later = await life.context("How was your week?")
        assert later["review"] is None and "Before we go on" not in later["context"], later
        first = review["items"][0]["memory_id"]
        answered = await life.http.post(
            f"/v1/users/{life.user_id}/reviews/{review['id']}",
            json={"answers": [{"memory_id": first, "verdict": "confirm"}]},
        )
        assert answered.status_code == 200, answered.text


async def test_a_question_the_sleep_prepared_reaches_a_later_context(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (the read path passes no prepared questions to the assembly), the question
    is missing from open_loop_questions while the open loop is not in the context."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        loop = "I still haven't heard back from the landlord about the deposit."
        await life.say(
            loop,
            "I bought a new pair of running shoes yesterday.",
            "My cousin Marta is getting married in Lisbon.",
            "I cooked a big pot of chilli for the whole week.",
            "The bus to work was late again this morning.",
        )
        memories = {m["content"]: m for m in await life.memories()}
        assert memories[loop]["type"] == "open_loop", memories[loop]
        for _ in range(3):  # the sleeps of three days prepare their questions
            await life.days_pass(1)
            await life.say("Another quiet day at work, nothing special happened.")
        context = await life.context("What should I cook for dinner with pasta?", budget_tokens=50)
        assert memories[loop]["id"] not in {m["id"] for m in context["memories"]}
        prepared = [q for q in context["open_loop_questions"] if "landlord" in q]
        assert prepared and prepared[0].startswith("Earlier the user mentioned"), context


async def test_calling_wrong_what_the_user_keeps_saying_opens_a_divergence(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Issue 33, the two evidence streams (article, component 6): the user restated one fact in
    a later session (observed support), then the review asks and they call it wrong (self-
    report against). The answer is applied (refuted, out of the context) and a divergence
    tension keeps both sides. The other belief called wrong was said once (no direction in
    the user's words): no tension. Rule removed (answers open no divergence), GET /tensions is
    empty."""
    restated = FACTS[3]
    async with a_life(stack_settings, tenant_key) as life:
        for session, fact in enumerate(FACTS, start=1):
            if session > 1:
                await life.days_pass(1)
            await life.say(fact)
            if session == 9:
                await life.say(restated)  # the same words again: the memory is reinforced
        review = await _review_of(life, "How was your week?")
        assert review is not None
        memories = {m["content"]: m for m in await life.memories()}
        highest = [i["memory_id"] for i in review["items"] if i["side"] == "highest"]
        said_twice = memories[restated]["id"]
        assert said_twice == highest[0], (review, memories[restated])
        said_once = highest[1]
        answered = await life.http.post(
            f"/v1/users/{life.user_id}/reviews/{review['id']}",
            json={
                "answers": [
                    {"memory_id": said_twice, "verdict": "wrong"},
                    {"memory_id": said_once, "verdict": "wrong"},
                ]
            },
        )
        assert answered.status_code == 200, answered.text
        assert (await life.memory(said_twice))["memory"]["status"] == "refuted"
        listed = await life.http.get(f"/v1/users/{life.user_id}/tensions")
        assert listed.status_code == 200, listed.text
        (tension,) = listed.json()["tensions"]
        assert (tension["kind"], tension["status"]) == ("divergence", "unresolved"), tension
        assert (tension["a"]["id"], tension["a"]["content"]) == (said_twice, restated)
        assert tension["b"]["content"] == "Called wrong in the session review"
        assert not tension["b"]["faded"]
        portrait = await life.http.get(f"/v1/users/{life.user_id}/portrait")
        assert portrait.status_code == 200, portrait.text
        assert "kind:divergence" in portrait.text

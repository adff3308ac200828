"""A hypothesis over simulated days (issue 16): the sleep phase forms it from two memories, later
sessions are its evidence (silent consistency, article component 7), and the per-sleep check
confirms, refutes or archives it (spec §3.5.2) in the running system.

The sleep LLM is scripted to propose one statement citing the first two memories it is shown;
each scenario asks for one full pass (formation) and then light passes (the check, no
re-proposal), as an operator's `selfimprint sleep run` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

import tests.scenarios.support as scenario_support
from selfimprint.config import Settings
from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_policy import Depth
from tests.scenarios.support import Life, a_life
from tests.scenarios.test_fading import CHATTER
from tests.workflows.support import ScriptedLLM

RUNS = "The user runs every morning before work."
CITED = ("I run every morning before work.", "Went for my morning run before work again.")


@pytest.fixture(autouse=True)
def _sleep_llm_proposes_the_running_habit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # `a_life` builds its sleep LLM as `ScriptedLLM(worth_reasoning=True)`: give it a statement.
    monkeypatch.setattr(scenario_support, "ScriptedLLM", partial(ScriptedLLM, statements=[RUNS]))
    yield


async def _sleep(life: Life, depth: Depth) -> None:
    await life.sleep(depth)


async def _hypothesis(life: Life) -> dict[str, Any] | None:
    wanted = hypothesis_id(life.user_id, RUNS)
    return next((m for m in await life.memories() if m["id"] == wanted), None)


async def _formed(life: Life) -> dict[str, Any]:
    cited = await life.say(*CITED)
    await _sleep(life, Depth.FULL)
    formed = await _hypothesis(life)
    assert formed is not None, [m["content"] for m in await life.memories()]
    assert (formed["type"], formed["status"], formed["is_inference"]) == (
        "hypothesis",
        "active",
        True,
    )
    assert set(cited) <= set(formed["sources"])
    return formed


async def test_a_hypothesis_supported_in_three_later_sessions_becomes_a_fact(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (later memories never scored as supporting), it stays an active hypothesis."""
    async with a_life(stack_settings, tenant_key) as life:
        formed = await _formed(life)
        later: list[str] = []
        for text in (
            # Three different runs (no restatement of each other or of the cited two, which
            # would reinforce a memory rather than add one).
            "Morning run before work done, 5 km along the canal.",
            "Ran 8 km this morning before work, a new personal best on the hill.",
            "Before work I did my morning run in the rain with a friend from the club.",
        ):
            await life.days_pass(1)
            later += await life.say(text)
            await _sleep(life, Depth.LIGHT)
        fact = await _hypothesis(life)
        assert fact is not None
        assert (fact["type"], fact["is_inference"]) == ("fact", False)
        assert set(later) <= set(fact["sources"])  # the later messages are its sources now
        assert fact["confidence"] > formed["confidence"]  # three observed confirmations


async def test_a_hypothesis_contradicted_twice_as_often_as_supported_is_refuted(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Both sides of the refute ratio (2x, spec §3.5.2; issue 33): one supporting session, then
    one contradicting session (1 against 1: below the ratio, still active), then a second (2
    against 1: at the ratio, refuted and deleted). Rules removed: with no contradicting stance
    it is still listed at the end; with a ratio of 1 it is refuted a session early; with a
    ratio above 2 it is never refuted here."""
    async with a_life(stack_settings, tenant_key) as life:
        await _formed(life)
        await life.days_pass(1)
        await life.say("Morning run before work done, 5 km along the canal.")
        await _sleep(life, Depth.LIGHT)
        await life.days_pass(1)
        await life.say("I don't run in the mornings anymore, my knee hurts.")
        await _sleep(life, Depth.LIGHT)
        still = await _hypothesis(life)
        assert still is not None and still["status"] == "active", still
        await life.days_pass(1)
        await life.say("I stopped running before work, I sleep in instead.")
        await _sleep(life, Depth.LIGHT)
        assert await _hypothesis(life) is None
        # Deleted (spec §3.5.2), not archived: the memory itself is gone.
        wanted = hypothesis_id(life.user_id, RUNS)
        gone = await life.http.get(f"/v1/users/{life.user_id}/memories/{wanted}")
        assert gone.status_code == 404, gone.text


async def test_a_hypothesis_silent_for_14_days_is_archived_unresolved(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (no deadline in the check), it stays active and in the context."""
    async with a_life(stack_settings, tenant_key) as life:
        await _formed(life)
        before = await life.context("Should I run before work tomorrow morning?")
        assert RUNS in str(before)
        await life.days_pass(15)
        await life.until_hot()  # 15 silent days moved the graph to the warm tier
        await _sleep(life, Depth.LIGHT)
        await life.until_hot()
        # Kept for history, no longer used in context.
        archived = await _hypothesis(life)
        assert archived is not None
        assert (archived["type"], archived["status"]) == ("hypothesis", "archived_unresolved")
        after = await life.context("Should I run before work tomorrow morning?")
        assert RUNS not in str(after)


async def test_an_archived_hypothesis_stays_as_history_through_three_months_of_chatter(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Issue 33: archived hypotheses are "kept for history" (spec §3.5.2). After the archive,
    a message of unrelated chatter every two weeks for three months (weekly sweeps while the
    user is active; the hypothesis has long faded): the export still holds it, archived, with
    the messages it was formed from, and no context uses it. Rule removed (the sweeper deleting
    faded hypotheses, as it deleted every faded memory before issue 32), it is gone."""
    async with a_life(stack_settings, tenant_key) as life:
        formed = await _formed(life)
        await life.days_pass(15)
        await life.until_hot()
        await _sleep(life, Depth.LIGHT)
        await life.until_hot()
        for text in CHATTER:
            await life.days_pass(14)
            await life.say(text)
            await life.until_hot()
        answer = await life.http.get(f"/v1/users/{life.user_id}/export")
        assert answer.status_code == 200, answer.text
        document = answer.json()
        wanted = hypothesis_id(life.user_id, RUNS)
        (record,) = [h for h in document["graph"]["hypotheses"] if h["node_id"] == wanted]
        assert record["status"] == "archived_unresolved", record
        (node,) = [n for n in document["graph"]["nodes"] if n["id"] == wanted]
        assert set(formed["sources"]) <= set(node["sources"])
        context = await life.context("Should I run before work tomorrow morning?")
        assert RUNS not in str(context)


# Each shares one topic with RUNS, too few to surface it (two needed). The stance rule reads
# their negations as contradicting ("never miss"); the scripted model reads them as support.
MODEL_READS = (
    "I never miss a single morning, whatever the weather.",
    "Not once this month have I been late for work.",
    "Haven't missed a morning in weeks.",
)


@pytest.mark.parametrize("surfaced", [False, True], ids=["never-surfaced", "surfaced"])
async def test_model_support_confirms_only_a_hypothesis_the_dialogue_touched(
    surfaced: bool, stack_settings: Settings, tenant_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33, the reality anchor in the lifecycle: three later memories that only the model
    reads as support. Never surfaced in dialogue, the hypothesis stays an active hypothesis;
    once the user's own question touched it, the same support confirms it as a fact. Rule
    removed (model-only support counted whatever the anchor says), the never-surfaced one
    becomes a fact; with model support never counted, the surfaced one stays a hypothesis."""
    stances = dict.fromkeys(MODEL_READS, "supporting")
    monkeypatch.setattr(
        scenario_support, "ScriptedLLM", partial(ScriptedLLM, statements=[RUNS], stances=stances)
    )
    async with a_life(stack_settings, tenant_key, model_stance=True) as life:
        await _formed(life)
        if surfaced:
            await life.days_pass(1)
            await life.say("Should I run before work tomorrow morning?")
        for text in MODEL_READS:
            await life.days_pass(1)
            await life.say(text)
        # One full pass reads all three (the model judges stances on full passes only).
        await _sleep(life, Depth.FULL)
        after = await _hypothesis(life)
        assert after is not None
        if surfaced:
            assert (after["type"], after["is_inference"]) == ("fact", False), after
        else:
            assert (after["type"], after["status"]) == ("hypothesis", "active"), after

"""The inference policy in hypothesis formation (issue 33): whatever the sleep model proposes,
a hypothesis in a category the deployment never infers is not stored, and the pass counts the
rejection. The user's medical flag (their profile, set through the API) lets a health inference
form with the high bar; a diagnosis is never inferred.

The sleep LLM is scripted to propose the statements below, each citing the first two memories
it is shown, as in `test_hypothesis_lifecycle.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

import tests.scenarios.support as scenario_support
from selfimprint.config import Settings
from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_policy import Depth
from tests.scenarios.support import Life, a_life
from tests.scenarios.test_hypothesis_lifecycle import _sleep
from tests.workflows.support import ScriptedLLM
from workflows.user_lifecycle import UserLifecycleWorkflow

RUNS = "The user runs every morning before work."
HEALTH = "The user often feels sick and tired in the mornings."
DIAGNOSIS = "The user probably has diabetes."
SAID = (
    "I run every morning before work, even when I feel rough.",
    "Went for my morning run before work again, felt tired after.",
)


@pytest.fixture(autouse=True)
def _sleep_llm_proposes_forbidden_inferences(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    statements = [RUNS, HEALTH, DIAGNOSIS]  # the answer holds three at most
    monkeypatch.setattr(
        scenario_support, "ScriptedLLM", partial(ScriptedLLM, statements=statements)
    )
    yield


async def _formed(life: Life) -> set[str]:
    ids = {m["id"] for m in await life.memories() if m["type"] == "hypothesis"}
    proposed = (RUNS, HEALTH, DIAGNOSIS)
    return {s for s in proposed if hypothesis_id(life.user_id, s) in ids}


async def _last_summary(life: Life) -> str:
    handle = life.env.client.get_workflow_handle(life.lifecycle_id)
    state = await handle.query(UserLifecycleWorkflow.state)
    assert state.sleep.last is not None
    return state.sleep.last.summary


async def test_a_never_infer_hypothesis_is_not_stored_and_is_counted(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (formation classifying without the policy), the two forbidden statements
    are stored as hypotheses."""
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(*SAID)
        await _sleep(life, Depth.FULL)
        assert await _formed(life) == {RUNS}
        assert "hypotheses_rejected_by_policy 2" in await _last_summary(life)


async def test_a_medical_deployment_lets_a_health_inference_form_but_no_diagnosis(
    stack_settings: Settings, tenant_key: str
) -> None:
    """The other side of the medical flag: set on the user's profile, the health statement
    forms (with the high bar); the diagnosis is still rejected. Rule
    removed (the flag not reaching formation), the health statement is rejected too."""
    async with a_life(stack_settings, tenant_key) as life:
        answer = await life.http.put(
            f"/v1/users/{life.user_id}", json={"plan": "paid", "medical_deployment": True}
        )
        assert answer.status_code == 200, answer.text
        await life.say(*SAID)
        await _sleep(life, Depth.FULL)
        assert await _formed(life) == {RUNS, HEALTH}
        assert "hypotheses_rejected_by_policy 1" in await _last_summary(life)


# Paraphrases the lexicon has no term for (criminal history, sexual orientation): only the
# semantic second opinion reads them (domain.policy_references).
PARAPHRASED = (
    "The user may have been locked up in the past.",
    "The user seems to fancy men.",
)


async def test_a_never_infer_paraphrase_the_lexicon_misses_is_not_stored(
    stack_settings: Settings, tenant_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33, the policy's semantic check in hypothesis formation: the model side scores
    each proposal against the labelled statements, the formation escalates on the operator's
    thresholds. The two paraphrases are not stored and are counted; the running habit is (the
    other side). Rule removed (proposals carry no second opinion), both are stored."""
    statements = [RUNS, *PARAPHRASED]
    monkeypatch.setattr(
        scenario_support, "ScriptedLLM", partial(ScriptedLLM, statements=statements)
    )
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(*SAID)
        await _sleep(life, Depth.FULL)
        ids = {m["id"] for m in await life.memories() if m["type"] == "hypothesis"}
        formed = {s for s in statements if hypothesis_id(life.user_id, s) in ids}
        assert formed == {RUNS}, formed
        assert "hypotheses_rejected_by_policy 2" in await _last_summary(life)

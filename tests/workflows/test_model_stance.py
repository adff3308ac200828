"""SleepPhaseWorkflow with a model configured (issue 16): before the hypothesis check, the model
re-judges the pairs the stance rule finds worth reading, and its verdict is the evidence."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_writes import SleepStatus
from tests.workflows.support import (
    Harness,
    IngestionStub,
    MemoryGraphs,
    ScriptedLLM,
    fact_memory,
    start_full_sleep,
    workers,
)
from workflows.sleep_phase import SleepOutcome

pytestmark = pytest.mark.workflows

CLAIM = "The user runs every morning before work"
# One shared stem ("run") and no embeddings: the rule needs two, so it calls this neutral.
CHORE = "Running feels like a chore lately."


async def _sleep(
    env: WorkflowEnvironment, h: Harness, user: str, n: int, *, model: bool
) -> SleepOutcome:
    return await (await start_full_sleep(env.client, h, user, n, model_stance=model)).result()


@pytest.mark.parametrize("model", [True, False])
async def test_the_models_verdict_turns_a_rule_neutral_memory_into_contradicting_evidence(
    own_env: WorkflowEnvironment, model: bool
) -> None:
    env = own_env
    llm = ScriptedLLM(statements=[CLAIM], stances={CHORE: "contradicting"})
    q = f"q-{uuid.uuid4().hex[:12]}"
    h = Harness(MemoryGraphs(), llm, IngestionStub(), q, f"{q}-gpu")
    user = "u-stance"
    graph = h.graphs.for_user("t1", user)
    start = await env.get_current_time()
    for i, text in enumerate(["I run every morning before work.", "Morning run before work."]):
        graph.nodes[f"n{i}"] = fact_memory(user, i, text, start)
    node_id = hypothesis_id(user, CLAIM)
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        first = await _sleep(env, h, user, 0, model=model)
        assert first.counts["hypotheses_formed"] == 1
        assert "StanceAnswer" not in llm.calls  # nothing later than the hypothesis yet
        llm.statements = ()  # no reinforcement: the later memory is evidence only by stance
        await env.sleep(timedelta(days=1))
        graph.nodes["n9"] = fact_memory(user, 9, CHORE, await env.get_current_time())
        second = await _sleep(env, h, user, 1, model=model)
    assert second.status is SleepStatus.COMPLETED
    hypothesis = graph.hypotheses[node_id]
    if model:
        assert llm.calls["StanceAnswer"] == 1 and second.counts["stances_judged"] == 1
        assert hypothesis.contradicting == ("n9",)
        assert graph.nodes[node_id].belief.confidence < 0.5
    else:
        # Without a model the rule's verdict stands: neutral, nothing counted, no model call.
        assert "StanceAnswer" not in llm.calls and "stances_judged" not in second.counts
        assert hypothesis.contradicting == ()


async def test_a_model_failure_leaves_the_rules_verdicts_and_the_check_runs(
    own_env: WorkflowEnvironment,
) -> None:
    env = own_env
    llm = ScriptedLLM(
        statements=[CLAIM],
        stance_failure=ApplicationError("model server refused", non_retryable=True),
    )
    q = f"q-{uuid.uuid4().hex[:12]}"
    h = Harness(MemoryGraphs(), llm, IngestionStub(), q, f"{q}-gpu")
    user = "u-stance-down"
    graph = h.graphs.for_user("t1", user)
    start = await env.get_current_time()
    for i, text in enumerate(["I run every morning before work.", "Morning run before work."]):
        graph.nodes[f"n{i}"] = fact_memory(user, i, text, start)
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        await _sleep(env, h, user, 0, model=True)
        llm.statements = ()
        await env.sleep(timedelta(days=1))
        graph.nodes["n9"] = fact_memory(user, 9, CHORE, await env.get_current_time())
        second = await _sleep(env, h, user, 1, model=True)
    assert llm.calls["StanceAnswer"] == 1  # asked, failed
    assert second.status is SleepStatus.COMPLETED
    assert second.counts["stances_judged"] == 0
    assert "hypotheses_active" in second.counts  # the check ran on the rule's verdicts
    assert graph.hypotheses[hypothesis_id(user, CLAIM)].contradicting == ()

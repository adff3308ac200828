"""SleepPhaseWorkflow with the real sleep activities over an in-memory graph: the hypothesis
lifecycle of spec §3.5.2 across simulated days."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from selfimprint.domain.models import Belief, HypothesisStatus, Node, NodeType, Valence
from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_writes import SleepStatus
from tests.workflows.support import (
    Harness,
    IngestionStub,
    MemoryGraphs,
    ScriptedLLM,
    start_full_sleep,
    workers,
)
from workflows.sleep_phase import SleepOutcome

pytestmark = pytest.mark.workflows

CLAIM = "The user may be under pressure from work deadlines"


def _seed(graphs: MemoryGraphs, user: str, now: datetime) -> None:
    graph = graphs.for_user("t1", user)
    for i, (kind, text) in enumerate(
        [(NodeType.EMOTIONAL_NOTE, "Stressed about the release"), (NodeType.EVENT, "Release")]
    ):
        node = Node(
            id=f"n{i}",
            user_id=user,
            type=kind,
            content=text,
            valence=Valence.NEGATIVE if kind is NodeType.EMOTIONAL_NOTE else None,
            weight_at=now,
            created_at=now,
            sources=(f"msg{i}",),
            belief=Belief(first_seen=now),
        )
        graph.nodes[node.id] = node


async def _sleep(env: WorkflowEnvironment, h: Harness, user: str, n: int) -> SleepOutcome:
    return await (await start_full_sleep(env.client, h, user, n)).result()


def _harness(llm: ScriptedLLM) -> Harness:
    q = f"q-{uuid.uuid4().hex[:12]}"
    return Harness(MemoryGraphs(), llm, IngestionStub(), q, f"{q}-gpu")


async def test_hypothesis_without_evidence_is_archived_on_day_14(
    own_env: WorkflowEnvironment,
) -> None:
    env = own_env  # a clock no other test's timers move
    llm = ScriptedLLM(statements=[CLAIM])
    h = _harness(llm)
    _seed(h.graphs, "u14", await env.get_current_time())
    graph = h.graphs.for_user("t1", "u14")
    node_id = hypothesis_id("u14", CLAIM)
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        first = await _sleep(env, h, "u14", 0)
        assert first.status is SleepStatus.COMPLETED
        assert first.counts["hypotheses_formed"] == 1
        assert graph.hypotheses[node_id].status is HypothesisStatus.ACTIVE
        llm.statements = ()  # never proposed again: no reinforcement, no evidence
        await env.sleep(timedelta(days=13, hours=23))
        await _sleep(env, h, "u14", 1)
        assert graph.hypotheses[node_id].status is HypothesisStatus.ACTIVE
        # the reality anchor discounted the never-surfaced hypothesis (spec §5)
        assert graph.nodes[node_id].belief.confidence < 0.5 * 0.95**13
        await env.sleep(timedelta(hours=2))
        last = await _sleep(env, h, "u14", 2)
    assert graph.hypotheses[node_id].status is HypothesisStatus.ARCHIVED_UNRESOLVED
    assert last.counts["hypotheses_archived_unresolved"] == 1


async def test_three_reinforcements_without_conversion_get_stuck(
    own_env: WorkflowEnvironment,
) -> None:
    env = own_env
    h = _harness(ScriptedLLM(statements=[CLAIM]))
    _seed(h.graphs, "u3", await env.get_current_time())
    graph = h.graphs.for_user("t1", "u3")
    node_id = hypothesis_id("u3", CLAIM)
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        for day in range(3):
            await _sleep(env, h, "u3", day)
            hypothesis = graph.hypotheses[node_id]
            assert hypothesis.reinforcements == day
            assert hypothesis.status is HypothesisStatus.ACTIVE
        outcome = await _sleep(env, h, "u3", 3)
    assert graph.hypotheses[node_id].reinforcements == 3
    assert graph.hypotheses[node_id].status is HypothesisStatus.ARCHIVED_STUCK
    assert outcome.counts["hypotheses_archived_stuck"] == 1
    # one hypothesis node, however often the pass arrived at it
    assert sum(n.type is NodeType.HYPOTHESIS for n in graph.nodes.values()) == 1

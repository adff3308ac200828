"""A sleep pass's texts and vectors travel by reference (issue 35): the memories shown to the
model, its proposals and the pairs it judges are staged (activities/payload_stage.py) and the
pass's history holds none of them."""

from __future__ import annotations

import base64
import json
import os
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

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
from workflows.sleep_phase import SleepOutcome, SleepPhaseWorkflow

pytestmark = pytest.mark.workflows

HISTORIES = Path(__file__).parent / "histories"
CLAIM = "The user runs every morning before work"
MEMORIES = ("I run every morning before work.", "Morning run before work.")
LATER = "Running feels like a chore lately."


async def _start(
    env: WorkflowEnvironment, h: Harness, user: str, n: int
) -> WorkflowHandle[SleepPhaseWorkflow, SleepOutcome]:
    return await start_full_sleep(env.client, h, user, n, model_stance=True)


async def _history(
    handle: WorkflowHandle[SleepPhaseWorkflow, SleepOutcome], name: str | None = None
) -> str:
    """The run's history as JSON; SELFIMPRINT_RECORD_HISTORIES=1 also keeps a named one for the
    replay test."""
    history = await handle.fetch_history()
    text = history.to_json()
    if name and os.environ.get("SELFIMPRINT_RECORD_HISTORIES"):
        HISTORIES.mkdir(exist_ok=True)
        (HISTORIES / f"{name}.json").write_text(json.dumps(json.loads(text), indent=1))
    return text


def _payloads(node: object) -> list[str]:
    """Every payload of a history's JSON, decoded (the JSON holds them in base64)."""
    if isinstance(node, dict):
        if "metadata" in node and isinstance(node.get("data"), str):
            return [base64.b64decode(node["data"]).decode("utf-8", "replace")]
        return [p for value in node.values() for p in _payloads(value)]
    if isinstance(node, list):
        return [p for value in node for p in _payloads(value)]
    return []


async def test_a_pass_stages_its_texts_and_its_history_holds_none_of_them(
    own_env: WorkflowEnvironment,
) -> None:
    env = own_env
    llm = ScriptedLLM(statements=[CLAIM], stances={LATER: "contradicting"})
    q = f"q-{uuid.uuid4().hex[:12]}"
    h = Harness(MemoryGraphs(), llm, IngestionStub(), q, f"{q}-gpu")
    user = "u-staged"
    graph = h.graphs.for_user("t1", user)
    start = await env.get_current_time()
    for i, text in enumerate(MEMORIES):
        graph.nodes[f"n{i}"] = fact_memory(user, i, text, start)
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        first = await _start(env, h, user, 0)
        formed = await first.result()
        llm.statements = ()
        await env.sleep(timedelta(days=1))
        graph.nodes["n9"] = fact_memory(user, 9, LATER, await env.get_current_time())
        second = await _start(env, h, user, 1)
        judged = await second.result()
        histories = [await _history(first), await _history(second, "sleep_pass_staged")]
    # The staged values made the round trip: the model read the memories and proposed, the
    # graph stored the proposal, the model judged the staged pair and its verdict counted.
    assert formed.counts["hypotheses_formed"] == 1
    assert judged.status is SleepStatus.COMPLETED and judged.counts["stances_judged"] == 1
    hypothesis = next(iter(graph.hypotheses.values()))
    assert hypothesis.contradicting == ("n9",)
    assert set(h.payload_stages.written) >= {
        "new_memories",
        "hypothesis_context",
        "proposals",
        "stance_pairs",
    }
    # Each run drops its stages when it finishes.
    assert h.payload_stages.dropped == ["sleep-u-staged-0", "sleep-u-staged-1"]
    assert h.payload_stages.stages == {}
    # No memory, statement or pair in either history.
    for history in histories:
        payloads = _payloads(json.loads(history))
        assert any("sleep-u-staged" in p for p in payloads)  # the decoding finds the inputs
        said = "\n".join(payloads)
        for text in (*MEMORIES, LATER, CLAIM):
            assert text not in said

"""The sleep phase's model side (activities/sleep.py, gpu queue) embeds the statements it
proposes, where memories are embedded: the cpu workers that check hypotheses hold no model."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from activities.sleep import HypothesisContext, ProposeInput, SleepModelActivities
from tests.workflows.support import ScriptedLLM

pytestmark = pytest.mark.unit


class CountingEmbedder:
    model_id = "counting-2d"
    dimension = 2
    similarity_floor = 0.0

    def __init__(self) -> None:
        self.passages: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("statements are passages, as memories are")

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.passages += texts
        return [[1.0, float(len(t))] for t in texts]


CONTEXT = HypothesisContext(
    memory_ids=["n1", "n2"],
    memories=["Long meetings drain me.", "After the planning meeting I was exhausted."],
    patterns=[],
)


async def test_proposed_statements_come_back_with_their_vectors() -> None:
    embedder = CountingEmbedder()
    claim = "The user feels drained after long meetings."
    model = SleepModelActivities(ScriptedLLM(statements=[claim]), embedder)
    (proposal,) = (await model.propose_hypotheses(ProposeInput(context=CONTEXT))).proposals
    assert proposal.evidence == ["n1", "n2"] and embedder.passages == [claim]
    assert proposal.embedding == [1.0, float(len(claim))]
    assert proposal.embedding_model == "counting-2d"


async def test_without_an_embedder_statements_carry_no_vector() -> None:
    model = SleepModelActivities(ScriptedLLM(statements=["The user runs at dawn."]))
    (proposal,) = (await model.propose_hypotheses(ProposeInput(context=CONTEXT))).proposals
    assert proposal.embedding is None and proposal.embedding_model is None

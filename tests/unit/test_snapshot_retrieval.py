"""Retrieval over a snapshot in memory follows the Neo4j read path's rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.domain.belief import Evidence, EvidenceStream, update_belief
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    HypothesisStatus,
    Node,
    NodeType,
)
from selfimprint.domain.scoring import ScoringConfig
from selfimprint.ports import GraphSnapshot, RetrievalQuery

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)
MODEL = "e5"


def node(nid: str, vector: tuple[float, ...] | None, **fields: Any) -> Node:
    values: dict[str, Any] = {
        "id": nid,
        "user_id": "u",
        "type": NodeType.FACT,
        "content": f"memory {nid}",
        "weight_at": NOW - timedelta(days=1),
        "created_at": NOW - timedelta(days=1),
        "sources": (f"msg-{nid}",),
        "belief": Belief(first_seen=NOW - timedelta(days=1)),
        "embedding": vector,
        "embedding_model": MODEL if vector is not None else None,
    }
    return Node.model_validate(values | fields)


def hypothesis(nid: str, status: HypothesisStatus) -> Hypothesis:
    return Hypothesis(node_id=nid, status=status, created_at=NOW, deadline=NOW + timedelta(14))


def snapshot() -> GraphSnapshot:
    nodes = (
        node("close", (1.0, 0.0, 0.0)),
        node("near", (0.8, 0.6, 0.0)),
        node("far", (0.0, 0.0, 1.0)),
        # Faded, and no query here recognises it (cosine 0.1: calibrated similarity 0.1).
        node("expired", (0.1, 0.995, 0.0), expires_at=NOW - timedelta(hours=1)),
        node("other-model", (1.0, 0.0, 0.0), embedding_model="bge-m3"),
        node("no-vector", None),
        node("refuted", (1.0, 0.0, 0.0), type=NodeType.HYPOTHESIS, is_inference=True),
        node("confirmed", (0.9, 0.1, 0.0), type=NodeType.HYPOTHESIS, is_inference=True),
    )
    edges = (
        Edge(source_id="close", target_id="no-vector", type=EdgeType.CAUSED_BY, created_at=NOW),
        Edge(source_id="expired", target_id="close", type=EdgeType.FOLLOWED_BY, created_at=NOW),
        Edge(source_id="far", target_id="no-vector", type=EdgeType.CAUSED_BY, created_at=NOW),
    )
    return GraphSnapshot(
        user_id="u",
        exported_at=NOW,
        nodes=nodes,
        edges=edges,
        hypotheses=(
            hypothesis("refuted", HypothesisStatus.REFUTED),
            hypothesis("confirmed", HypothesisStatus.CONFIRMED),
        ),
        tensions=(),
    )


# The pool's recognition filter, with faded memories that hold their room off (issue 32:
# with it on, the context, not the pool, tells recognised faded memories apart).
RECOGNISED_ONLY = ScoringConfig(faded_hold_room=False)


def query(limit: int = 3) -> RetrievalQuery:
    return RetrievalQuery(
        embedding=(1.0, 0.0, 0.0),
        embedding_model=MODEL,
        now=NOW,
        limit=limit,
        scoring=RECOGNISED_ONLY,
    )


def test_candidates_are_the_most_similar_active_memories_of_the_query_model() -> None:
    found = retrieve_from_snapshot(snapshot(), query())
    assert [c.node.id for c in found.candidates] == ["close", "confirmed", "near"]
    assert found.candidates[0].similarity == pytest.approx(1.0)  # (1 + cos) / 2, as Neo4j
    assert found.candidates[2].similarity == pytest.approx(0.9)
    assert all(c.node.embedding is None for c in found.candidates)


def test_the_neighbourhood_holds_active_memories_only() -> None:
    found = retrieve_from_snapshot(snapshot(), query())
    assert [n.id for n in found.neighbours] == ["no-vector"]
    # The edge from the expired memory is not part of the answer; the far one touches no
    # candidate.
    assert [(e.source_id, e.target_id) for e in found.edges] == [("close", "no-vector")]


def test_a_faded_memory_is_a_candidate_only_when_the_query_recognises_it() -> None:
    """Issue 32, as in the Neo4j statement: an expired memory is kept out of the pool unless its
    calibrated similarity to the query reaches `scoring.recognition_min_similarity` (the floor;
    its distinctiveness, off here, is held against Neo4j's by tests/integration)."""
    scoring = ScoringConfig(recognition_min_distinctiveness=None, faded_hold_room=False)
    bar = scoring.recognition_min_similarity
    faded = NOW - timedelta(hours=1)

    def at(similarity: float) -> tuple[float, float, float]:
        return (similarity, (1.0 - similarity**2) ** 0.5, 0.0)

    nodes = (
        node("recognised", at(bar + 0.01), expires_at=faded),
        node("not-quite", at(bar - 0.01), expires_at=faded),
        node("live", at(bar - 0.01)),
    )
    snap = snapshot().model_copy(update={"nodes": nodes, "edges": (), "hypotheses": ()})
    asked = query(limit=10).model_copy(update={"nearest_limit": 10, "scoring": scoring})
    found = retrieve_from_snapshot(snap, asked)
    assert {c.node.id for c in found.candidates} == {"recognised", "live"}
    # A faded memory holds its room in the context (the shipped default): the pool reads it.
    holding = asked.model_copy(
        update={"scoring": scoring.model_copy(update={"faded_hold_room": True})}
    )
    found = retrieve_from_snapshot(snap, holding)
    assert {c.node.id for c in found.candidates} == {"recognised", "not-quite", "live"}


def test_a_snapshot_without_vectors_of_the_model_gives_nothing() -> None:
    other = RetrievalQuery(embedding=(1.0, 0.0, 0.0), embedding_model="x", now=NOW)
    assert retrieve_from_snapshot(snapshot(), other).candidates == ()


def test_a_memory_naming_the_querys_words_joins_and_wins() -> None:
    """Lexical relevance, as in the Neo4j statement: "Kazan" is far in embedding space but the
    only memory saying the query's rare word; it enters the pool and outranks the closer ones."""
    named = node("named", (0.0, 0.0, 1.0), content="We moved to Kazan in 2019.")
    nodes = (*snapshot().nodes, named)
    snap = snapshot().model_copy(update={"nodes": nodes})
    plain = retrieve_from_snapshot(snap, query(limit=2).model_copy(update={"nearest_limit": 2}))
    assert "named" not in {c.node.id for c in plain.candidates}
    lexical = query(limit=2).model_copy(
        update={"nearest_limit": 2, "prior_limit": 0, "terms": ("kazan", "move")}
    )
    found = retrieve_from_snapshot(snap, lexical)
    by_id = {c.node.id: c for c in found.candidates}
    assert by_id["named"].lexical == 1.0
    assert {c.lexical for c in found.candidates if c.node.id != "named"} == {0.0}


def test_a_challenged_memory_ranks_below_an_equally_similar_untouched_one() -> None:
    """The confidence factor (scoring.confidence_factor), as the Neo4j statement applies it."""
    seen = NOW - timedelta(days=30)
    untouched = Belief(first_seen=seen)
    challenged = update_belief(
        untouched, Evidence(id="m-9", stream=EvidenceStream.OBSERVED, supports=False, at=NOW)
    ).belief
    confirmed = update_belief(
        untouched, Evidence(id="m-8", stream=EvidenceStream.OBSERVED, supports=True, at=NOW)
    ).belief

    def first(*nodes: Node, scoring: ScoringConfig | None = None) -> str:
        snap = snapshot().model_copy(update={"nodes": nodes})
        ask = query(limit=1)
        if scoring is not None:
            ask = ask.model_copy(update={"scoring": scoring})
        return retrieve_from_snapshot(snap, ask).candidates[0].node.id

    a_challenged = node("a-challenged", (1.0, 0.0, 0.0), belief=challenged)
    b_untouched = node("b-untouched", (1.0, 0.0, 0.0), belief=untouched)
    assert first(a_challenged, b_untouched) == "b-untouched"
    # Without the factor the two tie and the id decides.
    assert first(a_challenged, b_untouched, scoring=ScoringConfig(confidence_weight=0.0)) == (
        "a-challenged"
    )
    # A confirmation does not lift (support share 0) unless the share says so.
    a_untouched = node("a-untouched", (1.0, 0.0, 0.0), belief=untouched)
    b_confirmed = node("b-confirmed", (1.0, 0.0, 0.0), belief=confirmed)
    assert first(a_untouched, b_confirmed) == "a-untouched"
    lift = ScoringConfig(confidence_support_share=1.0)
    assert first(a_untouched, b_confirmed, scoring=lift) == "b-confirmed"

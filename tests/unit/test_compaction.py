"""Graph compaction plans (spec §3.9)."""

from __future__ import annotations

import math
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.domain.compaction.config import CompactionConfig, CompactionLimits
from selfimprint.domain.compaction.duplicates import SimilarPair, plan_merges
from selfimprint.domain.compaction.edges import EdgeKey, edge_confidence
from selfimprint.domain.compaction.entropy import EntropyConfig, entropy_metrics, is_aggressive
from selfimprint.domain.compaction.plan import (
    CompactionPlan,
    EdgeRemovalReason,
    NodeRemovalReason,
    apply_compaction,
    plan_compaction,
)
from selfimprint.domain.compaction.soft_reset import plan_soft_reset, should_soft_reset
from selfimprint.domain.decay import expires_at, node_effective_weight
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    EvidenceKind,
    Node,
    NodeType,
    Permanence,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
LONG_AGO = NOW - timedelta(days=60)


def node(
    node_id: str,
    *,
    node_type: NodeType = NodeType.FACT,
    weight: float = 0.5,
    pinned: bool = False,
    embedding: tuple[float, ...] | None = None,
    model: str = "test-embedder",
    created: datetime = LONG_AGO,
    reinforced: datetime | None = None,
    sources: tuple[str, ...] = (),
    inference: bool = False,
    content: str = "The user keeps bees on the roof.",
) -> Node:
    # One statement by default, so that the embedding alone decides what merges.
    return Node(
        id=node_id,
        user_id="u1",
        type=node_type,
        content=content,
        weight=weight,
        weight_at=created,
        created_at=created,
        last_reinforced_at=reinforced,
        is_pinned=pinned,
        is_inference=inference,
        sources=sources,
        belief=Belief(first_seen=created),
        embedding=embedding,
        embedding_model=model if embedding is not None else None,
    )


def edge(
    source: str,
    target: str,
    *,
    edge_type: EdgeType = EdgeType.ASSOCIATED_WITH,
    confidence: float = 0.9,
    inferred: bool = False,
    created: datetime = NOW - timedelta(days=1),
    reinforced: datetime | None = None,
) -> Edge:
    return Edge(
        source_id=source,
        target_id=target,
        type=edge_type,
        confidence=confidence,
        is_inferred=inferred,
        created_at=created,
        last_reinforced_at=reinforced,
    )


def keys(edges: tuple[Edge, ...] | list[Edge]) -> set[EdgeKey]:
    return {EdgeKey.of(e) for e in edges}


# --- edge confidence decay ----------------------------------------------------------------


def test_confidence_is_unchanged_without_elapsed_time() -> None:
    fresh = edge("a", "b", confidence=0.6, created=NOW)
    assert edge_confidence(fresh, NOW) == pytest.approx(0.6)


def test_inferred_edges_fade_faster_than_observed_ones() -> None:
    old = NOW - timedelta(days=30)
    inferred = edge_confidence(edge("a", "b", confidence=0.5, inferred=True, created=old), NOW)
    observed = edge_confidence(edge("a", "b", confidence=0.5, created=old), NOW)
    assert inferred < observed < 0.5


def test_reinforcement_restarts_the_decay() -> None:
    old = NOW - timedelta(days=200)
    stale = edge("a", "b", confidence=0.5, inferred=True, created=old)
    reinforced = edge("a", "b", confidence=0.5, inferred=True, created=old, reinforced=NOW)
    assert edge_confidence(stale, NOW) < 0.1
    assert edge_confidence(reinforced, NOW) == pytest.approx(0.5)


def test_a_paused_decay_clock_stops_edge_decay() -> None:
    old = edge("a", "b", confidence=0.5, inferred=True, created=NOW - timedelta(days=300))
    assert edge_confidence(old, NOW, elapsed_days=lambda start, end: 0.0) == pytest.approx(0.5)


def test_edges_below_the_threshold_are_removed() -> None:
    old = NOW - timedelta(days=100)
    nodes = [node("a"), node("b"), node("c")]
    weak = edge("a", "b", confidence=0.5, inferred=True, created=old)  # 0.5 * 0.98^100 ≈ 0.07
    strong = edge("b", "c", confidence=0.95, created=old)  # 0.95 * 0.99^100 ≈ 0.35
    plan = plan_compaction(nodes, [weak, strong], NOW)
    assert [(r.key, r.reason) for r in plan.removed_edges] == [
        (EdgeKey.of(weak), EdgeRemovalReason.DECAYED)
    ]
    # "a" lost its only edge in this same pass, so it goes too.
    assert [n.node_id for n in plan.removed_nodes] == ["a"]


# --- duplicates ---------------------------------------------------------------------------


def test_near_duplicates_merge_into_the_heaviest_node() -> None:
    nodes = [
        node("light", weight=0.3, embedding=(1.0, 0.0, 0.0), sources=("m1", "m2")),
        node("heavy", weight=0.8, embedding=(0.99, 0.05, 0.0), sources=("m2", "m3")),
        node("other", embedding=(0.0, 1.0, 0.0)),
        node("friend", node_type=NodeType.PERSON),
    ]
    edges = [
        edge("light", "other", confidence=0.7),
        edge("heavy", "other", confidence=0.9),
        edge("light", "friend", edge_type=EdgeType.CAUSED_BY),
        edge("light", "heavy", edge_type=EdgeType.REINFORCES),
    ]
    plan = plan_compaction(nodes, edges, NOW)
    (merge,) = plan.merges
    assert merge.survivor_id == "heavy"
    assert merge.merged_ids == ("light",)
    # The heaviest member's weight as it is now, re-based to now with a fresh expiry.
    assert merge.weight == pytest.approx(node_effective_weight(nodes[1], NOW))
    assert merge.weight_at == NOW
    assert merge.expires_at == expires_at(merge.weight, NOW, merge.decay_coefficient)
    assert merge.sources == ("m2", "m3", "m1")

    result_nodes, result_edges = apply_compaction(nodes, edges, plan)
    assert {n.id for n in result_nodes} == {"heavy", "other", "friend"}
    assert keys(result_edges) == {
        EdgeKey("heavy", "other", EdgeType.ASSOCIATED_WITH),
        EdgeKey("heavy", "friend", EdgeType.CAUSED_BY),
    }
    # Two edges collapsed onto heavy->other; the more confident one survives.
    (collapsed,) = [e for e in result_edges if e.target_id == "other"]
    assert collapsed.confidence == 0.9
    removed = {r.key: r.reason for r in plan.removed_edges}
    assert removed == {
        EdgeKey("light", "heavy", EdgeType.REINFORCES): EdgeRemovalReason.SELF_LOOP_AFTER_MERGE
    }


def test_merge_union_keeps_observed_status_and_the_slowest_decay() -> None:
    nodes = [
        node("a", weight=0.9, embedding=(1.0, 0.0), inference=True),
        node("b", weight=0.2, embedding=(1.0, 0.01), inference=False),
    ]
    (merge,) = plan_merges(nodes)
    assert merge.survivor_id == "a"
    assert merge.is_inference is False


def test_a_merge_keeps_what_every_member_learned() -> None:
    """Issue 33: the union of belief evidence, the strongest permanence, observed if any was."""
    strong = node("a", weight=0.9, embedding=(1.0, 0.0)).model_copy(
        update={
            "belief": Belief(
                first_seen=LONG_AGO,
                confidence=0.6,
                permanence=Permanence.SITUATIONAL,
                self_report_for=("m1", "m2"),
            )
        }
    )
    weak = node("b", weight=0.2, embedding=(1.0, 0.01)).model_copy(
        update={
            "belief": Belief(
                first_seen=LONG_AGO,
                confidence=0.8,
                confidence_at=LONG_AGO + timedelta(days=3),
                permanence=Permanence.STABLE,
                evidence_kind=EvidenceKind.OBSERVED,
                self_report_for=("m2", "m3"),
                observed_against=("m4",),
            )
        }
    )
    (merge,) = plan_merges([strong, weak])
    assert merge.survivor_id == "a"
    assert merge.permanence is Permanence.STABLE
    assert merge.evidence_kind is EvidenceKind.OBSERVED
    assert merge.self_report_for == ("m1", "m2", "m3")
    assert merge.observed_against == ("m4",)
    # The kept confidence is b's, and so is the moment it refers to.
    assert (merge.confidence, merge.confidence_at) == (0.8, LONG_AGO + timedelta(days=3))
    plan = plan_compaction([strong, weak], [], NOW)
    (survivor,) = apply_compaction([strong, weak], [], plan)[0]
    assert survivor.belief.self_report_for == ("m1", "m2", "m3")
    assert survivor.belief.permanence is Permanence.STABLE


def test_a_merge_is_current_when_a_member_was_said_after_the_change() -> None:
    ended = LONG_AGO + timedelta(days=1)
    old = node("a", weight=0.9, embedding=(1.0, 0.0)).model_copy(update={"valid_until": ended})
    before = node("b", weight=0.2, embedding=(1.0, 0.01), created=LONG_AGO - timedelta(days=5))
    (merge,) = plan_merges([old, before])
    assert merge.valid_until == ended  # both were said before the change: it stays ended
    after = node("c", weight=0.2, embedding=(1.0, 0.01), created=ended + timedelta(days=2))
    (merge,) = plan_merges([old, after])
    assert merge.valid_until is None  # said again after the change: current


@pytest.mark.parametrize(
    ("second", "why"),
    [
        (node("b", node_type=NodeType.EVENT, embedding=(1.0, 0.0)), "different type"),
        (node("b", embedding=(1.0, 0.0), model="other-embedder"), "different embedding model"),
        (node("b", embedding=(0.919, math.sqrt(1 - 0.919**2))), "similarity below 0.92"),
        (node("b"), "no embedding"),
        (node("b", embedding=(1.0, 0.0), content="The user sold the house in March."), "other"),
        (node("b", embedding=(1.0, 0.0), content="The user no longer keeps bees."), "negation"),
    ],
)
def test_nodes_that_must_not_merge(second: Node, why: str) -> None:
    assert plan_merges([node("a", embedding=(1.0, 0.0)), second]) == (), why


def test_pinned_nodes_are_never_absorbed_but_can_absorb() -> None:
    pinned = node("pinned", weight=0.1, pinned=True, embedding=(1.0, 0.0))
    heavy = node("heavy", weight=0.9, embedding=(1.0, 0.001))
    other_pinned = node("pinned2", weight=0.5, pinned=True, embedding=(1.0, 0.002))
    merges = plan_merges([heavy, pinned, other_pinned])
    (merge,) = merges
    assert merge.survivor_id in {"pinned", "pinned2"}
    assert merge.merged_ids == ("heavy",)
    assert merge.weight == 0.9  # the merged node keeps the highest weight


def test_similarity_does_not_chain() -> None:
    # a~b and b~c, but a and c are far apart: c must not be folded into a through b.
    a = node("a", weight=0.9, embedding=(1.0, 0.0))
    b = node("b", weight=0.5, embedding=(math.cos(0.35), math.sin(0.35)))
    c = node("c", weight=0.1, embedding=(math.cos(0.7), math.sin(0.7)))
    (merge,) = plan_merges([a, b, c])
    assert (merge.survivor_id, merge.merged_ids) == ("a", ("b",))


def test_precomputed_similarities_replace_the_embedding_scan() -> None:
    nodes = [node("a", weight=0.7), node("b", weight=0.4), node("c")]
    pairs = [SimilarPair("a", "b", 0.95), SimilarPair("a", "c", 0.5)]
    (merge,) = plan_merges(nodes, similar_pairs=pairs)
    assert (merge.survivor_id, merge.merged_ids) == ("a", ("b",))


def test_precomputed_similarity_must_reach_the_floor() -> None:
    nodes = [node("a", weight=0.7), node("b", weight=0.4)]
    assert plan_merges(nodes, similar_pairs=[SimilarPair("a", "b", 0.919)]) == ()
    assert plan_merges(nodes, similar_pairs=[SimilarPair("a", "b", 0.92)]) != ()


def test_parallel_edges_collapse_without_losing_confidence() -> None:
    recent = edge("a", "b", confidence=0.9, created=NOW - timedelta(days=1))
    ancient = edge("a", "b", confidence=0.2, inferred=True, created=NOW - timedelta(days=90))
    plan = plan_compaction([node("a"), node("b")], [ancient, recent], NOW)
    (rewrite,) = plan.rewritten_edges
    assert rewrite.replaces == (EdgeKey.of(recent),)
    assert rewrite.edge.created_at == ancient.created_at
    assert edge_confidence(rewrite.edge, NOW) == pytest.approx(edge_confidence(recent, NOW))


def test_mismatched_dimensions_within_one_model_are_reported() -> None:
    with pytest.raises(ValueError, match="dimension"):
        plan_merges([node("a", embedding=(1.0, 0.0)), node("b", embedding=(1.0, 0.0, 0.0))])


# --- isolated nodes -----------------------------------------------------------------------


def test_nodes_left_without_edges_go_unless_pinned_or_new() -> None:
    stale = LONG_AGO - timedelta(days=400)  # its edge decayed long ago
    nodes = [
        node("lonely"),
        node("pinned", pinned=True),
        node("new", created=NOW - timedelta(days=2)),
        node("recently_reinforced", reinforced=NOW - timedelta(days=1)),
        node("x"),
        node("y"),
    ]
    edges = [
        edge("x", "y"),
        edge("lonely", "x", created=stale),
        edge("pinned", "x", created=stale),
        edge("new", "x", created=stale),
        edge("recently_reinforced", "x", created=stale),
    ]
    plan = plan_compaction(nodes, edges, NOW)
    assert [(n.node_id, n.reason) for n in plan.removed_nodes] == [
        ("lonely", NodeRemovalReason.ISOLATED)
    ]


def test_an_observed_memory_that_never_had_an_edge_stays() -> None:
    """Spec §3.9 removes nodes *left* without edges: the user's own words with no link yet
    (every verbatim memory) are not edge soup. An unlinked inference is."""
    words = node("words")
    guess = node("guess", inference=True)
    plan = plan_compaction([words, guess], [], NOW)
    assert [n.node_id for n in plan.removed_nodes] == ["guess"]


def test_a_hypothesis_without_edges_is_left_to_its_lifecycle() -> None:
    """Issue 33: a hypothesis's evidence is held by id, not as edges; an archived one is kept
    for history (spec §3.5.2), so isolation never removes it. An inferred fact still goes."""
    hypothesis = node("h", node_type=NodeType.HYPOTHESIS, inference=True)
    guess = node("guess", inference=True)
    plan = plan_compaction([hypothesis, guess], [], NOW)
    assert [n.node_id for n in plan.removed_nodes] == ["guess"]


def test_a_fresh_duplicate_counts_as_a_mention_of_the_old_memory() -> None:
    old = node("old", weight=0.9, embedding=(1.0, 0.0))
    fresh = node("fresh", weight=0.3, embedding=(1.0, 0.0), created=NOW - timedelta(days=1))
    plan = plan_compaction([old, fresh], [], NOW)
    (merge,) = plan.merges
    # The old one decayed for months: the fresh mention is the heavier now and survives, and
    # the memory keeps the old one's history.
    assert (merge.survivor_id, merge.created_at) == ("fresh", LONG_AGO)
    assert merge.last_reinforced_at == NOW - timedelta(days=1)
    assert merge.weight == pytest.approx(node_effective_weight(fresh, NOW))
    assert plan.removed_nodes == ()  # isolated, but just mentioned: within the grace period


def test_dangling_edges_are_cleaned_up() -> None:
    plan = plan_compaction([node("a"), node("b")], [edge("a", "b"), edge("a", "ghost")], NOW)
    assert [(r.key.target_id, r.reason) for r in plan.removed_edges] == [
        ("ghost", EdgeRemovalReason.DANGLING)
    ]


# --- edge budget --------------------------------------------------------------------------


def test_edge_budget_drops_the_least_confident_edges() -> None:
    hub = node("hub")
    leaves = [node(f"leaf{i:02d}") for i in range(25)]
    edges = [edge("hub", f"leaf{i:02d}", confidence=0.5 + i * 0.01) for i in range(25)]
    plan = plan_compaction([hub, *leaves], edges, NOW)
    dropped = {r.key.target_id for r in plan.removed_edges}
    assert dropped == {f"leaf{i:02d}" for i in range(5)}
    assert all(r.reason is EdgeRemovalReason.OVER_BUDGET for r in plan.removed_edges)
    # The leaves that lost their only edge are old and unpinned, so they go as well.
    assert {n.node_id for n in plan.removed_nodes} == dropped


def test_edge_budget_ties_prefer_observed_then_recent_then_key() -> None:
    config = CompactionConfig(normal=CompactionLimits(edge_removal_threshold=0.1, edge_budget=2))
    nodes = [node(n) for n in ("hub", "a", "b", "c", "d")]
    edges = [
        edge("hub", "a", confidence=0.8, inferred=True, created=NOW),
        edge("hub", "b", confidence=0.8, created=NOW - timedelta(hours=1)),
        edge("hub", "c", confidence=0.8, created=NOW),
        edge("hub", "d", confidence=0.8, created=NOW),
    ]
    plan = plan_compaction(nodes, edges, NOW, config)
    kept = {"a", "b", "c", "d"} - {r.key.target_id for r in plan.removed_edges}
    # All equally confident now: observed beats inferred, then the newer, then the key.
    assert kept == {"c", "d"}
    assert plan_compaction(nodes, list(reversed(edges)), NOW, config) == plan


# --- entropy ------------------------------------------------------------------------------


def test_entropy_of_a_triangle_and_a_path() -> None:
    triangle = [node(n) for n in "abc"]
    tri_edges = [edge("a", "b"), edge("b", "c"), edge("c", "a", inferred=True)]
    metrics = entropy_metrics(triangle, tri_edges)
    assert metrics.clustering_coefficient == pytest.approx(1.0)
    assert metrics.avg_shortest_path == pytest.approx(1.0)
    assert metrics.inferred_to_observed == pytest.approx(0.5)

    path = [node(n) for n in "abcd"]
    path_edges = [edge("a", "b"), edge("b", "c"), edge("c", "d")]
    metrics = entropy_metrics(path, path_edges)
    assert metrics.clustering_coefficient == 0.0
    assert metrics.avg_shortest_path == pytest.approx(10 / 6)


def test_entropy_of_an_empty_and_an_all_inferred_graph() -> None:
    empty = entropy_metrics([], [])
    assert (empty.avg_shortest_path, empty.clustering_coefficient, empty.edge_count) == (0, 0, 0)
    only_inferred = entropy_metrics(
        [node("a"), node("b"), node("c")],
        [edge("a", "b", inferred=True), edge("b", "c", inferred=True)],
    )
    assert only_inferred.inferred_to_observed == 2.0


def test_path_estimate_samples_sources_on_large_graphs() -> None:
    nodes = [node(f"n{i:03d}") for i in range(40)]
    edges = [edge(f"n{i:03d}", f"n{i + 1:03d}") for i in range(39)]
    exact = entropy_metrics(nodes, edges)
    sampled = entropy_metrics(nodes, edges, EntropyConfig(max_bfs_sources=8))
    assert exact.avg_shortest_path == pytest.approx(41 / 3)
    assert sampled.avg_shortest_path == pytest.approx(exact.avg_shortest_path, rel=0.25)


def _soup(size: int) -> tuple[list[Node], list[Edge]]:
    nodes = [node(f"n{i:02d}") for i in range(size)]
    edges = [edge(f"n{i:02d}", f"n{(i + 1) % size:02d}") for i in range(size)]
    edges += [
        edge(f"n{i:02d}", f"n{(i + 7) % size:02d}", inferred=True, confidence=0.5, created=NOW)
        for i in range(size)
    ]
    edges += [
        edge(f"n{i:02d}", f"n{(i + 11) % size:02d}", inferred=True, confidence=0.5, created=NOW)
        for i in range(size)
    ]
    return nodes, edges


def test_edge_soup_turns_compaction_aggressive() -> None:
    nodes, edges = _soup(30)
    metrics = entropy_metrics(nodes, edges)
    assert metrics.inferred_to_observed == 2.0
    assert is_aggressive(metrics)
    plan = plan_compaction(nodes, edges, NOW)
    assert plan.aggressive
    assert plan.limits == CompactionConfig().aggressive


def test_small_graphs_never_turn_aggressive() -> None:
    nodes, edges = _soup(12)
    assert entropy_metrics(nodes, edges).score > EntropyConfig().aggressive_threshold
    assert not plan_compaction(nodes, edges, NOW).aggressive


def test_a_healthy_graph_stays_in_normal_mode() -> None:
    nodes = [node(f"n{i:02d}") for i in range(30)]
    edges = [edge(f"n{i:02d}", f"n{(i + 1) % 30:02d}") for i in range(30)]
    edges += [edge(f"n{i:02d}", f"n{(i + 2) % 30:02d}") for i in range(0, 30, 2)]
    assert not plan_compaction(nodes, edges, NOW).aggressive


# --- soft reset ---------------------------------------------------------------------------


def test_soft_reset_keeps_pinned_and_recent_and_archives_the_rest() -> None:
    nodes = [
        node("old"),
        node("old_pinned", pinned=True),
        node("recent", created=NOW - timedelta(days=10)),
        node("old_but_reinforced", reinforced=NOW - timedelta(days=29)),
    ]
    edges = [edge("old", "recent"), edge("recent", "old_pinned")]
    plan = plan_soft_reset(nodes, edges, NOW)
    assert plan.cutoff == NOW - timedelta(days=30)
    assert plan.keep_node_ids == ("old_but_reinforced", "old_pinned", "recent")
    assert plan.archive_node_ids == ("old",)
    assert plan.archive_edges == (EdgeKey("old", "recent", EdgeType.ASSOCIATED_WITH),)


def test_soft_reset_needs_entropy_and_user_feedback() -> None:
    nodes, edges = _soup(30)
    chaotic = entropy_metrics(nodes, edges)
    assert chaotic.score >= CompactionConfig().soft_reset_entropy_threshold
    assert should_soft_reset(chaotic, feedback_signals=1)
    assert not should_soft_reset(chaotic, feedback_signals=0)
    calm = entropy_metrics([node("a"), node("b")], [edge("a", "b")])
    assert not should_soft_reset(calm, feedback_signals=5)


# --- invariants ---------------------------------------------------------------------------

_SMALL_BUDGET = CompactionConfig(
    normal=CompactionLimits(edge_removal_threshold=0.1, edge_budget=3),
    aggressive=CompactionLimits(edge_removal_threshold=0.2, edge_budget=2),
)
_DIRECTIONS = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.6, 0.8, 0.0)]


_NODE_SPECS = st.tuples(
    st.integers(0, len(_DIRECTIONS) - 1),  # embedding direction
    st.tuples(*[st.integers(-15, 15)] * 3),  # noise, in hundredths
    st.sampled_from([NodeType.FACT, NodeType.EVENT]),
    st.sampled_from([0.2, 0.5, 0.5, 0.9]),  # repeated weights exercise the tie-breaks
    st.booleans(),  # pinned
    st.integers(0, 40),  # created, days ago
)
_EDGE_SPECS = st.tuples(
    st.integers(0, 11),
    st.integers(1, 11),  # offset from the source, so never a self-loop
    st.sampled_from([EdgeType.CAUSED_BY, EdgeType.ASSOCIATED_WITH]),
    st.sampled_from([0.15, 0.4, 0.5, 0.9, 1.0]),
    st.booleans(),  # inferred
    st.integers(0, 90),  # created, days ago
)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[Node], list[Edge]]:
    # Two list draws of plain tuples: far cheaper for Hypothesis than one draw per field.
    node_specs = draw(st.lists(_NODE_SPECS, min_size=1, max_size=12))
    nodes = [
        node(
            f"n{i:02d}",
            node_type=node_type,
            weight=weight,
            pinned=pinned,
            embedding=tuple(
                b + n / 100 for b, n in zip(_DIRECTIONS[direction], noise, strict=True)
            ),
            created=NOW - timedelta(days=days),
            sources=(f"msg{i}",),
        )
        for i, (direction, noise, node_type, weight, pinned, days) in enumerate(node_specs)
    ]
    count = len(nodes)
    edges = []
    if count > 1:
        for source, offset, edge_type, confidence, inferred, days in draw(
            st.lists(_EDGE_SPECS, max_size=30)
        ):
            a, b = source % count, (source + offset) % count
            if a == b:
                continue
            edges.append(
                edge(
                    f"n{a:02d}",
                    f"n{b:02d}",
                    edge_type=edge_type,
                    confidence=confidence,
                    inferred=inferred,
                    created=NOW - timedelta(days=days),
                )
            )
    return nodes, edges


def _degrees(edges: tuple[Edge, ...]) -> Counter[str]:
    degree: Counter[str] = Counter()
    for e in edges:
        degree[e.source_id] += 1
        degree[e.target_id] += 1
    return degree


def _plan(nodes: list[Node], edges: list[Edge], aggressive: bool) -> CompactionPlan:
    return plan_compaction(nodes, edges, NOW, _SMALL_BUDGET, aggressive=aggressive)


@settings(max_examples=120, deadline=None)
@given(graph=graphs(), aggressive=st.booleans())
def test_compaction_invariants(graph: tuple[list[Node], list[Edge]], aggressive: bool) -> None:
    nodes, edges = graph
    plan = _plan(nodes, edges, aggressive)
    limits = plan.limits
    result_nodes, result_edges = apply_compaction(nodes, edges, plan)
    ids = {n.id for n in result_nodes}

    # No node over budget; nothing dangling; no edge below the removal threshold.
    assert all(d <= limits.edge_budget for d in _degrees(result_edges).values())
    assert all(e.source_id in ids and e.target_id in ids for e in result_edges)
    assert all(
        edge_confidence(e, NOW, _SMALL_BUDGET) >= limits.edge_removal_threshold
        for e in result_edges
    )
    assert len(keys(result_edges)) == len(result_edges)
    # Rewriting (re-pointing, collapsing parallels) never changes the best confidence.
    for rewrite in plan.rewritten_edges:
        replaced = [e for e in edges if EdgeKey.of(e) in rewrite.replaces]
        assert edge_confidence(rewrite.edge, NOW, _SMALL_BUDGET) == pytest.approx(
            max(edge_confidence(e, NOW, _SMALL_BUDGET) for e in replaced)
        )
    # Pinned nodes are never removed or merged away.
    assert {n.id for n in nodes if n.is_pinned} <= ids
    # Every merge joins same-type, similar nodes into the heaviest weight of the group.
    by_id = {n.id: n for n in nodes}
    for merge in plan.merges:
        survivor = by_id[merge.survivor_id]
        group = [survivor, *(by_id[i] for i in merge.merged_ids)]
        assert merge.weight == pytest.approx(max(node_effective_weight(n, NOW) for n in group))
        assert set(merge.sources) == {s for n in group for s in n.sources}
        for merged in merge.merged_ids:
            assert by_id[merged].type is survivor.type and not by_id[merged].is_pinned
    # Compaction is idempotent: the compacted graph needs no further work in the same mode.
    assert _plan(list(result_nodes), list(result_edges), aggressive).is_empty


@settings(max_examples=60, deadline=None)
@given(graph=graphs(), data=st.data())
def test_plan_does_not_depend_on_input_order(
    graph: tuple[list[Node], list[Edge]], data: st.DataObject
) -> None:
    nodes, edges = graph
    shuffled_nodes = data.draw(st.permutations(nodes))
    shuffled_edges = data.draw(st.permutations(edges))
    assert plan_compaction(shuffled_nodes, shuffled_edges, NOW, _SMALL_BUDGET) == plan_compaction(
        nodes, edges, NOW, _SMALL_BUDGET
    )


@settings(max_examples=60, deadline=None)
@given(graph=graphs())
def test_entropy_metrics_stay_in_range(graph: tuple[list[Node], list[Edge]]) -> None:
    metrics = entropy_metrics(*graph)
    assert 0.0 <= metrics.clustering_coefficient <= 1.0
    assert 0.0 <= metrics.score <= 1.0
    assert metrics.avg_shortest_path == 0.0 or metrics.avg_shortest_path >= 1.0
    assert metrics.inferred_edges + metrics.observed_edges == metrics.edge_count


@settings(max_examples=60, deadline=None)
@given(graph=graphs(), days=st.integers(1, 60))
def test_soft_reset_partitions_nodes_and_keeps_pinned(
    graph: tuple[list[Node], list[Edge]], days: int
) -> None:
    nodes, edges = graph
    config = CompactionConfig(soft_reset_window_days=days)
    plan = plan_soft_reset(nodes, edges, NOW, config)
    kept, archived = set(plan.keep_node_ids), set(plan.archive_node_ids)
    assert kept | archived == {n.id for n in nodes} and not kept & archived
    assert {n.id for n in nodes if n.is_pinned} <= kept
    for e in edges:
        assert (EdgeKey.of(e) in plan.archive_edges) == (
            e.source_id in archived or e.target_id in archived
        )

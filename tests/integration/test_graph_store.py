"""The Neo4j graph store against the real local Neo4j 5.26: every operation, idempotency under
retries, isolation between users, migrations, hostile input. Each test uses fresh random
tenant/user ids, so tests share one database without seeing each other."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver
from pydantic import ValidationError

from selfimprint.adapters.neo4j import (
    MigrationError,
    MissingNodesError,
    Neo4jGraphStore,
    Neo4jUserGraph,
    ScopeViolationError,
    VectorSearchConfig,
    migrate,
)
from selfimprint.adapters.neo4j.migrations import SCHEMA_DIR, load_migrations
from selfimprint.config import Settings
from selfimprint.domain.compaction.duplicates import SimilarPair
from selfimprint.domain.compaction.plan import apply_compaction, plan_compaction
from selfimprint.domain.decay import ReinforcementTally
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    HypothesisStatus,
    Node,
    NodeType,
    Permanence,
    Tension,
    TensionStatus,
    Valence,
    safe_id,
)
from selfimprint.domain.sleep_writes import SleepRunRecord, SleepStatus
from selfimprint.ports import (
    Contradiction,
    HypothesisRecord,
    Reinforcement,
    RetrievalQuery,
    TopicSelector,
)

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MODEL = "test-model"
DIM = 384
HOSTILE = "'}) DETACH DELETE n //"


def unit_vector(seed: int) -> tuple[float, ...]:
    vector = np.random.default_rng(seed).standard_normal(DIM)
    return tuple(float(x) for x in vector / np.linalg.norm(vector))


def node(
    node_id: str,
    user_id: str,
    content: str | None = None,
    *,
    seed: int | None = None,
    node_type: NodeType = NodeType.FACT,
    **fields: object,
) -> Node:
    data: dict[str, object] = {
        "id": node_id,
        "user_id": user_id,
        "type": node_type,
        "content": content or f"memory {node_id}",
        "weight_at": NOW,
        "created_at": NOW,
        "belief": Belief(first_seen=NOW),
        "embedding": unit_vector(seed if seed is not None else hash(node_id) % 10_000),
        "embedding_model": MODEL,
        "is_inference": node_type is NodeType.HYPOTHESIS,
    }
    return Node.model_validate(data | fields)


def edge(source: str, target: str, kind: EdgeType = EdgeType.CAUSED_BY, **fields: object) -> Edge:
    return Edge.model_validate(
        {"source_id": source, "target_id": target, "type": kind, "created_at": NOW} | fields
    )


def query(seed: int, limit: int = 20, prior_limit: int = 0) -> RetrievalQuery:
    """The nearest `limit` only by default: these tests are about similarity search and the
    expansion (the prior part of the pool: test_retrieval_pool.py)."""
    return RetrievalQuery(
        embedding=unit_vector(seed),
        embedding_model=MODEL,
        now=NOW,
        limit=limit,
        nearest_limit=limit,
        prior_limit=prior_limit,
    )


def fresh_ids() -> tuple[str, str]:
    return f"t-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def graph(graph_store: Neo4jGraphStore) -> Neo4jUserGraph:
    tenant, user = fresh_ids()
    return graph_store.for_user(tenant, user)


def ids(nodes: Sequence[Node]) -> list[str]:
    return sorted(n.id for n in nodes)


# --- migrations -------------------------------------------------------------------------------


async def test_migrations_rerun_is_a_no_op(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    report = await migrate(graph_driver, stack_settings.neo4j_database)
    assert report.applied == []
    assert report.already_applied == [m.version for m in load_migrations()]
    assert {1, 2, 3} <= set(report.already_applied)


async def test_changed_applied_migration_is_refused(
    graph_driver: AsyncDriver, stack_settings: Settings, tmp_path: Path
) -> None:
    edited = tmp_path / "schema"
    shutil.copytree(SCHEMA_DIR, edited)
    first = edited / "0001_constraints.cypher"
    first.write_text(first.read_text() + "\n// an edit after the fact\n")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        await migrate(graph_driver, stack_settings.neo4j_database, edited)


# --- writes ---------------------------------------------------------------------------------


async def test_upsert_round_trips_every_field(graph: Neo4jUserGraph) -> None:
    # Instants travel as epoch numbers (records.epoch_parts): microseconds and a time before
    # 1970 (floor division) must come back exactly.
    stored = node(
        "n1",
        graph.user_id,
        "Переехал в Берлин",
        node_type=NodeType.EMOTIONAL_NOTE,
        valence="negative",
        weight=0.7,
        weight_at=NOW + timedelta(microseconds=123_457),
        expires_at=NOW + timedelta(days=3, microseconds=1),
        last_reinforced_at=NOW + timedelta(hours=1, microseconds=999_999),
        belief=Belief(first_seen=datetime(1969, 12, 31, 23, 59, 59, 500_001, tzinfo=UTC)),
        sources=("msg-1", "msg-2"),
        is_pinned=True,
    )
    other = node("n2", graph.user_id)
    link = edge("n1", "n2", last_reinforced_at=NOW + timedelta(microseconds=7))
    await graph.upsert([stored, other], [link])
    (got,) = await graph.get_nodes(["n1"])
    assert got.model_dump(exclude={"embedding"}) == stored.model_dump(exclude={"embedding"})
    assert got.embedding is not None
    assert np.allclose(got.embedding, stored.embedding or (), atol=1e-6)  # stored as float32
    assert await graph.edges_of("n1") == [link]


async def test_retried_upsert_leaves_the_same_graph_and_unites_sources(
    graph: Neo4jUserGraph,
) -> None:
    nodes = [node("a", graph.user_id, sources=("m1",)), node("b", graph.user_id)]
    edges = [edge("a", "b")]
    await graph.upsert(nodes, edges)
    first = await graph.export_graph(NOW)
    await graph.upsert(nodes, edges)
    assert await graph.export_graph(NOW) == first

    await graph.upsert([node("a", graph.user_id, sources=("m2", "m1", "m2"))])
    (a,) = await graph.get_nodes(["a"])
    assert a.sources == ("m1", "m2")


async def test_edge_to_unknown_node_fails_the_whole_batch(graph: Neo4jUserGraph) -> None:
    with pytest.raises(MissingNodesError) as err:
        await graph.upsert([node("a", graph.user_id)], [edge("a", "ghost")])
    assert err.value.node_ids == ("ghost",)
    assert await graph.get_nodes(["a"]) == []


async def test_nodes_of_another_user_are_refused(graph: Neo4jUserGraph) -> None:
    with pytest.raises(ScopeViolationError):
        await graph.upsert([node("a", "someone-else")])


async def test_same_ids_for_two_users_stay_apart(graph_store: Neo4jGraphStore) -> None:
    tenant, user = fresh_ids()
    mine = graph_store.for_user(tenant, user)
    same_user_other_tenant = graph_store.for_user(tenant + "x", user)
    await mine.upsert([node("a", user, "mine")])
    await same_user_other_tenant.upsert([node("a", user, "theirs")])
    assert [n.content for n in await mine.get_nodes(["a"])] == ["mine"]
    assert [n.content for n in await same_user_other_tenant.get_nodes(["a"])] == ["theirs"]


async def test_reinforcement_is_written_once_even_when_retried(graph: Neo4jUserGraph) -> None:
    await graph.upsert([node("a", graph.user_id, weight=0.5, sources=("m1",))])
    later = NOW + timedelta(days=1)
    change = Reinforcement(
        node_id="a",
        weight=0.6,
        weight_at=later,
        last_reinforced_at=later,
        expires_at=later + timedelta(days=30),
        tally=ReinforcementTally(day=later.date(), applied=1),
        source_ids=("m2",),
        expected_weight_at=NOW,
    )
    assert await graph.reinforce(change)
    assert await graph.reinforce(change)  # a retry of a write that landed
    (a,) = await graph.get_nodes(["a"])
    assert (a.weight, a.weight_at, a.last_reinforced_at) == (0.6, later, later)
    assert a.sources == ("m1", "m2")

    stale = change.model_copy(update={"weight_at": later + timedelta(hours=1), "weight": 0.9})
    assert not await graph.reinforce(stale)  # someone else wrote since NOW was read
    assert (await graph.get_nodes(["a"]))[0].weight == 0.6
    assert not await graph.reinforce(change.model_copy(update={"node_id": "ghost"}))


async def test_contradiction_writes_edge_and_open_tension(graph: Neo4jUserGraph) -> None:
    await graph.upsert([node("a", graph.user_id), node("b", graph.user_id)])
    tension = Tension(id="t1", node_a="a", node_b="b", detected_at=NOW, note=HOSTILE)
    contradiction = Contradiction(edge=edge("a", "b", EdgeType.CONTRADICTS), tension=tension)
    await graph.record_contradiction(contradiction)
    await graph.record_contradiction(contradiction)
    assert await graph.tensions(TensionStatus.UNRESOLVED) == [tension]
    snapshot = await graph.export_graph(NOW)
    assert [e.type for e in snapshot.edges] == [EdgeType.CONTRADICTS]

    await graph.set_tensions([tension.model_copy(update={"status": TensionStatus.RESOLVED})])
    assert await graph.tensions(TensionStatus.UNRESOLVED) == []


def hypothesis_record(user: str, node_id: str, status: HypothesisStatus) -> HypothesisRecord:
    return HypothesisRecord(
        node=node(node_id, user, f"hypothesis {node_id}", node_type=NodeType.HYPOTHESIS, seed=1),
        hypothesis=Hypothesis(
            node_id=node_id,
            status=status,
            supporting=("a",),
            created_at=NOW,
            deadline=NOW + timedelta(days=14),
        ),
    )


async def test_hypotheses_by_status_and_archived_ones_are_not_retrieved(
    graph: Neo4jUserGraph,
) -> None:
    await graph.upsert([node("a", graph.user_id, seed=1)])
    active = hypothesis_record(graph.user_id, "h1", HypothesisStatus.ACTIVE)
    archived = hypothesis_record(graph.user_id, "h2", HypothesisStatus.ARCHIVED_STUCK)
    await graph.upsert_hypotheses([active, archived])
    assert await graph.hypotheses([HypothesisStatus.ACTIVE]) == [
        active.model_copy(update={"node": (await graph.get_nodes(["h1"]))[0]})
    ]
    assert len(await graph.hypotheses()) == 2
    found = await graph.retrieve(query(1))
    assert sorted(c.node.id for c in found.candidates) == ["a", "h1"]


# --- retrieval ------------------------------------------------------------------------------


async def test_retrieval_ranks_by_similarity_and_expands_one_hop(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    nodes = [node(f"n{i}", user, seed=i) for i in range(30)]
    far = node("far", user, seed=999)
    # Faded, and the query does not recognise it (issue 32; a strong match would bring it back:
    # test_retrieval_pool.py): out of the pool and of the expansion.
    expired = node("expired", user, seed=998, expires_at=NOW - timedelta(seconds=1))
    other_model = node("other-model", user, seed=5, embedding_model="another-model")
    await graph.upsert(
        [*nodes, far, expired, other_model],
        [edge("n5", "far"), edge("far", "n5", EdgeType.FOLLOWED_BY), edge("n5", "expired")],
    )
    found = await graph.retrieve(query(5, limit=3))
    assert found.candidates[0].node.id == "n5"
    assert found.candidates[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert [c.similarity for c in found.candidates] == sorted(
        (c.similarity for c in found.candidates), reverse=True
    )
    assert {c.node.id for c in found.candidates}.isdisjoint({"expired", "other-model"})
    assert [n.id for n in found.neighbours] == ["far"]
    assert {(e.source_id, e.target_id, e.type) for e in found.edges} == {
        ("n5", "far", EdgeType.CAUSED_BY),
        ("far", "n5", EdgeType.FOLLOWED_BY),
    }
    assert all(c.node.embedding is None for c in found.candidates)


async def test_index_and_exact_scan_find_the_same_candidates(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    tenant, user = fresh_ids()
    exact = Neo4jGraphStore(graph_driver, stack_settings.neo4j_database).for_user(tenant, user)
    indexed = Neo4jGraphStore(
        graph_driver,
        stack_settings.neo4j_database,
        search=VectorSearchConfig(exact_scan_max_nodes=0, max_index_fetch=100_000),
    ).for_user(tenant, user)
    await exact.upsert([node(f"n{i}", user, seed=i) for i in range(200)])
    by_scan = await exact.retrieve(query(7, limit=5))
    by_index = await indexed.retrieve(query(7, limit=5))
    # HNSW is approximate: random 384-dim vectors are nearly equidistant, so only the clear
    # winner and most of the rest are guaranteed to match.
    scanned = [c.node.id for c in by_scan.candidates]
    indexed_ids = [c.node.id for c in by_index.candidates]
    assert indexed_ids[0] == scanned[0] == "n7"
    assert len(set(indexed_ids) & set(scanned)) >= 3


async def _indexed_ids(driver: AsyncDriver, tenant: str, user: str) -> set[str]:
    records, _, _ = await driver.execute_query(
        "MATCH (n:IndexedMemory {scope: $scope}) RETURN n.id AS id", scope=f"{tenant}/{user}"
    )
    return {r["id"] for r in records}


async def test_a_user_joins_the_vector_index_when_outgrowing_the_exact_scan(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    tenant, user = fresh_ids()
    store = Neo4jGraphStore(
        graph_driver,
        stack_settings.neo4j_database,
        search=VectorSearchConfig(exact_scan_max_nodes=30, max_index_fetch=100_000, size_ttl_s=0),
    )
    graph = store.for_user(tenant, user)
    await graph.upsert([node(f"n{i}", user, seed=i) for i in range(30)])
    assert await _indexed_ids(graph_driver, tenant, user) == set()  # the exact scan serves them
    await graph.upsert([node(f"n{i}", user, seed=i) for i in range(30, 35)])
    everyone = {f"n{i}" for i in range(35)}
    assert await _indexed_ids(graph_driver, tenant, user) == everyone  # old and new alike
    found = await graph.retrieve(query(7, limit=3))
    assert found.candidates[0].node.id == "n7"

    # A rehydrate stays out of the index; the next write brings the whole graph in.
    await graph.import_graph(await graph.export_graph(NOW))
    assert await _indexed_ids(graph_driver, tenant, user) == set()
    assert (await graph.retrieve(query(9, limit=3))).candidates[0].node.id == "n9"
    await graph.upsert([node("late", user, seed=99)])
    assert await _indexed_ids(graph_driver, tenant, user) == everyone | {"late"}


# --- typed paths ------------------------------------------------------------------------------


async def test_causal_chains_causes_and_what_followed(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    at = {name: NOW + timedelta(hours=h) for h, name in enumerate("abcdexy")}
    await graph.upsert(
        [node(name, user, created_at=t, weight_at=t) for name, t in at.items()],
        [
            # a because of b because of c because of d: a chain of 3 edges.
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "d"),
            edge("x", "y"),  # too short
            # e came after a, x came after e.
            edge("e", "a", EdgeType.FOLLOWED_BY),
            edge("x", "e", EdgeType.FOLLOWED_BY),
        ],
    )
    chains = await graph.causal_chains(min_length=3)
    assert [[n.id for n in chain] for chain in chains] == [["a", "b", "c", "d"]]
    causes = await graph.causes_of("a", max_depth=2)
    assert [(s.node.id, s.depth) for s in causes] == [("b", 1), ("c", 2)]
    assert ids(await graph.followed_within("a", timedelta(hours=10))) == ["e", "x"]
    assert ids(await graph.followed_within("a", timedelta(hours=4))) == ["e"]


# --- pruning, compaction ----------------------------------------------------------------------


def _feeling(node_id: str, user_id: str, expires: datetime) -> Node:
    return node(
        node_id,
        user_id,
        node_type=NodeType.EMOTIONAL_NOTE,
        valence=Valence.NEGATIVE,
        expires_at=expires,
    )


async def test_the_sweeper_deletes_faded_noise_and_keeps_faded_facts_with_their_tensions(
    graph: Neo4jUserGraph,
) -> None:
    """Issue 32: forgetting demotes. A fact decayed under the removal threshold is kept (with
    the tension that names it), and so is a faded negative note; a faded negative note a later
    statement superseded is noise and goes (`noise_only_when_superseded`; off, every faded
    negative note goes)."""
    user = graph.user_id
    ended = _feeling("sulk", user, NOW - timedelta(days=1)).model_copy(
        update={"valid_until": NOW - timedelta(days=2)}
    )
    await graph.upsert(
        [
            node("old", user, expires_at=NOW - timedelta(days=1)),
            node("due", user, expires_at=NOW),
            ended,
            _feeling("grief", user, NOW - timedelta(days=1)),
            _feeling("mood", user, NOW + timedelta(days=1)),
            node("later", user, expires_at=NOW + timedelta(days=1)),
            node("forever", user),
        ],
        [edge("old", "later")],
    )
    tension = Tension(id="t", node_a="old", node_b="later", detected_at=NOW)
    await graph.set_tensions([tension])
    assert await graph.prune_expired(NOW, FadingConfig()) == ["sulk"]
    kept = ["old", "due", "grief", "mood", "later", "forever"]
    assert ids(await graph.get_nodes([*kept, "sulk"])) == sorted(kept)
    assert [t.id for t in await graph.tensions()] == ["t"]
    assert await graph.prune_expired(NOW, FadingConfig()) == []
    every_faded_note = FadingConfig(noise_only_when_superseded=False)
    assert await graph.prune_expired(NOW, every_faded_note) == ["grief"]


async def test_past_the_bound_the_longest_faded_memories_go(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    await graph.upsert(
        [
            node("oldest", user, expires_at=NOW - timedelta(days=3)),
            node("older", user, expires_at=NOW - timedelta(days=2)),
            node("old", user, expires_at=NOW - timedelta(days=1)),
            node("pinned", user, expires_at=NOW - timedelta(days=9), is_pinned=True),
            node("live", user, expires_at=NOW + timedelta(days=1)),
        ]
    )
    assert await graph.prune_expired(NOW, FadingConfig(max_faded=3)) == []  # at the bound
    assert await graph.prune_expired(NOW, FadingConfig(max_faded=1)) == ["oldest", "older"]
    assert ids(await graph.get_nodes(["oldest", "older", "old", "pinned", "live"])) == [
        "live",
        "old",
        "pinned",
    ]


async def test_store_applies_a_compaction_plan_like_the_domain_model(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    week_ago = NOW - timedelta(days=8)
    await graph.upsert(
        [
            node(
                "keep",
                user,
                "likes tea",
                sources=("m1",),
                weight=0.9,
                seed=1,
                created_at=week_ago,
                weight_at=week_ago,
            ),
            node(
                "dup",
                user,
                "likes tea a lot",
                sources=("m2",),
                weight=0.4,
                seed=1,
                created_at=week_ago,
                weight_at=week_ago,
                # What the lighter twin learned survives the merge (issue 33).
                belief=Belief(
                    first_seen=week_ago, permanence=Permanence.STABLE, self_report_for=("m2",)
                ),
            ),
            node("x", user, created_at=week_ago, weight_at=week_ago),
            node("y", user, created_at=week_ago, weight_at=week_ago),
            # An inference nothing connected: removed as isolated (an observed memory that
            # never had an edge would stay, domain.compaction).
            node("lonely", user, created_at=week_ago, weight_at=week_ago, is_inference=True),
        ],
        [
            edge("dup", "x", confidence=0.9, created_at=week_ago),
            edge("y", "dup", EdgeType.FOLLOWED_BY, created_at=week_ago),
            edge("x", "y", EdgeType.ASSOCIATED_WITH, confidence=0.1, created_at=week_ago),
        ],
    )
    await graph.set_tensions([Tension(id="t", node_a="dup", node_b="y", detected_at=NOW)])
    before = await graph.export_graph(NOW)
    plan = plan_compaction(
        before.nodes, before.edges, NOW, similar_pairs=[SimilarPair("keep", "dup", 0.99)]
    )
    assert plan.merges and plan.removed_edges and plan.removed_nodes  # the test exercises all
    want_nodes, want_edges = apply_compaction(before.nodes, before.edges, plan)

    outcome = await graph.apply_compaction(plan)
    after = await graph.export_graph(NOW)
    assert outcome.nodes_merged == 1
    assert after.nodes == tuple(sorted(want_nodes, key=lambda n: n.id))
    assert set(after.edges) == set(want_edges)
    assert [(t.node_a, t.node_b) for t in after.tensions] == [("keep", "y")]
    (kept,) = [n for n in after.nodes if n.id == "keep"]
    assert kept.belief.permanence is Permanence.STABLE
    assert kept.belief.self_report_for == ("m2",)

    await graph.apply_compaction(plan)  # a retried pass changes nothing
    assert await graph.export_graph(NOW) == after


# --- tiers: export / import -------------------------------------------------------------------


async def test_export_import_round_trip_and_failed_import_changes_nothing(
    graph: Neo4jUserGraph,
) -> None:
    user = graph.user_id
    await graph.upsert([node("a", user), node("b", user)], [edge("a", "b")])
    await graph.upsert_hypotheses([hypothesis_record(user, "h", HypothesisStatus.ACTIVE)])
    await graph.set_tensions([Tension(id="t", node_a="a", node_b="h", detected_at=NOW)])
    snapshot = await graph.export_graph(NOW)
    assert (len(snapshot.nodes), len(snapshot.edges), len(snapshot.hypotheses)) == (3, 1, 1)

    assert await graph.delete_graph() == 3
    assert (await graph.export_graph(NOW)).nodes == ()
    await graph.import_graph(snapshot)
    await graph.import_graph(snapshot)  # a retried import gives the same graph
    assert await graph.export_graph(NOW) == snapshot

    broken = snapshot.model_copy(update={"edges": (*snapshot.edges, edge("a", "ghost"))})
    with pytest.raises(MissingNodesError):
        await graph.import_graph(broken)
    assert await graph.export_graph(NOW) == snapshot


# --- forgetting -------------------------------------------------------------------------------


async def test_forget_topic_dry_run_then_for_real(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    await graph.upsert(
        [
            node("a", user, "Работа в Google, собеседование"),
            node("b", user, "interview at GOOGLE went badly"),
            node("c", user, "likes cats"),
            node("d", user, "pinned by id"),
        ],
        [edge("a", "b"), edge("b", "c")],
    )
    topic = TopicSelector(text="google", node_ids=("d",))
    dry = await graph.forget_topic(topic, dry_run=True)
    assert [m.id for m in dry.memories] == ["a", "b", "d"]
    assert dry.edges == 2
    assert len(await graph.get_nodes(["a", "b", "c", "d"])) == 4

    cyrillic = await graph.forget_topic(TopicSelector(text="РАБОТА"), dry_run=True)
    assert [m.id for m in cyrillic.memories] == ["a"]

    done = await graph.forget_topic(topic, dry_run=False)
    assert done.memories == dry.memories
    assert ids(await graph.get_nodes(["a", "b", "c", "d"])) == ["c"]


async def test_deleting_a_graph_leaves_other_users_alone(graph_store: Neo4jGraphStore) -> None:
    tenant, user = fresh_ids()
    gone, stays = graph_store.for_user(tenant, user), graph_store.for_user(tenant, user + "2")
    await gone.upsert([node("a", user), node("b", user)], [edge("a", "b")])
    await stays.upsert([node("a", user + "2")])
    assert await gone.delete_graph() == 2
    assert await gone.delete_graph() == 0
    assert ids(await stays.get_nodes(["a"])) == ["a"]


# --- bad input --------------------------------------------------------------------------------


async def test_hostile_strings_are_inert(graph_store: Neo4jGraphStore) -> None:
    tenant, user = fresh_ids()
    bystander = graph_store.for_user(tenant, user + "-bystander")
    await bystander.upsert([node("a", user + "-bystander")])

    hostile_user = safe_id(HOSTILE + user)
    graph = graph_store.for_user(safe_id(HOSTILE), hostile_user)
    hostile_id = safe_id(HOSTILE)
    await graph.upsert([node(hostile_id, hostile_user, HOSTILE), node("b", hostile_user, HOSTILE)])
    (stored,) = await graph.get_nodes([hostile_id])
    assert stored.content == HOSTILE
    report = await graph.forget_topic(TopicSelector(text=HOSTILE), dry_run=False)
    assert len(report.memories) == 2
    assert ids(await bystander.get_nodes(["a"])) == ["a"]

    with pytest.raises(ValidationError):
        TopicSelector(node_ids=(HOSTILE,))
    with pytest.raises(ValueError):
        graph_store.for_user(HOSTILE, user)


def test_oversized_content_is_rejected_before_the_database() -> None:
    with pytest.raises(ValidationError):
        node("a", "u", "x" * 2_001)
    with pytest.raises(ValidationError):
        TopicSelector(text="x" * 2_001)


# --- isolation (property-based) ---------------------------------------------------------------

_graphs = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.sampled_from("abcdefgh")),
    max_size=10,
).map(lambda pairs: [(s, t) for s, t in pairs if s != t])


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mine=_graphs, theirs=_graphs, seed=st.integers(0, 50))
async def test_no_read_returns_another_users_data(
    graph_store: Neo4jGraphStore,
    mine: list[tuple[str, str]],
    theirs: list[tuple[str, str]],
    seed: int,
) -> None:
    tenant, user = fresh_ids()
    graphs = {
        user: graph_store.for_user(tenant, user),
        "them": graph_store.for_user(tenant, "them" + user),
    }
    # Both users use the same node ids, contents and vectors: only the scope tells them apart.
    for store, pairs in zip(graphs.values(), (mine, theirs), strict=True):
        owner_id = store.user_id
        names = sorted({n for pair in pairs for n in pair} | {"a"})
        await store.upsert(
            [node(n, owner_id, f"topic {n}", seed=ord(n)) for n in names],
            [edge(s, t) for s, t in dict.fromkeys(pairs)],
        )
    reader = graphs[user]
    expected = sorted({n for pair in mine for n in pair} | {"a"})

    found = await reader.retrieve(query(seed))
    seen = [c.node for c in found.candidates] + list(found.neighbours)
    snapshot = await reader.export_graph(NOW)
    seen += list(snapshot.nodes)
    seen += await reader.get_nodes(list("abcdefgh"))
    for chain in await reader.causal_chains(min_length=1):
        seen += chain
    seen += [s.node for s in await reader.causes_of("a", max_depth=10)]
    assert {n.user_id for n in seen} == {user}
    assert ids(snapshot.nodes) == expected
    assert {(e.source_id, e.target_id) for e in snapshot.edges} == set(mine)
    report = await reader.forget_topic(TopicSelector(text="topic"), dry_run=True)
    assert [m.id for m in report.memories] == expected


async def test_a_beginning_sleep_pass_closes_the_records_others_left_running(
    graph: Neo4jUserGraph,
) -> None:
    """Issue 35: a record left `running` (a lifecycle terminated mid-pass) is closed as failed,
    saying why, when the user's next pass begins; finished records are left as they are."""
    start = NOW - timedelta(days=2)
    await graph.record_sleep_run(
        SleepRunRecord(run_id="done", depth="full", status=SleepStatus.COMPLETED, started_at=start)
    )
    await graph.record_sleep_run(
        SleepRunRecord(run_id="lost", depth="full", status=SleepStatus.RUNNING, started_at=start)
    )
    await graph.record_sleep_run(
        SleepRunRecord(run_id="next", depth="light", status=SleepStatus.RUNNING, started_at=NOW)
    )
    lost, done, running = [await graph.sleep_run(i) for i in ("lost", "done", "next")]
    assert lost is not None and lost.status is SleepStatus.FAILED
    assert lost.finished_at == NOW and lost.summary.startswith("Sleep failed: orphaned")
    assert done is not None and done.status is SleepStatus.COMPLETED
    assert running is not None and running.status is SleepStatus.RUNNING

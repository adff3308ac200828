"""Retrieval's candidate pool against the real Neo4j: the nearest memories plus the best ones
before similarity (`scoring.prior`, computed in Cypher), on the user's decay clock."""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.migrations import load_migrations, run_statement
from selfimprint.adapters.neo4j.search_terms import backfill_search_terms
from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.config import Settings
from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    update_belief,
)
from selfimprint.domain.decay import (
    ActivityTimeline,
    ReinforcementTally,
    coefficient_for,
    expires_at,
)
from selfimprint.domain.models import Belief, EvidenceKind, Node, NodeType, Permanence, Valence
from selfimprint.domain.recognition import SimilaritySpread, distinctiveness
from selfimprint.domain.scoring import (
    Candidate,
    ScoringConfig,
    calibrated_similarity,
    prior,
    rank,
    score_weight,
)
from selfimprint.domain.terms import idf_weights, lexical_relevance, search_terms
from selfimprint.domain.users import UserProfile, UserScope
from selfimprint.ports import Downweight, GraphSnapshot, Reinforcement, RetrievalQuery

pytestmark = pytest.mark.integration


def _pool_scoring(**fields: Any) -> ScoringConfig:
    """The pool's recognition filter as these tests read it: faded memories that only hold
    their room in the context (issue 32, `faded_hold_room`, on by default) are left out here
    and read in `test_a_faded_memory_joins_the_pool_only_when_the_query_recognises_it`."""
    return ScoringConfig(faded_hold_room=False, **fields)


NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
MODEL = "test-model"
TYPES = (NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.OPEN_LOOP)


def _nodes(user_id: str, count: int, store_timeline: ActivityTimeline) -> list[Node]:
    rng = np.random.default_rng(3)
    nodes = []
    for i in range(count):
        node_type = NodeType.EMOTIONAL_NOTE if i % 7 == 0 else TYPES[i % 4]
        valence = Valence.NEGATIVE if node_type is NodeType.EMOTIONAL_NOTE else None
        at = NOW - timedelta(days=float(rng.uniform(0, 80)))
        weight = float(rng.uniform(0.1, 1.0))
        pinned = i % 13 == 0
        coefficient = coefficient_for(node_type, valence=valence, pinned=pinned)
        vector = rng.standard_normal(384)
        nodes.append(
            Node(
                id=f"n{i}",
                user_id=user_id,
                type=node_type,
                valence=valence,
                content=f"memory {i}",
                weight=weight,
                weight_at=at,
                created_at=at,
                is_pinned=pinned,
                is_inference=i % 5 == 0,
                decay_coefficient=coefficient,
                expires_at=expires_at(weight, at, coefficient, timeline=store_timeline),
                belief=Belief(first_seen=at),
                embedding=tuple(float(x) for x in vector / np.linalg.norm(vector)),
                embedding_model=MODEL,
            )
        )
    return nodes


async def test_the_best_memories_before_similarity_join_the_nearest(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    # Active for the first 30 days, away 40, back 10 days ago: the clock paused in between.
    timeline = await store.record_activity(
        [NOW - timedelta(days=80 - d) for d in range(0, 31, 2)]
        + [NOW - timedelta(days=10 - d) for d in range(0, 10)]
    )
    assert timeline.pauses
    nodes = _nodes(scope.user_id, 300, timeline)
    await store.upsert(nodes)
    query_vector = nodes[0].embedding
    assert query_vector is not None
    alive = [n for n in nodes if not (n.expires_at and n.expires_at <= timeline.reading(NOW))]

    # The pool: the nearest one and the 12 best before similarity, as the domain computes them.
    found = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            limit=13,
            nearest_limit=1,
            prior_limit=12,
            scheduled_limit=0,
            scoring=_pool_scoring(),
        )
    )
    assert found.timeline == timeline
    by_prior = sorted(alive, key=lambda n: (-prior(n, NOW, timeline=timeline), n.id))
    assert {c.node.id for c in found.candidates} == {n.id for n in by_prior[:12]} | {"n0"}

    # The ranking in Cypher: with every memory in the pool, the store's top 20 is the domain's.
    floor = 0.78
    vector = np.asarray(query_vector)
    tops = []
    # The stored weight in the score (the default) and the literal §3.4 reading (decayed).
    for config in (_pool_scoring(), _pool_scoring(decayed_weight_in_score=True)):
        everything = await store.retrieve(
            RetrievalQuery(
                embedding=query_vector,
                embedding_model=MODEL,
                now=NOW,
                nearest_limit=1000,
                prior_limit=1000,
                similarity_floor=floor,
                scoring=config,
            )
        )
        best = rank(
            (
                Candidate.from_node(
                    n,
                    similarity=calibrated_similarity(
                        float(np.asarray(n.embedding) @ vector), floor
                    ),
                    effective_weight=score_weight(n, NOW, timeline=timeline, config=config),
                )
                for n in alive
            ),
            NOW,
            config,
        )
        assert {c.node.id for c in everything.candidates} == {b.id for b in best}
        tops.append({b.id for b in best})
    assert tops[0] != tops[1]  # the two readings rank differently: the check has teeth


def _with_evidence(nodes: list[Node]) -> list[Node]:
    """Beliefs of every shape the confidence factor reads: confirmed (some stable, some
    interpretive, some observed), challenged, untouched, at dates from first sight to now."""
    rng = np.random.default_rng(5)
    out = []
    for i, n in enumerate(nodes):
        belief = n.belief.model_copy(
            update={
                "permanence": (Permanence.STABLE, Permanence.DURABLE, Permanence.SITUATIONAL)[
                    i % 3
                ],
                "evidence_kind": (
                    EvidenceKind.SELF_REPORT,
                    EvidenceKind.OBSERVED,
                    EvidenceKind.INTERPRETATION,
                )[i % 4 % 3],
                "confidence": float(rng.uniform(0.3, 0.9)),
            }
        )
        for k in range(i % 4):  # 0-3 pieces of evidence, support or challenge
            at = n.created_at + (NOW - n.created_at) * float(rng.uniform(0, 1))
            supports = bool(rng.uniform() < 0.6)
            evidence = Evidence(
                id=f"e{i}-{k}", stream=EvidenceStream.OBSERVED, supports=supports, at=at
            )
            belief = update_belief(belief, evidence).belief
        out.append(n.model_copy(update={"belief": belief}))
    return out


# An operator's beliefs section (DomainTuning.beliefs): much faster dormancy, a lower cap.
TUNED_BELIEFS = BeliefConfig(
    stable_half_life=timedelta(days=60),
    durable_half_life=timedelta(days=20),
    situational_half_life=timedelta(days=5),
    interpretation_cap=0.7,
)


@pytest.mark.parametrize("beliefs", [DEFAULT_BELIEF, TUNED_BELIEFS], ids=["default", "tuned"])
async def test_the_confidence_factor_in_cypher_is_the_domains(
    graph_store: Neo4jGraphStore,
    graph_driver: AsyncDriver,
    stack_settings: Settings,
    beliefs: BeliefConfig,
) -> None:
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 80, 2)])
    nodes = _with_evidence(_nodes(scope.user_id, 300, timeline))
    await store.upsert(nodes)
    alive = [n for n in nodes if not (n.expires_at and n.expires_at <= timeline.reading(NOW))]
    query_vector = nodes[0].embedding
    assert query_vector is not None
    # A support share strictly between 0 and 1: both branches of the factor, and the share.
    strong = _pool_scoring(confidence_weight=1.0, confidence_support_share=0.5)

    # The best before similarity (`scoring.prior`), the factor included.
    found = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            limit=21,
            nearest_limit=1,
            prior_limit=20,
            scheduled_limit=0,
            scoring=strong,
            beliefs=beliefs,
        )
    )

    def by_prior(config: ScoringConfig, with_beliefs: BeliefConfig = beliefs) -> list[str]:
        ordered = sorted(
            alive,
            key=lambda n: (
                -prior(n, NOW, timeline=timeline, config=config, beliefs=with_beliefs),
                n.id,
            ),
        )
        return [n.id for n in ordered[:20]]

    assert {c.node.id for c in found.candidates} == set(by_prior(strong)) | {"n0"}
    # The test's teeth: without the factor the domain's pool would be another one.
    assert set(by_prior(strong)) != set(by_prior(_pool_scoring(confidence_weight=0.0)))
    if beliefs != DEFAULT_BELIEF:  # ... and so it would with the default belief numbers
        assert set(by_prior(strong)) != set(by_prior(strong, DEFAULT_BELIEF))

    # The whole ranking, every memory in the pool: the store's top 20 is the domain's.
    floor = 0.78
    everything = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            nearest_limit=1000,
            prior_limit=1000,
            similarity_floor=floor,
            scoring=strong,
            beliefs=beliefs,
        )
    )
    vector = np.asarray(query_vector)

    def best(config: ScoringConfig, with_beliefs: BeliefConfig = beliefs) -> set[str]:
        ranked = rank(
            (
                Candidate.from_node(
                    n,
                    similarity=calibrated_similarity(
                        float(np.asarray(n.embedding) @ vector), floor
                    ),
                    effective_weight=score_weight(n, NOW, timeline=timeline),
                )
                for n in alive
            ),
            NOW,
            config,
            beliefs=with_beliefs,
        )
        return {r.id for r in ranked}

    assert {c.node.id for c in everything.candidates} == best(strong)
    assert best(strong) != best(_pool_scoring(confidence_weight=0.0))
    if beliefs != DEFAULT_BELIEF:
        assert best(strong) != best(strong, DEFAULT_BELIEF)
    # Stored and read back, the beliefs are what the domain scored.
    by_id = {n.id: n for n in alive}
    for c in everything.candidates:
        assert c.node.belief == by_id[c.node.id].belief


async def test_restated_and_contradicted_memories_carry_the_factor_in_cypher(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    """Ingestion writes evidence through `reinforce` and `downweight`, not whole nodes: the
    store must rank those memories with the factor as the domain does."""
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 80, 2)])
    plain = _nodes(scope.user_id, 60, timeline)
    await store.upsert(plain)
    evidenced = {n.id: n for n in _with_evidence(plain) if n.belief.evidenced}
    assert len(evidenced) > 10
    for i, node in enumerate(evidenced.values()):
        if i % 2:
            assert await store.reinforce(
                Reinforcement(
                    node_id=node.id,
                    weight=node.weight,
                    weight_at=node.weight_at,
                    last_reinforced_at=node.weight_at,
                    expires_at=node.expires_at,
                    tally=ReinforcementTally(day=node.weight_at.date()),
                    belief=node.belief,
                )
            )
        else:
            assert await store.downweight(
                Downweight(
                    node_id=node.id,
                    weight=node.weight,
                    weight_at=node.weight_at,
                    expires_at=node.expires_at,
                    expected_weight_at=node.weight_at,
                    belief=node.belief,
                )
            )
    # The stored memories as the domain sees them after those writes.
    nodes = [evidenced.get(n.id, n) for n in plain]
    alive = [n for n in nodes if not (n.expires_at and n.expires_at <= timeline.reading(NOW))]
    # Confirmations count too (support share 1): restated memories are what reinforce writes.
    strong = _pool_scoring(confidence_weight=1.0, confidence_support_share=1.0)
    found = await store.retrieve(
        RetrievalQuery(
            embedding=plain[0].embedding or (),
            embedding_model=MODEL,
            now=NOW,
            limit=11,
            nearest_limit=1,
            prior_limit=10,
            scheduled_limit=0,
            scoring=strong,
        )
    )
    ordered = sorted(alive, key=lambda n: (-prior(n, NOW, timeline=timeline, config=strong), n.id))
    assert {c.node.id for c in found.candidates} == {n.id for n in ordered[:10]} | {"n0"}
    untouched = sorted(
        alive,
        key=lambda n: (
            -prior(n, NOW, timeline=timeline, config=_pool_scoring(confidence_weight=0.0)),
            n.id,
        ),
    )
    assert {n.id for n in ordered[:10]} != {n.id for n in untouched[:10]}  # the test's teeth


async def test_memories_evidenced_before_the_flag_get_it_from_the_migration(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 80, 2)])
    nodes = _with_evidence(_nodes(scope.user_id, 60, timeline))
    await store.upsert(nodes)
    database = stack_settings.neo4j_database
    # The decayed weight spreads these random memories' scores enough for the factor to move
    # the pool's edge (the test's teeth below).
    strong = _pool_scoring(confidence_weight=1.0, decayed_weight_in_score=True)
    query = RetrievalQuery(
        embedding=nodes[0].embedding or (),
        embedding_model=MODEL,
        now=NOW,
        limit=21,
        nearest_limit=1,
        prior_limit=20,
        scheduled_limit=0,
        scoring=strong,
    )
    with_flag = {c.node.id for c in (await store.retrieve(query)).candidates}
    # As stored before the flag existed: the factor reads as untouched, so the pool changes.
    await graph_driver.execute_query(
        "MATCH (n:Memory {scope: $scope}) REMOVE n.evidenced", scope=scope.key, database_=database
    )
    assert {c.node.id for c in (await store.retrieve(query)).candidates} != with_flag
    (backfill,) = next(m for m in load_migrations() if m.version == 45).statements
    async with graph_driver.session(database=database) as session:
        await run_statement(session, backfill)  # batched: an auto-commit transaction
    assert {c.node.id for c in (await store.retrieve(query)).candidates} == with_flag
    records, _, _ = await graph_driver.execute_query(
        "MATCH (n:Memory {scope: $scope}) WHERE n.evidenced RETURN n.id AS id",
        scope=scope.key,
        database_=database,
    )
    assert {r["id"] for r in records} == {n.id for n in nodes if n.belief.evidenced}


LIVE_ONLY = _pool_scoring(recognition_min_lexical=None)
WORDS = ("kazan", "piano", "garden", "berlin", "sunrise", "violin", "marathon", "pottery")


async def test_the_lexical_pool_and_relevance_match_the_domain(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 80, 2)])
    nodes = [
        n.model_copy(
            update={"content": f"Memory {i} about {WORDS[i % 8]} and {WORDS[(i * 3) % 7]}."}
        )
        for i, n in enumerate(_nodes(scope.user_id, 200, timeline))
    ]
    await store.upsert(nodes)
    alive = [n for n in nodes if not (n.expires_at and n.expires_at <= timeline.reading(NOW))]
    query_vector = nodes[0].embedding
    assert query_vector is not None
    terms = search_terms("What about the pottery and the violin in Kazan?")
    assert set(terms) == {"potteri", "violin", "kazan"}
    # Statistics over every stored memory (expired ones not yet pruned too), candidates alive.
    frequency = Counter(t for n in nodes for t in set(terms) & set(search_terms(n.content)))
    idf = idf_weights(frequency, len(nodes))

    def lexical(n: Node) -> float | None:
        return lexical_relevance(terms, search_terms(n.content), idf)

    # The lexical pool: the 6 memories holding the most of the query's information.
    found = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            limit=50,
            nearest_limit=1,
            prior_limit=0,
            scheduled_limit=0,
            terms=terms,
            # The live lexical pool: faded memories recognised by words are another test's.
            scoring=LIVE_ONLY,
            lexical_limit=6,
        )
    )
    by_held = sorted(alive, key=lambda n: (-(lexical(n) or 0.0), n.id))
    assert {c.node.id for c in found.candidates} == {n.id for n in by_held[:6]} | {"n0"}
    for c in found.candidates:
        assert c.lexical == pytest.approx(lexical(c.node))

    # With terms the same scan picks the best before similarity: the same 12 as the domain's.
    with_prior = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            limit=13,
            nearest_limit=1,
            prior_limit=12,
            scheduled_limit=0,
            terms=terms,
            # The live lexical pool: faded memories recognised by words are another test's.
            scoring=LIVE_ONLY,
            lexical_limit=0,
        )
    )
    by_prior = sorted(alive, key=lambda n: (-prior(n, NOW, timeline=timeline), n.id))
    assert {c.node.id for c in with_prior.candidates} == {n.id for n in by_prior[:12]} | {"n0"}

    # With every memory in the pool, the store's top 20 is the domain's, lexical included.
    everything = await store.retrieve(
        RetrievalQuery(
            embedding=query_vector,
            embedding_model=MODEL,
            now=NOW,
            nearest_limit=1000,
            prior_limit=1000,
            similarity_floor=0.78,
            terms=terms,
            # The live lexical pool: faded memories recognised by words are another test's.
            scoring=LIVE_ONLY,
            lexical_limit=1000,
        )
    )
    vector = np.asarray(query_vector)
    best = rank(
        (
            Candidate.from_node(
                n,
                similarity=calibrated_similarity(float(np.asarray(n.embedding) @ vector), 0.78),
                effective_weight=score_weight(n, NOW, timeline=timeline),
                lexical=lexical(n),
            )
            for n in alive
        ),
        NOW,
    )
    assert {c.node.id for c in everything.candidates} == {b.id for b in best}
    assert any((b.lexical or 0.0) > 0 for b in best)


async def test_memories_stored_before_lexical_retrieval_get_their_terms(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW])
    nodes = [
        n.model_copy(update={"content": f"We moved to Kazan in 20{10 + i}."})
        for i, n in enumerate(_nodes(scope.user_id, 3, timeline))
    ]
    await store.upsert(nodes)
    database = stack_settings.neo4j_database
    await graph_driver.execute_query(
        "MATCH (n:Memory {scope: $scope}) REMOVE n.terms", scope=scope.key, database_=database
    )
    assert await backfill_search_terms(graph_driver, database, batch=2) >= 3
    records, _, _ = await graph_driver.execute_query(
        "MATCH (n:Memory {scope: $scope}) RETURN n.content AS content, n.terms AS terms",
        scope=scope.key,
        database_=database,
    )
    assert len(records) == 3
    for r in records:
        assert tuple(r["terms"]) == search_terms(r["content"])
    assert await backfill_search_terms(graph_driver, database) == 0  # nothing left to do


def _fact(
    scope: UserScope, node_id: str, embedding: tuple[float, ...], expires: datetime | None
) -> Node:
    """A fact said 60 days ago, faded when `expires` is past on the user's clock."""
    return Node(
        id=node_id,
        user_id=scope.user_id,
        type=NodeType.FACT,
        content=f"memory {node_id}",
        weight=0.5,
        weight_at=NOW - timedelta(days=60),
        created_at=NOW - timedelta(days=60),
        decay_coefficient=0.95,
        expires_at=expires,
        belief=Belief(first_seen=NOW - timedelta(days=60)),
        embedding=embedding,
        embedding_model=MODEL,
    )


def _at_similarity(similarity: float, floor: float, axis: int) -> tuple[float, ...]:
    """A unit vector whose calibrated similarity to the first basis vector is `similarity`."""
    cosine = floor + similarity * (1.0 - floor)
    vector = np.zeros(384)
    vector[0], vector[axis] = cosine, float(np.sqrt(1.0 - cosine**2))
    return tuple(float(x) for x in vector)


async def test_a_faded_memory_joins_the_pool_only_when_the_query_recognises_it(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    """Issue 32: a memory decayed under the removal threshold is kept out of the default pool
    (best before similarity, lexical, expansion) and joins the nearest only at a calibrated
    similarity of `recognition_min_similarity` or more (the floor; distinctiveness off here,
    tested below); a live memory needs no such match."""
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 90, 3)])
    scoring = _pool_scoring(recognition_min_distinctiveness=None)
    floor, bar = 0.5, scoring.recognition_min_similarity
    faded_at = timeline.reading(NOW) - timedelta(days=20)

    def memory(node_id: str, similarity: float, axis: int, *, faded: bool) -> Node:
        embedding = _at_similarity(similarity, floor, axis)
        return _fact(scope, node_id, embedding, faded_at if faded else None)

    await store.upsert(
        [
            memory("recognised", bar + 0.02, 1, faded=True),
            memory("not-quite", bar - 0.02, 2, faded=True),
            memory("live", bar - 0.02, 3, faded=False),
        ]
    )
    query = np.zeros(384)
    query[0] = 1.0

    async def pool(holds_room: bool) -> set[str]:
        asked = RetrievalQuery(
            embedding=tuple(float(x) for x in query),
            embedding_model=MODEL,
            now=NOW,
            nearest_limit=10,
            prior_limit=10,
            similarity_floor=floor,
            scoring=scoring.model_copy(update={"faded_hold_room": holds_room}),
        )
        return {c.node.id for c in (await store.retrieve(asked)).candidates}

    assert await pool(holds_room=False) == {"recognised", "live"}
    # Held in its room (the shipped default), the faded memory the query does not recognise
    # is read too: the context, not the pool, tells it apart (domain.context).
    assert await pool(holds_room=True) == {"recognised", "not-quite", "live"}


async def test_recognition_reads_the_same_spread_and_bar_as_the_domain(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    """Issue 32, recognition must be specific (domain.recognition): the statement reads the
    query's similarity spread over the user's memories with the smallest ids (at most
    `recognition_sample`), as the snapshot path does, and a faded memory joins the pool only
    when its similarity stands `recognition_min_distinctiveness` deviations above the mean: a
    bar just under the standout's own distinctiveness lets it in, one just over keeps it out;
    a faded memory above the absolute bar but inside the crowd stays out."""
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 90, 3)])
    floor = 0.5
    faded_at = timeline.reading(NOW) - timedelta(days=20)

    def memory(node_id: str, similarity: float, axis: int, *, faded: bool) -> Node:
        embedding = _at_similarity(similarity, floor, axis)
        return _fact(scope, node_id, embedding, faded_at if faded else None)

    similarities = {f"crowd-{i:02d}": 0.30 + 0.01 * i for i in range(10)}
    nodes = [memory(i, s, 1 + k, faded=False) for k, (i, s) in enumerate(similarities.items())]
    nodes += [
        memory("faded-crowd", 0.42, 20, faded=True),
        memory("faded-standout", 0.9, 21, faded=True),
    ]
    await store.upsert(nodes)
    snapshot = GraphSnapshot(
        user_id=scope.user_id,
        exported_at=NOW,
        nodes=tuple(nodes),
        edges=(),
        hypotheses=(),
        tensions=(),
    )
    query = np.zeros(384)
    query[0] = 1.0

    def asked(scoring: ScoringConfig) -> RetrievalQuery:
        return RetrievalQuery(
            embedding=tuple(float(x) for x in query),
            embedding_model=MODEL,
            now=NOW,
            nearest_limit=20,
            prior_limit=0,
            similarity_floor=floor,
            scoring=scoring,
        )

    sampled = _pool_scoring(recognition_min_distinctiveness=1.5, recognition_sample=6)
    found = await store.retrieve(asked(sampled))
    # The six smallest ids: crowd-00 .. crowd-05.
    expected = SimilaritySpread.of(0.30 + 0.01 * i for i in range(6))
    assert found.spread is not None and expected is not None
    assert found.spread.size == 6
    assert found.spread.centre == pytest.approx(expected.centre, abs=1e-6)
    assert found.spread.deviation == pytest.approx(expected.deviation, abs=1e-6)

    whole = _pool_scoring(recognition_min_distinctiveness=1.5)
    spread = (await store.retrieve(asked(whole))).spread
    assert spread is not None and spread.size == 12
    standout = distinctiveness(0.9, spread, whole)
    for bar, admitted in ((standout - 0.01, True), (standout + 0.01, False)):
        scoring = whole.model_copy(update={"recognition_min_distinctiveness": bar})
        by_neo4j = {c.node.id for c in (await store.retrieve(asked(scoring))).candidates}
        by_snapshot = {
            c.node.id for c in retrieve_from_snapshot(snapshot, asked(scoring), timeline).candidates
        }
        assert by_neo4j == by_snapshot
        assert ("faded-standout" in by_neo4j) is admitted
        assert "faded-crowd" not in by_neo4j
        assert set(similarities) <= by_neo4j
    # The floor alone (the ablation: distinctiveness off) lets the crowd's faded memory in too.
    floor_only = _pool_scoring(recognition_min_distinctiveness=None)
    absolute = {c.node.id for c in (await store.retrieve(asked(floor_only))).candidates}
    assert {"faded-crowd", "faded-standout"} <= absolute


async def test_recognition_by_words_and_meaning_matches_the_domain(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    """Issue 32's rule `recognition_min_lexical`: a faded memory holding the query's
    rare word, whose similarity stands out too little for recognition by meaning alone, joins
    the pool through the lexical pool when the rule is on and its distinctiveness reaches
    `recognition_lexical_distinctiveness`; off, or with that bar just over it, it stays out.
    Neo4j and the snapshot read agree."""
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.record_activity([NOW - timedelta(days=d) for d in range(0, 90, 3)])
    floor = 0.5
    faded_at = timeline.reading(NOW) - timedelta(days=20)
    nodes = [
        _fact(scope, f"crowd-{i:02d}", _at_similarity(0.30 + 0.01 * i, floor, 1 + i), None)
        for i in range(10)
    ]
    kazan = _fact(scope, "kazan", _at_similarity(0.37, floor, 30), faded_at).model_copy(
        update={"content": "We moved to Kazan in 2019."}
    )
    nodes.append(kazan)
    await store.upsert(nodes)
    snapshot = GraphSnapshot(
        user_id=scope.user_id,
        exported_at=NOW,
        nodes=tuple(nodes),
        edges=(),
        hypotheses=(),
        tensions=(),
    )
    query = np.zeros(384)
    query[0] = 1.0

    def asked(scoring: ScoringConfig) -> RetrievalQuery:
        return RetrievalQuery(
            embedding=tuple(float(x) for x in query),
            embedding_model=MODEL,
            now=NOW,
            nearest_limit=20,
            prior_limit=0,
            lexical_limit=5,
            terms=("kazan",),
            similarity_floor=floor,
            scoring=scoring,
        )

    spread = (await store.retrieve(asked(_pool_scoring()))).spread
    assert spread is not None
    standing_out = distinctiveness(0.37, spread, _pool_scoring())
    # Not recognised by meaning alone (1.5 deviations), and not for nothing either.
    assert 0.0 < standing_out < 1.5
    cases = (
        (_pool_scoring(recognition_min_lexical=None), False),
        (_pool_scoring(recognition_min_lexical=1.0, recognition_lexical_distinctiveness=0.0), True),
        (
            _pool_scoring(
                recognition_min_lexical=1.0, recognition_lexical_distinctiveness=standing_out - 0.01
            ),
            True,
        ),
        (
            _pool_scoring(
                recognition_min_lexical=1.0, recognition_lexical_distinctiveness=standing_out + 0.01
            ),
            False,
        ),
    )
    for scoring, admitted in cases:
        by_neo4j = {c.node.id for c in (await store.retrieve(asked(scoring))).candidates}
        by_snapshot = {
            c.node.id for c in retrieve_from_snapshot(snapshot, asked(scoring), timeline).candidates
        }
        assert by_neo4j == by_snapshot, scoring
        assert ("kazan" in by_neo4j) is admitted, scoring

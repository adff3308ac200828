"""The epistemic sections of the tuning document (beliefs, review, summary, collective): they
load, typos are refused, and each one reaches the running code that applies it: the cpu
worker's activities as `workers.cpu.graph_activities` builds them, the API's read path, the
snapshot path and CollectiveImprint. Every test here fails when its section's wiring is cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import ValidationError
from temporalio.testing import ActivityEnvironment

from activities.ingestion import ApplyInput, ExtractedBatch, ExtractionBatch
from activities.reviews import ReviewInput
from activities.sleep import CheckInput, SleepScope
from activities.summaries import SummaryInput
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.config import Settings
from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    update_belief,
)
from selfimprint.domain.collective_patterns import CollectivePatternConfig
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.hypotheses import form_hypothesis
from selfimprint.domain.ingestion.extraction import (
    CandidateEvidence,
    CandidateType,
    ExtractedMemory,
    Extraction,
    RecentMemory,
)
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Belief, EvidenceKind, Node, NodeType, Valence
from selfimprint.domain.monthly_summary import MonthlySummary, SummaryConfig
from selfimprint.domain.scoring import ScoringConfig
from selfimprint.domain.session_review import BeliefReview, ReviewConfig
from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_writes import SleepWrites
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.ports import (
    Downweight,
    GraphSnapshot,
    PatternTally,
    RetrievalQuery,
    RetrievalResult,
)
from selfimprint.service.collective import record_unhelpful_context
from selfimprint.service.read_path import ContextMode, build_context
from workers.cpu import GraphActivities, graph_activities

pytestmark = pytest.mark.unit

NOW = datetime(2026, 7, 1, 9, tzinfo=UTC)
SCOPE = UserScope("t1", "u1")


# --- the document ------------------------------------------------------------------------------


def test_the_epistemic_sections_load_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tuning.json"
    document = {
        "beliefs": {"interpretation_cap": 0.8, "durable_half_life": "P30D"},
        "review": {"reviewed_types": ["fact"]},
        "summary": {"significant": 3},
        "collective": {"active_window": "P7D"},
    }
    path.write_text(json.dumps(document))
    tuning = DomainTuning.load(path)
    assert tuning.beliefs == BeliefConfig(
        interpretation_cap=0.8, durable_half_life=timedelta(days=30)
    )
    assert tuning.review == ReviewConfig(reviewed_types=(NodeType.FACT,))
    assert tuning.summary == SummaryConfig(significant=3)
    assert tuning.collective == CollectivePatternConfig(active_window=timedelta(days=7))
    assert tuning.scoring == DomainTuning().scoring  # the rest stays the defaults


@pytest.mark.parametrize(
    "document",
    [
        {"beliefs": {"interpretation_capp": 0.8}},
        {"beliefs": {"interpretation_cap": 1.5}},
        {"beliefs": {"situational_half_life": "PT0S"}},
        {"review": {"reviewed_types": ["mood"]}},
        {"summary": {"significant": -1}},
        {"collective": {"window": "P7D"}},
        # Read by the lifecycle workflow, which a replayed history must see unchanged.
        {"beliefs": {"review_every_sessions": 5}},
    ],
    ids=[
        "unknown key",
        "cap above 1",
        "zero half-life",
        "unknown type",
        "negative size",
        "unknown collective key",
        "workflow number",
    ],
)
def test_typos_bad_numbers_and_workflow_numbers_are_refused(
    tmp_path: Path, document: object
) -> None:
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValidationError):
        DomainTuning.load(path)


# --- the cpu worker's activities ---------------------------------------------------------------


def belief_node(nid: str, node_type: NodeType, confidence: float, **changes: Any) -> Node:
    seen = NOW - timedelta(days=40)
    values: dict[str, Any] = {
        "id": nid,
        "user_id": SCOPE.user_id,
        "type": node_type,
        "content": f"memory {nid}",
        "weight": 0.8,
        "weight_at": seen,
        "created_at": seen,
        "sources": (f"m-{nid}",),
        "belief": Belief(first_seen=seen, confidence=confidence),
    }
    return Node.model_validate(values | changes)


@dataclass
class FakeUserGraph:
    """The few store calls each activity under test makes, recording what it wrote."""

    nodes: list[Node] = field(default_factory=list)
    snapshot: GraphSnapshot | None = None
    asked_types: list[tuple[NodeType, ...]] = field(default_factory=list)
    reviews: list[BeliefReview] = field(default_factory=list)
    summaries: list[MonthlySummary] = field(default_factory=list)
    sleep_writes: list[SleepWrites] = field(default_factory=list)
    downweights: list[Downweight] = field(default_factory=list)

    # reviews
    async def review_candidates(self, types: Sequence[NodeType]) -> list[Node]:
        self.asked_types.append(tuple(types))
        return [n for n in self.nodes if n.type in types]

    async def open_review(self, review: BeliefReview) -> bool:
        self.reviews.append(review)
        return True

    # summaries and sleep
    async def export_graph(self, now: datetime) -> GraphSnapshot:
        assert self.snapshot is not None
        return self.snapshot

    async def summarised_total(self, before_month: str) -> int | None:
        return None

    async def put_summary(self, summary: MonthlySummary) -> None:
        self.summaries.append(summary)

    async def apply_sleep_writes(self, run_id: str, operation: str, data: SleepWrites) -> bool:
        self.sleep_writes.append(data)
        return True

    # ingestion
    async def record_activity(self, moments: Sequence[datetime]) -> ActivityTimeline:
        return ActivityTimeline()

    async def retrieve(self, query: RetrievalQuery) -> RetrievalResult:
        return RetrievalResult(candidates=(), neighbours=(), edges=())

    async def get_nodes(self, node_ids: Sequence[str]) -> list[Node]:
        return [n for n in self.nodes if n.id in node_ids]

    async def reinforcement_tallies(self, node_ids: Sequence[str], day: object) -> dict[str, Any]:
        return {}

    async def upsert(self, nodes: Sequence[Node], edges: Sequence[object] = ()) -> None: ...

    async def record_contradiction(self, contradiction: object) -> None: ...

    async def downweight(self, change: Downweight) -> bool:
        self.downweights.append(change)
        return True


@dataclass
class FakeGraphs:
    user: FakeUserGraph

    def for_user(self, tenant_id: str, user_id: str) -> FakeUserGraph:
        return self.user


class FakeAccounts:
    async def get_profile(self, scope: UserScope) -> UserProfile:
        return UserProfile()

    async def get_tier(self, scope: UserScope) -> Tier:
        return Tier.HOT


class FakeLog:
    async def set_state(self, message_ids: Sequence[str], state: object) -> None: ...


class FakeLogs:
    def for_user(self, scope: UserScope) -> FakeLog:
        return FakeLog()


def activities(user: FakeUserGraph, tuning: DomainTuning) -> GraphActivities:
    """The activities as the cpu worker builds them (workers.cpu.build), over fakes."""
    return graph_activities(
        cast(Neo4jGraphStore, FakeGraphs(user)),
        cast(MessageLogs, FakeLogs()),
        cast(Neo4jAccounts, FakeAccounts()),
        tuning,
    )


async def test_the_review_activity_asks_with_the_tuned_beliefs_and_review_sections() -> None:
    user = FakeUserGraph(
        nodes=[
            belief_node("fact-high", NodeType.FACT, 0.9),
            belief_node("fact-low", NodeType.FACT, 0.2),
            belief_node("fact-mid", NodeType.FACT, 0.5),
            belief_node("mood", NodeType.EMOTIONAL_NOTE, 0.1, valence=Valence.NEGATIVE),
        ]
    )
    tuning = DomainTuning(
        beliefs=BeliefConfig(review_highest=1, review_lowest=0),
        review=ReviewConfig(reviewed_types=(NodeType.FACT,)),
    )
    data = ReviewInput(tenant_id=SCOPE.tenant_id, user_id=SCOPE.user_id, session=10, now=NOW)
    out = await activities(user, tuning).reviews.open_session_review(data)
    assert out.memory_ids == ["fact-high"]
    assert user.asked_types == [(NodeType.FACT,)]
    # The defaults: three highest and three lowest, emotional notes asked about too.
    default = FakeUserGraph(nodes=user.nodes)
    out = await activities(default, DomainTuning()).reviews.open_session_review(data)
    assert set(out.memory_ids) == {"fact-high", "fact-mid", "fact-low", "mood"}


async def test_the_summary_activity_sizes_the_summary_with_the_tuned_section() -> None:
    june = NOW - timedelta(days=10)
    marked = [
        belief_node(f"s{i}", NodeType.FACT, 0.6, significant=True, created_at=june, weight_at=june)
        for i in range(4)
    ]
    snapshot = GraphSnapshot(
        user_id=SCOPE.user_id,
        exported_at=NOW,
        nodes=tuple(marked),
        edges=(),
        hypotheses=(),
        tensions=(),
    )
    data = SummaryInput(tenant_id=SCOPE.tenant_id, user_id=SCOPE.user_id, now=NOW)
    sizes = {}
    for name, tuning in (("tuned", DomainTuning(summary=SummaryConfig(significant=2))),
                         ("default", DomainTuning())):  # fmt: skip
        user = FakeUserGraph(snapshot=snapshot)
        await ActivityEnvironment().run(activities(user, tuning).summaries.produce_monthly, data)
        (summary,) = user.summaries
        sizes[name] = len(summary.significant)
    assert sizes == {"tuned": 2, "default": 4}


async def test_the_hypothesis_check_moves_confidence_by_the_tuned_evidence_step() -> None:
    claim = "The user runs every morning before work."
    node_id = hypothesis_id(SCOPE.user_id, claim)
    created = NOW - timedelta(days=6)
    hypothesis = belief_node(
        "h",
        NodeType.HYPOTHESIS,
        0.5,
        id=node_id,
        content=claim,
        is_inference=True,
        created_at=created,
        weight_at=created,
        sources=("m1", "m2"),
        belief=Belief(
            first_seen=created, confidence=0.5, evidence_kind=EvidenceKind.INTERPRETATION
        ),
    )

    def said(i: int, text: str, days_ago: float) -> Node:
        at = NOW - timedelta(days=days_ago)
        return belief_node(f"n{i}", NodeType.FACT, 0.6, content=text, created_at=at, weight_at=at)

    nodes = (
        said(1, "I run every morning before work.", 8),
        said(2, "Went for my morning run before work again.", 7),
        said(21, "I don't run in the morning anymore, my knee hurts.", 4),  # one contradiction
        hypothesis,
    )
    snapshot = GraphSnapshot(
        user_id=SCOPE.user_id,
        exported_at=NOW,
        nodes=nodes,
        edges=(),
        hypotheses=(form_hypothesis(node_id, created),),
        tensions=(),
    )
    scope = SleepScope(tenant_id=SCOPE.tenant_id, user_id=SCOPE.user_id, run_id="r1", now=NOW)

    async def confidence(tuning: DomainTuning) -> float:
        user = FakeUserGraph(snapshot=snapshot)
        await ActivityEnvironment().run(
            activities(user, tuning).sleep.check_hypotheses, CheckInput(scope=scope)
        )
        (writes,) = user.sleep_writes
        (lowered,) = (n for n in writes.nodes if n.id == node_id)
        return lowered.belief.confidence

    # One observed contradiction removes `observed_step` of the confidence.
    default = await confidence(DomainTuning())
    tuned = await confidence(DomainTuning(beliefs=BeliefConfig(observed_step=0.5)))
    assert tuned < default * 0.7 and default < 0.5 * 0.8 + 1e-9


async def test_ingestion_challenges_a_contradicted_belief_by_the_tuned_evidence_step() -> None:
    older = belief_node("m-old", NodeType.FACT, 0.8, content="I work at Initech.")
    text = "I quit my job at Initech last week."
    batch = ExtractionBatch(
        tenant_id=SCOPE.tenant_id,
        user_id=SCOPE.user_id,
        messages=[Message(id="m9", role=Role.USER, text=text, sent_at=NOW)],
        recent=[RecentMemory.from_node(older)],
        language="en",
        now=NOW,
    )
    candidate = ExtractedMemory(
        ref="c1",
        type=CandidateType.FACT,
        content=text,
        importance=0.6,
        valence=None,
        dates_mentioned=(),
        people=(),
        evidence_kind=CandidateEvidence.SELF_REPORT,
        source_message_ids=("m9",),
        contradicts_memory_ids=("m-old",),
    )
    extracted = ExtractedBatch(
        answer=Extraction(candidates=(candidate,), edges=()),
        embeddings={"c1": [1.0, 0.0, 0.0]},
        embedding_model="e5",
    )

    async def challenged(tuning: DomainTuning) -> Belief:
        user = FakeUserGraph(nodes=[older])
        ingestion = activities(user, tuning).ingestion
        await ingestion.apply_extraction(ApplyInput(batch=batch, extracted=extracted))
        (change,) = user.downweights
        assert change.belief is not None
        return change.belief

    steps = BeliefConfig(observed_step=0.5)
    tuned, default = await challenged(DomainTuning(beliefs=steps)), await challenged(DomainTuning())
    evidence = Evidence(id="m9", stream=EvidenceStream.OBSERVED, supports=False, at=NOW)
    assert tuned.confidence == update_belief(older.belief, evidence, steps).belief.confidence
    assert default.confidence == update_belief(older.belief, evidence).belief.confidence
    assert tuned.confidence < default.confidence


# --- the API: read path, snapshot path, CollectiveImprint --------------------------------------


class FakeEmbedder:
    model_id = "e5"
    dimension = 3
    similarity_floor = 0.0

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_queries(texts)


@dataclass
class FakeReadResources:
    tuning: DomainTuning
    settings: Settings = field(default_factory=Settings)
    embedder: FakeEmbedder = field(default_factory=FakeEmbedder)
    clock: Callable[[], datetime] = lambda: NOW
    graph: Any = None
    llm: Any = None


async def test_the_read_path_sends_the_tuned_beliefs_with_its_query() -> None:
    tuned = BeliefConfig(durable_half_life=timedelta(days=9), interpretation_cap=0.7)
    sent: list[RetrievalQuery] = []

    async def retrieve(query: RetrievalQuery) -> RetrievalResult:
        sent.append(query)
        return RetrievalResult(candidates=(), neighbours=(), edges=())

    resources = FakeReadResources(tuning=DomainTuning(beliefs=tuned))
    await build_context(resources, SCOPE, "Where do I work?", 500, ContextMode.FAST, retrieve)
    (query,) = sent
    assert query.beliefs == tuned


def test_the_snapshot_path_scores_with_the_querys_beliefs() -> None:
    """The warm/cold path ranks as the store does, with the query's belief numbers: under a cap
    below both confidences, a confirmed interpretation and its untouched twin are equally sure,
    so the confirmation no longer lifts it and the id decides. (Confirmations lift a score
    only with a support share: the default counts challenges alone.)"""
    seen = NOW - timedelta(days=30)
    untouched = Belief(first_seen=seen, evidence_kind=EvidenceKind.INTERPRETATION)
    confirmed = update_belief(
        untouched, Evidence(id="m-9", stream=EvidenceStream.OBSERVED, supports=True, at=NOW)
    ).belief

    def twin(nid: str, belief: Belief) -> Node:
        return belief_node(nid, NodeType.FACT, belief.confidence, belief=belief).model_copy(
            update={"embedding": (1.0, 0.0, 0.0), "embedding_model": "e5"}
        )

    snapshot = GraphSnapshot(
        user_id=SCOPE.user_id,
        exported_at=NOW,
        nodes=(twin("a-untouched", untouched), twin("b-confirmed", confirmed)),
        edges=(),
        hypotheses=(),
        tensions=(),
    )
    query = RetrievalQuery(
        embedding=(1.0, 0.0, 0.0),
        embedding_model="e5",
        now=NOW,
        limit=1,
        scoring=ScoringConfig(confidence_support_share=1.0),
    )
    capped = query.model_copy(update={"beliefs": BeliefConfig(interpretation_cap=0.3)})
    assert query.beliefs == DEFAULT_BELIEF
    assert [c.node.id for c in retrieve_from_snapshot(snapshot, query).candidates] == [
        "b-confirmed"
    ]
    assert [c.node.id for c in retrieve_from_snapshot(snapshot, capped).candidates] == [
        "a-untouched"
    ]


@dataclass
class FakeCollective:
    since: list[datetime] = field(default_factory=list)

    async def contribute(self, tenant: str, pattern_key: str, pseudonym: str) -> PatternTally:
        return PatternTally(contributors=(pseudonym,), graduated=False)

    async def active_users(self, tenant: str, since: datetime) -> int:
        self.since.append(since)
        return 1000

    async def graduate(self, tenant: str, pattern_key: str, k: int) -> None: ...

    async def graduated(self, tenant: str, pattern_keys: Sequence[str]) -> frozenset[str]:
        return frozenset()

    async def pending(self, tenant: str) -> frozenset[str]:
        return frozenset()

    async def withdraw(self, tenant: str, pseudonyms: Mapping[str, str]) -> int:
        return 0


@dataclass
class FakeCollectiveResources:
    tuning: DomainTuning
    store: FakeCollective = field(default_factory=FakeCollective)
    settings: Settings = field(default_factory=Settings)
    collective_key: bytes = b"k" * 32
    clock: Callable[[], datetime] = lambda: NOW

    def collective(self) -> FakeCollective:
        return self.store


async def test_collective_counts_active_users_over_the_tuned_window() -> None:
    window = CollectivePatternConfig(active_window=timedelta(days=7))
    resources = FakeCollectiveResources(
        tuning=DomainTuning(collective=window), settings=Settings(collective_k_floor=1)
    )
    await record_unhelpful_context(resources, SCOPE, "Do you remember my sister?", 0)
    assert resources.store.since == [NOW - timedelta(days=7)]

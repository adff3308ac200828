"""What the domain and the orchestration need from the outside world, as Protocols.

Adapters in `selfimprint.adapters` implement these; tests of workflows may stub them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from pydantic import BaseModel

AnswerT = TypeVar("AnswerT", bound=BaseModel)


class Embedder(Protocol):
    """Text -> unit-length vectors. `model_id` and `dimension` are stored with every vector, so
    that vectors of two different models are never compared."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    @property
    def similarity_floor(self) -> float:
        """The cosine of two unrelated texts for this model (see scoring.calibrated_similarity)."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...


class LLM(Protocol):
    """A chat model that answers with JSON validated against a pydantic model's schema."""

    @property
    def model_name(self) -> str: ...

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT: ...

    async def unhealthy_reason(self) -> str | None:
        """None when the model server answers its health probe; else why not, in words."""
        ...


# --- graph store ----------------------------------------------------------------------------------
# The graph store is bound to one (tenant, user) scope when it is created (`GraphStore.for_user`);
# no operation takes a scope from its caller, so one user's request cannot read another's graph.
# The value types below are the store's contract; the Neo4j adapter implements it.

from datetime import datetime, timedelta  # noqa: E402
from typing import Annotated, Self  # noqa: E402

from pydantic import ConfigDict, Field, model_validator  # noqa: E402

from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig  # noqa: E402
from selfimprint.domain.compaction.plan import CompactionPlan  # noqa: E402
from selfimprint.domain.context import PreparedQuestion  # noqa: E402
from selfimprint.domain.decay import ActivityTimeline, ReinforcementTally  # noqa: E402
from selfimprint.domain.fading import FadingConfig  # noqa: E402
from selfimprint.domain.ingestion.plan import Downweight as Downweight  # noqa: E402 - re-exported
from selfimprint.domain.models import (  # noqa: E402
    AwareDatetime,
    Belief,
    Content,
    Edge,
    EdgeType,
    Hypothesis,
    HypothesisStatus,
    MemoryId,
    Node,
    NodeType,
    Tension,
    TensionStatus,
)
from selfimprint.domain.monthly_summary import MonthlySummary  # noqa: E402
from selfimprint.domain.recognition import SimilaritySpread  # noqa: E402
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoringConfig  # noqa: E402
from selfimprint.domain.session_review import BeliefReview, ReviewVerdict  # noqa: E402
from selfimprint.domain.tensions import TensionRecord, TensionResolution  # noqa: E402
from selfimprint.domain.terms import MAX_TERMS  # noqa: E402

MAX_BATCH_IDS = 10_000


class _GraphValue(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrievalQuery(_GraphValue):
    """Candidates for context assembly (spec §3.4): the `limit` active memories with the best
    score (0.5 similarity + 0.2 recency + 0.3 effective weight, `domain.scoring`), chosen from
    a pool of the `nearest_limit` most similar, the `prior_limit` best before similarity and
    the scheduled ones. A store ranks the pool itself, so that only the best are expanded."""

    embedding: Annotated[tuple[float, ...], Field(min_length=1)]
    embedding_model: Annotated[str, Field(min_length=1, max_length=200)]
    now: AwareDatetime
    limit: Annotated[int, Field(ge=1, le=200)] = 20
    nearest_limit: Annotated[int, Field(ge=1, le=1000)] = 50
    # The embedder's "unrelated" cosine (`Embedder.similarity_floor`): ranking in the store
    # calibrates similarity as the read path does (`scoring.calibrated_similarity`).
    similarity_floor: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    # Memories inside an active scheduled-trigger window join the candidates however similar
    # they are (an interview tomorrow matters whatever the user just said), up to this many.
    scheduled_limit: Annotated[int, Field(ge=0, le=50)] = 5
    # The memories with the best score before similarity (recency and effective weight,
    # `scoring.prior`) join the pool too, up to this many: with the nearest alone, a heavy or
    # recent memory outside them could never win on the full score. Sizes: BENCHMARKS.md
    # "Retrieval pool".
    prior_limit: Annotated[int, Field(ge=0, le=1000)] = 100
    # The query's search terms (`domain.terms.search_terms`): the memories holding the most of
    # their information join the pool, up to `lexical_limit`, and lexical relevance weighs into
    # the score (`scoring.relevance`). No terms: similarity alone, as before.
    terms: Annotated[
        tuple[Annotated[str, Field(min_length=1, max_length=100)], ...], Field(max_length=MAX_TERMS)
    ] = ()
    lexical_limit: Annotated[int, Field(ge=0, le=1000)] = 50
    # Compare the query with each memory as it reads after the message it replied to
    # (Node.context_embedding, domain.reply_context) where it has one: the context read path.
    # Off for sameness checks (the restatement test's nearest), which compare contents.
    in_context: bool = False
    # The §3.4 score's numbers (the operator's `DomainTuning.scoring`): a store ranks with them,
    # and the read path ranks the store's candidates with the same ones.
    scoring: ScoringConfig = DEFAULT_SCORING
    # The belief numbers the score's confidence factor reads (dormancy half-lives, the
    # interpretation cap: the operator's `DomainTuning.beliefs`), for the store as for the domain.
    beliefs: BeliefConfig = DEFAULT_BELIEF


class RetrievedMemory(_GraphValue):
    node: Node  # without its vector: the read path never needs it
    # Neo4j's cosine score, normalised to [0, 1] as (1 + cos) / 2: what retrieval scoring wants.
    # Rules stated in raw cosine (duplicates: cos > 0.92) must convert with `cosine_of`.
    similarity: float
    # Inside a scheduled trigger's priority window now (sleep phase, spec §3.5.1).
    prioritised: bool = False
    # Lexical relevance to the query's terms (`domain.terms.lexical_relevance`); None when the
    # query had none the user's memories hold.
    lexical: float | None = None

    @property
    def cosine(self) -> float:
        return cosine_of(self.similarity)


def cosine_of(normalised_similarity: float) -> float:
    """Raw cosine from Neo4j's normalised score: an unrelated pair of e5 embeddings has cosine
    ~0.80 but score ~0.90, so comparing the score with a cosine threshold merges strangers."""
    return 2.0 * normalised_similarity - 1.0


class RetrievalResult(_GraphValue):
    """Candidates by similarity descending, plus their one-hop neighbourhood (spec §3.4 step 3):
    active neighbours that are not candidates themselves, and every edge that touches a candidate.
    """

    candidates: tuple[RetrievedMemory, ...]
    neighbours: tuple[Node, ...]
    edges: tuple[Edge, ...]
    # The user's decay clock, read in the same statement: effective weights need it (spec
    # §3.8.1). None when the store had nothing to return it with (no candidates).
    timeline: ActivityTimeline | None = None
    # The query's similarity over (a sample of) the user's memories, read in the same
    # statement: whether a faded candidate is recognised depends on it (domain.recognition).
    spread: SimilaritySpread | None = None


class HypothesisRecord(_GraphValue):
    """A hypothesis node and its lifecycle data, stored together."""

    node: Node
    hypothesis: Hypothesis

    @model_validator(mode="after")
    def _same_node(self) -> Self:
        if self.node.type is not NodeType.HYPOTHESIS or self.node.id != self.hypothesis.node_id:
            raise ValueError("a hypothesis record needs a hypothesis node with the same id")
        return self


class Reinforcement(_GraphValue):
    """The outcome of `domain.decay.reinforce_node`, written back. `source_ids` (the messages that
    mentioned the memory) join the node's sources. `expected_weight_at` is the weight_at the
    caller read; a node changed since is not overwritten (optimistic concurrency)."""

    node_id: MemoryId
    weight: Annotated[float, Field(ge=0.0, le=1.0)]
    weight_at: AwareDatetime
    last_reinforced_at: AwareDatetime
    expires_at: AwareDatetime | None
    tally: ReinforcementTally
    source_ids: Annotated[tuple[MemoryId, ...], Field(max_length=MAX_BATCH_IDS)] = ()
    expected_weight_at: AwareDatetime | None = None
    # The belief after the restatement's evidence (domain.permanence.with_evidence), written
    # whole; None leaves the stored belief as it is.
    belief: Belief | None = None


class Contradiction(_GraphValue):
    """A contradicts edge together with the tension that keeps it open (epistemic article)."""

    edge: Edge
    tension: Tension

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.edge.type is not EdgeType.CONTRADICTS:
            raise ValueError("a contradiction is written as a contradicts edge")
        if {self.edge.source_id, self.edge.target_id} != {self.tension.node_a, self.tension.node_b}:
            raise ValueError("the tension must join the two nodes of the contradicts edge")
        return self


class CompactionOutcome(_GraphValue):
    edges_deleted: int
    nodes_merged: int
    edges_rewritten: int
    nodes_deleted: int


class GraphSnapshot(_GraphValue):
    """A user's whole graph, as exported for the warm and cold tiers."""

    format_version: int = 1
    user_id: MemoryId
    exported_at: AwareDatetime
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    hypotheses: tuple[Hypothesis, ...]
    tensions: tuple[Tension, ...]
    # Memories other than hypotheses that the user marked wrong (status refuted: out of every
    # context). They have no lifecycle record, so their status travels here; the manifest
    # carries it (an archive written before has none: it could not be written, see
    # docs/decisions.md).
    refuted_ids: tuple[MemoryId, ...] = ()


class TopicSelector(_GraphValue):
    """What to forget: memories whose content contains `text` (case-insensitive), and/or the
    memories with the given ids."""

    text: Content | None = None
    node_ids: Annotated[tuple[MemoryId, ...], Field(max_length=MAX_BATCH_IDS)] = ()

    @model_validator(mode="after")
    def _something(self) -> Self:
        if self.text is None and not self.node_ids:
            raise ValueError("a topic needs a text or node ids")
        return self


class ForgottenMemory(_GraphValue):
    id: MemoryId
    type: NodeType
    # The words, where the reader may see them: a dry run's preview and the API's answer. The
    # forget workflow's steps report ids and types only (issue 37: what a user asked to forget
    # stays out of Temporal's history); None for a memory the API's look before the forget
    # did not see (one stored while it ran).
    content: str | None = None


class ForgetReport(_GraphValue):
    """What a forget removed or, on a dry run, would remove."""

    dry_run: bool
    memories: tuple[ForgottenMemory, ...]
    edges: int
    # Sleep-phase results (patterns, scheduled triggers, open-loop questions) about the topic.
    derived: int = 0


class CauseStep(_GraphValue):
    node: Node
    depth: int


class StoredReview(_GraphValue):
    """A session review as stored (issue 16): `answers` is None until the user answered."""

    review: BeliefReview
    status: str  # open | answered | superseded
    answers: dict[str, ReviewVerdict] | None = None


class ContextPrompts(_GraphValue):
    """What the context asks besides memories: the open session review with its memories (in
    review order; gone ones left out), the sleep's prepared questions whose time has come, and
    an unseen monthly summary."""

    review: BeliefReview | None = None
    review_nodes: tuple[Node, ...] = ()
    questions: tuple[PreparedQuestion, ...] = ()
    # The newest produced monthly summary not yet shown ("YYYY-MM"): the context announces it.
    summary_month: str | None = None


class UserGraphStore(Protocol):
    """One user's graph. Writes are idempotent: a retried call leaves the same graph."""

    @property
    def user_id(self) -> str: ...

    async def upsert(self, nodes: Sequence[Node], edges: Sequence[Edge] = ()) -> None: ...

    async def get_nodes(self, node_ids: Sequence[str]) -> list[Node]: ...

    async def reinforce(self, reinforcement: Reinforcement) -> bool: ...

    async def downweight(self, change: Downweight) -> bool: ...

    async def recent(self, limit: int) -> list[Node]: ...

    async def record_contradiction(self, contradiction: Contradiction) -> None: ...

    async def tensions(self, status: TensionStatus | None = None) -> list[Tension]: ...

    async def tension_records(self, status: TensionStatus | None = None) -> list[TensionRecord]: ...

    async def mark_recalled(self, node_ids: Sequence[str], at: datetime) -> None:
        """Issue 32: a context used these faded memories at `at` (recognition brought them
        back); a later `recalled_at` is kept. Best effort: the next sleep reinforces them."""
        ...

    async def resolve_tension(
        self,
        tension_id: str,
        resolution: TensionResolution,
        now: datetime,
        beliefs: BeliefConfig = DEFAULT_BELIEF,
    ) -> TensionRecord | None: ...

    async def upsert_hypotheses(self, records: Sequence[HypothesisRecord]) -> None: ...

    async def hypotheses(
        self, statuses: Sequence[HypothesisStatus] = ()
    ) -> list[HypothesisRecord]: ...

    async def retrieve(self, query: RetrievalQuery) -> RetrievalResult: ...

    async def causal_chains(
        self, min_length: int = 3, max_length: int = 10, limit: int = 100
    ) -> list[list[Node]]: ...

    async def causes_of(self, node_id: str, max_depth: int = 3) -> list[CauseStep]: ...

    async def followed_within(
        self, node_id: str, window: timedelta, max_depth: int = 5
    ) -> list[Node]: ...

    async def prune_expired(self, now: datetime, fading: FadingConfig) -> list[str]: ...

    async def apply_compaction(self, plan: CompactionPlan) -> CompactionOutcome: ...

    async def export_graph(self, now: datetime) -> GraphSnapshot: ...

    async def import_graph(self, snapshot: GraphSnapshot) -> None: ...

    async def forget_topic(self, topic: TopicSelector, *, dry_run: bool) -> ForgetReport: ...

    async def delete_memory(self, memory_id: str, now: datetime | None = None) -> bool: ...

    async def was_deleted(self, memory_id: str) -> bool: ...

    async def delete_graph(self) -> int: ...

    # --- session reviews (issue 16) ---

    async def context_prompts(
        self,
        now: datetime,
        questions_since: datetime,
        question_limit: int,
        review_since: datetime,
    ) -> ContextPrompts: ...


class GraphStore(Protocol):
    """Hands out stores bound to one (tenant, user) scope."""

    def for_user(self, tenant_id: str, user_id: str) -> UserGraphStore: ...


# --- keys for encryption at rest (SYNX and keys, issue 7) -----------------------------------------
# Every user's graph exports are encrypted with that user's 256-bit data key; data keys are stored
# only wrapped by a key-encryption key (KEK). `selfimprint.adapters.crypto` implements both.

from dataclasses import dataclass, field  # noqa: E402

DATA_KEY_BYTES = 32


@dataclass(frozen=True)
class DataKey:
    """A user's unwrapped data key. Never logged or persisted in the clear (repr hides it)."""

    tenant_id: str
    user_id: str
    version: int
    material: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.material) != DATA_KEY_BYTES:
            raise ValueError(f"a data key has {DATA_KEY_BYTES} bytes")
        if self.version < 1:
            raise ValueError("data key versions start at 1")


@dataclass(frozen=True)
class WrapContext:
    """What a wrapped data key is bound to: unwrapping it under any other context fails."""

    tenant_id: str
    user_id: str
    key_version: int


class KeyEncryptionKey(Protocol):
    """Wraps and unwraps data keys (a local AES key, or a KMS key). `key_id` names the KEK so a
    store knows which one wrapped each record (rotation)."""

    @property
    def key_id(self) -> str: ...

    def wrap(self, data_key: bytes, context: WrapContext) -> bytes: ...

    def unwrap(self, wrapped: bytes, context: WrapContext) -> bytes: ...


class DataKeyStore(Protocol):
    """Where wrapped data keys live. Destroying a key crypto-shreds every copy of the user's
    exports; rotating the KEK rewraps keys without touching the data they encrypt."""

    def get_or_create(self, tenant_id: str, user_id: str) -> DataKey: ...

    def get(self, tenant_id: str, user_id: str) -> DataKey: ...

    def destroy(self, tenant_id: str, user_id: str) -> bool: ...

    def rewrap_all(self, old_kek: KeyEncryptionKey, new_kek: KeyEncryptionKey) -> int: ...


# --- object storage for the warm and cold tiers (issue 7) -----------------------------------------
# An S3-like store of whole objects. Keys are chosen by the caller (see `adapters.s3.ObjectLayout`);
# every call is idempotent, so an activity that repeats one after a crash changes nothing more.

from collections.abc import Iterator, Mapping  # noqa: E402
from typing import IO  # noqa: E402


class ObjectNotFoundError(LookupError):
    """The object (or bucket) does not exist."""


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    storage_class: str
    metadata: Mapping[str, str]
    version_id: str | None = None


@dataclass(frozen=True)
class ObjectVersion:
    key: str
    version_id: str | None  # None: the bucket does not version objects
    is_delete_marker: bool = False


class ObjectStore(Protocol):
    def put(
        self, key: str, body: IO[bytes], *, storage_class: str, metadata: Mapping[str, str]
    ) -> StoredObject:
        """Upload (multipart when large) and return what is stored; replaces the key's object."""
        ...

    def get(self, key: str) -> Iterator[bytes]:
        """The object's bytes as a stream of blocks; raises ObjectNotFoundError."""
        ...

    def head(self, key: str) -> StoredObject | None: ...

    def list_versions(self, prefix: str) -> list[ObjectVersion]:
        """Every version and delete marker under `prefix` (plain objects if unversioned)."""
        ...

    def delete_versions(self, versions: Sequence[ObjectVersion]) -> int: ...

    def delete_prefix(self, prefix: str) -> int:
        """Delete every version of every object under `prefix` (which must end with '/')."""
        ...

    def delete_key(self, key: str) -> int:
        """Delete every version of exactly this key."""
        ...

    def copy(self, source_key: str, target_key: str, *, storage_class: str) -> StoredObject:
        """Server-side copy, keeping the metadata, into `storage_class`."""
        ...


# --- CollectiveImprint (spec §3.7) -----------------------------------------------------------
# Shared per tenant, never per user: patterns are keyed by enumerated features and counted by
# keyed pseudonyms (domain.collective_patterns, domain.collective); no user id or text is stored.


@dataclass(frozen=True)
class PatternTally:
    """A pattern's state after a contribution: its distinct pseudonyms (empty once graduated)."""

    contributors: tuple[str, ...]
    graduated: bool


class CollectiveStore(Protocol):
    async def contribute(self, tenant: str, pattern_key: str, pseudonym: str) -> PatternTally:
        """Count `pseudonym` once for the pattern (idempotent); a graduated pattern is kept."""
        ...

    async def graduate(self, tenant: str, pattern_key: str, k: int) -> None:
        """Mark the pattern active and drop its pseudonyms (only the count is kept)."""
        ...

    async def graduated(self, tenant: str, pattern_keys: Sequence[str]) -> frozenset[str]:
        """Which of these patterns have graduated (one indexed lookup)."""
        ...

    async def active_users(self, tenant: str, since: datetime) -> int:
        """The tenant's users with activity since `since` (the k formula's population)."""
        ...

    async def pending(self, tenant: str) -> frozenset[str]:
        """The keys of the tenant's patterns not yet graduated (those still holding pseudonyms)."""
        ...

    async def withdraw(self, tenant: str, pseudonyms: Mapping[str, str]) -> int:
        """Erasure: remove each pattern key's given pseudonym from the tenant's patterns not yet
        graduated (a graduated one holds only a count: left alone). Idempotent; returns how many
        patterns lost a contributor."""
        ...


# --- monthly summaries (spec §3.5, §4; issue 16) --------------------------------------------------
# One `:MonthlySummary` per (tenant, user) and month, written by the monthly schedule's workflow;
# `seen_at` is when the API last handed it out (the context tells the assistant about an unseen
# one). `selfimprint.adapters.neo4j.summaries` implements the store.


class StoredSummary(_GraphValue):
    summary: MonthlySummary
    seen_at: AwareDatetime | None = None


# --- read your writes (issue 36) ------------------------------------------------------------------
# What the API says about one user's messages that extraction has not reached yet: how many and
# since when (every answer about the user), and for a context that names the caller's last
# message, the newest of them verbatim. One statement on the message log per request, bound to
# the user's scope like every message-log read. `selfimprint.adapters.neo4j.message_log`
# implements it.

from selfimprint.domain.pending_messages import ExtractionBacklog, PendingMessage  # noqa: E402


class PendingRead(_GraphValue):
    backlog: ExtractionBacklog
    # The newest pending messages of role user (newest first), each text read up to the limit
    # asked for (`clipped` when longer).
    newest: tuple[PendingMessage, ...] = ()
    # Whether the message named by the request is this user's (None: none was named).
    named_found: bool | None = None


class MessageBacklogReader(Protocol):
    """One user's message log, as the read path sees it."""

    async def backlog(self) -> ExtractionBacklog:
        """How many of the user's messages wait for extraction, and the oldest one's sent_at."""
        ...

    async def pending_read(
        self, *, named: str | None = None, newest: int = 0, max_chars: int = 0
    ) -> PendingRead:
        """The backlog, with the `newest` pending user messages (texts cut at `max_chars`) and
        whether the message id `named` is the user's, in one statement."""
        ...

"""The memory graph's vocabulary: nodes of six types, edges of five types, hypotheses, tensions.

Field names follow DESIGN.md §4; the graph store persists them one to one.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

# Limits on what the extraction step may store (spec §3.2: memories are short statements, not
# transcripts). Oversized content is rejected before any adapter sees it.
MAX_CONTENT_CHARS = 2_000
MAX_ID_CHARS = 128
MAX_SOURCES = 1_000
# Evidence ids kept per belief stream and direction (domain.belief); the oldest drop out first.
MAX_EVIDENCE_IDS = 32
MAX_MODEL_NAME_CHARS = 200
MAX_CONTEXT_TERMS = 64  # as domain.terms.MAX_TERMS

_ID_PATTERN = r"^[A-Za-z0-9_.:\-]+$"
# Characters kept verbatim by safe_id; ':' is the escape marker, so it is escaped itself.
_ID_VERBATIM = re.compile(r"[A-Za-z0-9_.\-]")
# Never produced by escaping (an escape ':' is always followed by two hex digits), so a hashed id
# cannot collide with an escaped one.
_HASHED_ID_PREFIX = "sha256::"


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("timestamps must be timezone-aware")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("content must not be blank")
    return value


AwareDatetime = Annotated[datetime, AfterValidator(_aware)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
MemoryId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, pattern=_ID_PATTERN)]
Content = Annotated[
    str, Field(min_length=1, max_length=MAX_CONTENT_CHARS), AfterValidator(_not_blank)
]


def safe_id(raw: str) -> str:
    """Map any string (an e-mail, a tenant name, a Cyrillic handle) to a valid, distinct MemoryId.

    Allowed characters pass through; every other character, and ':' itself, becomes ':' plus the
    lowercase hex of its UTF-8 bytes, so distinct inputs stay distinct. Results longer than
    MAX_ID_CHARS fall back to a SHA-256 digest behind a prefix that escaping never produces.
    """
    if not raw:
        raise ValueError("an id needs at least one character")
    escaped = "".join(
        char if _ID_VERBATIM.fullmatch(char) else "".join(f":{b:02x}" for b in char.encode())
        for char in raw
    )
    if len(escaped) <= MAX_ID_CHARS:
        return escaped
    return _HASHED_ID_PREFIX + hashlib.sha256(raw.encode()).hexdigest()


class NodeType(StrEnum):
    FACT = "fact"
    EVENT = "event"
    EMOTIONAL_NOTE = "emotional_note"
    PERSON = "person"
    OPEN_LOOP = "open_loop"
    HYPOTHESIS = "hypothesis"


class Valence(StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"


class EdgeType(StrEnum):
    CAUSED_BY = "caused_by"
    FOLLOWED_BY = "followed_by"
    REINFORCES = "reinforces"
    CONTRADICTS = "contradicts"
    ASSOCIATED_WITH = "associated_with"


class Permanence(StrEnum):
    """Epistemic article: how long a belief is expected to hold without fresh evidence."""

    STABLE = "stable"
    DURABLE = "durable"
    SITUATIONAL = "situational"


class EvidenceKind(StrEnum):
    """Epistemic article: observed behaviour and self-report are separate evidence streams."""

    OBSERVED = "observed"
    SELF_REPORT = "self_report"
    INTERPRETATION = "interpretation"


class HypothesisStatus(StrEnum):
    ACTIVE = "active"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    ARCHIVED_UNRESOLVED = "archived_unresolved"
    ARCHIVED_STUCK = "archived_stuck"


class TensionStatus(StrEnum):
    UNRESOLVED = "unresolved"
    RESOLVED = "resolved"


class TensionKind(StrEnum):
    """What a tension records (the epistemic-memory article, components 5 and 6)."""

    # Two of the user's statements contradict each other: `a` the newer, `b` the older.
    CONTRADICTION = "contradiction"
    # What the user answered about a memory (self-report: a session review's confirm or wrong)
    # points against what their own messages showed (observed): `a` the memory, `b` the answer
    # (its evidence id: not a memory; `b_said` says what was answered).
    DIVERGENCE = "divergence"


class TensionKeep(StrEnum):
    """Which side of a tension the user kept: `a` is the newer statement, `b` the older."""

    A = "a"
    B = "b"
    BOTH = "both"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


EvidenceIds = Annotated[tuple[MemoryId, ...], Field(max_length=MAX_EVIDENCE_IDS)]


class Belief(_Strict):
    """Belief metadata carried by every node (the epistemic-memory article)."""

    confidence: Unit = 0.5
    permanence: Permanence = Permanence.DURABLE
    first_seen: AwareDatetime
    confirmed_at: AwareDatetime | None = None
    challenged_at: AwareDatetime | None = None
    evidence_kind: EvidenceKind = EvidenceKind.SELF_REPORT
    # When `confidence` was last set; dormancy decay (domain.belief) runs from here, the way node
    # decay runs from `weight_at`. None: the latest of first_seen / confirmed_at / challenged_at.
    confidence_at: AwareDatetime | None = None
    # The evidence that moved `confidence`, by stream and direction (article, component 6), as
    # message or memory ids, newest last: counts derive from them and a replay is a no-op.
    observed_for: EvidenceIds = ()
    observed_against: EvidenceIds = ()
    self_report_for: EvidenceIds = ()
    self_report_against: EvidenceIds = ()

    @property
    def evidenced(self) -> bool:
        """Some evidence has moved this belief (what the retrieval factor needs: an untouched
        memory scores exactly as without it)."""
        return bool(
            self.observed_for
            or self.observed_against
            or self.self_report_for
            or self.self_report_against
        )

    def evidence_anchor(self) -> datetime:
        """The moment the stored confidence refers to."""
        if self.confidence_at is not None:
            return self.confidence_at
        return max(t for t in (self.first_seen, self.confirmed_at, self.challenged_at) if t)


class Node(_Strict):
    id: MemoryId
    user_id: MemoryId
    type: NodeType
    content: Content
    valence: Valence | None = None
    importance: Unit = 0.5
    weight: Unit = 1.0
    weight_at: AwareDatetime
    created_at: AwareDatetime
    last_reinforced_at: AwareDatetime | None = None
    is_inference: bool = False
    is_pinned: bool = False
    decay_coefficient: Annotated[float, Field(gt=0.0, le=1.0)] = 0.92
    significant: bool = False
    expires_at: AwareDatetime | None = None
    # Issue 33, what is true now: when the user's own later statement ended what this memory
    # says (a contradiction: "I quit", "not any more"), the moment that statement was said. The
    # memory is kept as history and shown as past ("until ..."), never as current; None = no
    # later statement ended it. Resolving the tension in its favour makes it current again.
    valid_until: AwareDatetime | None = None
    # Issue 32, recall reinforces: when a context last used this memory while it was faded
    # (recognition brought it back). The next sleep reinforces it as a re-mention would, once
    # per recall (`sleep_planning.plan_recalibration`); None: never recalled so.
    recalled_at: AwareDatetime | None = None
    sources: Annotated[tuple[MemoryId, ...], Field(max_length=MAX_SOURCES)] = ()
    belief: Belief
    embedding: Annotated[tuple[float, ...], Field(min_length=1)] | None = None
    embedding_model: Annotated[str, Field(min_length=1, max_length=MAX_MODEL_NAME_CHARS)] | None = (
        None
    )
    # How the memory reads in its reply context (domain.reply_context): the vector of the
    # message it answered and its content together (same model as `embedding`), and that
    # message's search terms. Retrieval metadata only: never shown, never compared for sameness.
    context_embedding: Annotated[tuple[float, ...], Field(min_length=1)] | None = None
    context_terms: Annotated[tuple[str, ...], Field(max_length=MAX_CONTEXT_TERMS)] = ()

    @model_validator(mode="after")
    def _check_type_rules(self) -> Self:
        if self.type is NodeType.EMOTIONAL_NOTE and self.valence is None:
            raise ValueError("an emotional_note needs a valence (positive|negative)")
        if self.type is not NodeType.EMOTIONAL_NOTE and self.valence is not None:
            raise ValueError("only emotional_note nodes carry a valence")
        # Spec §3.2: a hypothesis is produced by the sleep phase and always carries is_inference.
        if self.type is NodeType.HYPOTHESIS and not self.is_inference:
            raise ValueError("a hypothesis node must have is_inference=True")
        if (self.embedding is None) != (self.embedding_model is None):
            raise ValueError("embedding and embedding_model go together")
        # One C-level sum instead of a check per value (3.8M of them in a 10k-node graph): NaN
        # and infinities propagate into it; so does overflow, which only absurd values reach.
        if self.embedding is not None and not math.isfinite(sum(self.embedding)):
            raise ValueError("embedding values must be finite")
        if self.context_embedding is not None and (
            self.embedding is None
            or len(self.context_embedding) != len(self.embedding)
            or not math.isfinite(sum(self.context_embedding))
        ):
            raise ValueError("a context_embedding needs an embedding of the same size, finite")
        return self

    @model_validator(mode="after")
    def _check_chronology(self) -> Self:
        # Lazy decay runs from weight_at; a weight older than its node would decay time that the
        # node did not exist.
        if self.weight_at < self.created_at:
            raise ValueError("weight_at must not precede created_at")
        if self.last_reinforced_at is not None and self.last_reinforced_at < self.created_at:
            raise ValueError("last_reinforced_at must not precede created_at")
        return self


class Edge(_Strict):
    source_id: MemoryId
    target_id: MemoryId
    type: EdgeType
    confidence: Unit = 1.0
    is_inferred: bool = False
    created_at: AwareDatetime
    last_reinforced_at: AwareDatetime | None = None

    @model_validator(mode="after")
    def _no_self_loop(self) -> Self:
        if self.source_id == self.target_id:
            raise ValueError("an edge needs two distinct nodes")
        return self


class Hypothesis(_Strict):
    """A hypothesis node's lifecycle data (spec §3.5.2); the node itself has type hypothesis."""

    node_id: MemoryId
    status: HypothesisStatus = HypothesisStatus.ACTIVE
    supporting: tuple[MemoryId, ...] = ()
    contradicting: tuple[MemoryId, ...] = ()
    reinforcements: Annotated[int, Field(ge=0)] = 0
    created_at: AwareDatetime
    deadline: AwareDatetime
    last_surfaced_at: AwareDatetime | None = None
    high_bar: bool = False
    # Issue 33: the supporting observations only the model read as support (the stance rule
    # did not). While the reality anchor finds the hypothesis stale they do not confirm it
    # (domain.hypotheses). Only ids still in `supporting` count: a path that strips or merges
    # evidence and misses this list cannot make model support count as more.
    model_supported: tuple[MemoryId, ...] = ()

    @model_validator(mode="after")
    def _check_evidence_and_deadline(self) -> Self:
        if self.deadline <= self.created_at:
            raise ValueError("a hypothesis deadline must come after its creation")
        if set(self.supporting) & set(self.contradicting):
            raise ValueError("one observation cannot both support and contradict a hypothesis")
        return self


class Tension(_Strict):
    """A contradiction kept open: the article logs tensions unresolved by default."""

    id: MemoryId
    node_a: MemoryId
    node_b: MemoryId
    detected_at: AwareDatetime
    status: TensionStatus = TensionStatus.UNRESOLVED
    note: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] = ""
    # How the user resolved it through the API (domain.tensions): part of the tension, so that
    # it travels with it through warm / cold archives and a retried resolution is still known.
    resolved_keep: TensionKeep | None = None
    resolved_at: AwareDatetime | None = None
    # Issue 33: both sides' words as they were when the tension was found. The log keeps them,
    # so a side that decay and the sweeper remove does not take the tension with it (the
    # user's own deletion still does: ports.GraphStore's forgetting paths). Empty on tensions
    # stored before the snapshot existed: those still go with their sides.
    a_said: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] = ""
    b_said: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] = ""
    kind: TensionKind = TensionKind.CONTRADICTION

    @property
    def keeps_its_words(self) -> bool:
        """The tension can be shown without its memories: it outlives their decay."""
        return bool(self.a_said and self.b_said)

    def sides(self, contents: Mapping[str, str]) -> tuple[str | None, str | None]:
        """What each side says: the memory's content while it is there (a correction may have
        reworded it), else the words the tension kept; None when neither is known."""
        return (
            contents.get(self.node_a) or self.a_said or None,
            contents.get(self.node_b) or self.b_said or None,
        )

    @model_validator(mode="after")
    def _two_sides(self) -> Self:
        if self.node_a == self.node_b:
            raise ValueError("a tension needs two distinct nodes")
        if (self.resolved_keep is None) != (self.resolved_at is None):
            raise ValueError("a tension's resolution needs both what was kept and when")
        return self

"""From an extraction to a write plan (DESIGN.md §5 write path; spec §3.2, §3.3, §3.9, §4, §6).

The extractor LLM proposes candidate memories and links for a batch of messages (the shape is
`Extraction`; `selfimprint.prompts.extraction` asks for it). `plan_ingestion` decides, without any
I/O, what the graph store must write:

- a candidate that restates an existing memory of the user (same type and valence, and the
  restatement test of `selfimprint.domain.restatement`, which compaction's dedupe shares)
  reinforces it (spec §3.3, rate-limited per §6) instead of creating a twin; its message ids join
  the memory's sources, so a memory cites only messages that said what it says;
- every other candidate becomes a node with a deterministic id, so a retried extraction of the same
  messages writes the same nodes;
- links among candidates and to recent memories become edges; links to anything unknown, self
  loops and duplicates are dropped;
- a contradiction becomes a `contradicts` edge and an unresolved tension, and the older memory
  loses weight (spec §6);
- candidates the inference policy forbids (spec §4.1) or that cannot form a valid node are rejected
  with a reason.

Every node, new or reinforced, keeps the ids of the messages it came from.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Final

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from selfimprint.domain.decay import (
    DEFAULT_DECAY,
    ActivityTimeline,
    DecayConfig,
    ReinforcementResult,
    ReinforcementTally,
    coefficient_for,
    expires_at,
    is_significant_event,
    node_coefficient,
    node_effective_weight,
    reinforce_node,
)
from selfimprint.domain.grounding import DEFAULT_GROUNDING, GroundingConfig, ground, support
from selfimprint.domain.inference_policy import InferencePolicyConfig, PolicyClass, classify
from selfimprint.domain.messages import Message
from selfimprint.domain.models import (
    MAX_CONTENT_CHARS,
    MAX_ID_CHARS,
    MAX_SOURCES,
    AwareDatetime,
    Belief,
    Edge,
    EdgeType,
    EvidenceKind,
    MemoryId,
    Node,
    NodeType,
    Permanence,
    Tension,
    Unit,
    Valence,
)
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig, restates

# --- what the extractor may propose --------------------------------------------------------------
# Limits double as the json_schema's maxLength / maxItems: they bound what a constrained decoder
# may generate for one batch (project choice, sized for a batch of a few chat turns).
MAX_REF_CHARS: Final = 16
MAX_CANDIDATE_CHARS: Final = 400
# Per batch of a few messages. An LLM answer is held to fewer (MAX_LLM_CANDIDATES bounds a weak
# model's output); verbatim extraction splits long messages (4 messages x 16 pieces).
MAX_CANDIDATES: Final = 64
MAX_LLM_CANDIDATES: Final = 6
MAX_EXTRACTED_EDGES: Final = 8
MAX_CANDIDATE_SOURCES: Final = 20
MAX_MENTIONS: Final = 5
MAX_NAME_CHARS: Final = 80
ISO_DATE_CHARS: Final = 10


class CandidateType(StrEnum):
    """Node types extraction may create: every type but hypothesis, which only the sleep phase
    forms (spec §3.2)."""

    FACT = "fact"
    EVENT = "event"
    EMOTIONAL_NOTE = "emotional_note"
    PERSON = "person"
    OPEN_LOOP = "open_loop"


class CandidateEvidence(StrEnum):
    """Evidence streams a message can give (epistemic article, component 6). Interpretation is
    not offered: extraction records what the user said or did, not what it means."""

    OBSERVED = "observed"
    SELF_REPORT = "self_report"


def _clamp_unit(value: object) -> object:
    # A small model's 1.2 or -0.1 should not fail a whole batch; a non-number still fails.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(max(float(value), 0.0), 1.0) if math.isfinite(value) else 0.5
    return value


LenientUnit = Annotated[
    float,
    BeforeValidator(_clamp_unit),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1}),
]
Ref = Annotated[str, Field(min_length=1, max_length=MAX_REF_CHARS)]
# An edge end is a candidate ref or the id of a recent memory.
RefOrId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExtractedMemory(_Value):
    ref: Ref
    type: CandidateType
    content: Annotated[str, Field(min_length=1, max_length=MAX_CANDIDATE_CHARS)]
    importance: LenientUnit
    valence: Valence | None
    dates_mentioned: Annotated[
        tuple[Annotated[str, Field(max_length=ISO_DATE_CHARS)], ...],
        Field(max_length=MAX_MENTIONS),
    ]
    people: Annotated[
        tuple[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)], ...],
        Field(max_length=MAX_MENTIONS),
    ]
    evidence_kind: CandidateEvidence
    source_message_ids: Annotated[tuple[RefOrId, ...], Field(max_length=MAX_CANDIDATE_SOURCES)]
    contradicts_memory_ids: Annotated[tuple[RefOrId, ...], Field(max_length=MAX_MENTIONS)]


class ExtractedEdge(_Value):
    source_ref: RefOrId
    target_ref: RefOrId
    type: EdgeType


class Extraction(_Value):
    """What the extractor proposes for one batch of messages."""

    candidates: Annotated[tuple[ExtractedMemory, ...], Field(max_length=MAX_CANDIDATES)]
    edges: Annotated[tuple[ExtractedEdge, ...], Field(max_length=MAX_EXTRACTED_EDGES)]


class RecentMemory(_Value):
    """A memory shown to the extractor so that it can link to it or flag a contradiction."""

    id: MemoryId
    type: NodeType
    content: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]

    @classmethod
    def from_node(cls, node: Node) -> RecentMemory:
        return cls(id=node.id, type=node.type, content=node.content)


# --- configuration -----------------------------------------------------------------------------


def _default_permanence() -> dict[CandidateType, Permanence]:
    # Project choice (the article defines the classes, not a mapping from node types): what the
    # user is (facts) and who is in their life (people) hold for about a year; events, feelings
    # and unresolved topics describe the current month.
    return {
        CandidateType.FACT: Permanence.DURABLE,
        CandidateType.PERSON: Permanence.DURABLE,
        CandidateType.EVENT: Permanence.SITUATIONAL,
        CandidateType.EMOTIONAL_NOTE: Permanence.SITUATIONAL,
        CandidateType.OPEN_LOOP: Permanence.SITUATIONAL,
    }


class IngestionConfig(_Value):
    # Spec §3.3 / §3.9: a candidate that restates a memory of the same type and valence
    # reinforces it. Cosine alone is not sameness (docs/benchmarks-locomo.md): see
    # selfimprint.domain.restatement, whose test compaction's dedupe shares.
    restatement: RestatementConfig = DEFAULT_RESTATEMENT
    # Every candidate, from any extractor, must cite user messages of its batch that support
    # it (domain.grounding; tuned by scripts/eval_grounding.py).
    grounding: GroundingConfig = DEFAULT_GROUNDING
    # Spec §6 says the older side of a contradiction is down-weighted, not by how much: project
    # choice, halve its effective weight once per batch.
    contradiction_downweight: Annotated[float, Field(gt=0.0, le=1.0)] = 0.5
    # Project choice: a memory is one short sentence (spec §3.2 atomic nodes); longer content is
    # trimmed at a word boundary (or rejected when `trim_overlong` is off).
    max_content_chars: Annotated[int, Field(ge=20, le=MAX_CONTENT_CHARS)] = 300
    trim_overlong: bool = True
    # Project choice, following the article (component 2, confidence must be earned by observed
    # behaviour; self-report is a weaker stream, domain.belief caps it at 0.6).
    observed_confidence: Unit = 0.6
    self_report_confidence: Unit = 0.5
    # Spec §3.4 / DESIGN §4: extracted links are observed, confidence 0.9-1.0 (spec §3.9).
    extracted_edge_confidence: Unit = 1.0
    # Spec §4.1 exempts what "the user has stated directly": self-reports in never-infer
    # categories are kept unless this is switched on; observations in them are always rejected.
    reject_never_infer_self_reports: bool = False
    # Project choice: the article's permanence classes per node type (see _default_permanence).
    permanence: Mapping[CandidateType, Permanence] = Field(default_factory=_default_permanence)
    # Project choice: a person named in a candidate is linked to it (associated_with) when a
    # person memory of the batch or of the recent memories mentions that name.
    link_people: bool = True
    # The decay and inference-policy rules (numbers cited in their own models).
    decay: DecayConfig = DEFAULT_DECAY
    inference_policy: InferencePolicyConfig = InferencePolicyConfig()


DEFAULT_INGESTION = IngestionConfig()


# --- the plan ----------------------------------------------------------------------------------


class RejectionReason(StrEnum):
    INFERENCE_POLICY = "inference_policy"
    DUPLICATE_REF = "duplicate_ref"
    REF_IS_MEMORY_ID = "ref_is_memory_id"
    BLANK_CONTENT = "blank_content"
    CONTENT_TOO_LONG = "content_too_long"
    MISSING_VALENCE = "missing_valence"
    # Not supported by the user's own words in the messages it cites (domain.grounding).
    UNGROUNDED = "ungrounded"


class Rejection(_Value):
    ref: str
    content: str
    reason: RejectionReason
    detail: str


class EdgeDropReason(StrEnum):
    UNKNOWN_REF = "unknown_ref"
    SELF_LOOP = "self_loop"


class DroppedEdge(_Value):
    source_ref: str
    target_ref: str
    type: EdgeType
    reason: EdgeDropReason


class MemoryReinforcement(_Value):
    """An existing memory mentioned again. `node` is the memory after reinforcement (unchanged
    weight when rate-limited, spec §6) with `added_sources` joined to its sources; the store
    writes it only if the stored `weight_at` still equals `expected_weight_at`."""

    node: Node
    result: ReinforcementResult
    added_sources: tuple[MemoryId, ...]
    expected_weight_at: AwareDatetime


class Downweight(_Value):
    """The older side of a contradiction loses weight (spec §6). Applied after reinforcements."""

    node_id: MemoryId
    weight: Unit
    weight_at: AwareDatetime
    expires_at: AwareDatetime | None
    expected_weight_at: AwareDatetime


class PlannedContradiction(_Value):
    edge: Edge
    tension: Tension


class NodeMentions(_Value):
    """Dates and names the extractor saw in a new memory; the Node model has no field for them."""

    node_id: MemoryId
    dates: tuple[date, ...]
    people: tuple[str, ...]


class IngestionPlan(_Value):
    """Everything one batch writes. Apply in this order: nodes, reinforcements, edges,
    contradictions, downweights (a downweight may refer to a memory reinforced just before)."""

    nodes: tuple[Node, ...] = ()
    reinforcements: tuple[MemoryReinforcement, ...] = ()
    edges: tuple[Edge, ...] = ()
    contradictions: tuple[PlannedContradiction, ...] = ()
    downweights: tuple[Downweight, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    dropped_edges: tuple[DroppedEdge, ...] = ()
    trimmed_refs: tuple[str, ...] = ()
    mentions: tuple[NodeMentions, ...] = ()
    # Where each accepted candidate ref ended up: a new node or the memory it reinforced.
    resolved_refs: Mapping[str, MemoryId] = Field(default_factory=dict)


# --- rules -------------------------------------------------------------------------------------


def normalise_content(content: str) -> str:
    """What "the same content" means for ids: NFKC, case and whitespace folded, end punctuation
    dropped."""
    folded = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    return folded.rstrip(".!?…。 ")


def _digest(*parts: str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\x00")
    return hasher.hexdigest()[:32]


def memory_id(user_id: str, sources: Sequence[str], node_type: str, content: str) -> str:
    """Deterministic node id: the same user, messages, type and content give the same id."""
    return "m-" + _digest(user_id, *sorted(sources), node_type, normalise_content(content))


def tension_id(user_id: str, node_a: str, node_b: str) -> str:
    return "t-" + _digest(user_id, *sorted((node_a, node_b)))


def trim_content(content: str, limit: int) -> str:
    """Cut at the last word boundary that fits, marking the cut with an ellipsis."""
    if len(content) <= limit:
        return content
    cut = content[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def _valid_dates(values: Sequence[str]) -> tuple[date, ...]:
    dates: list[date] = []
    for value in values:
        try:
            parsed = date.fromisoformat(value.strip())
        except ValueError:
            continue
        if parsed not in dates:
            dates.append(parsed)
    return tuple(dates)


def _is_duplicate_of(
    candidate: ExtractedMemory,
    content: str,
    node: Node,
    cosine: float,
    user_id: str,
    config: IngestionConfig,
) -> bool:
    # Valence matters: "glad about the offer" and "upset about the offer" embed close together.
    return (
        node.user_id == user_id
        and node.type.value == candidate.type.value
        and node.valence == candidate.valence
        and restates(
            node.content,
            content,
            cosine,
            embedding_model=node.embedding_model,
            config=config.restatement,
        )
    )


def _find_duplicate(
    candidate: ExtractedMemory,
    content: str,
    nearest: Sequence[tuple[Node, float]],
    user_id: str,
    config: IngestionConfig,
) -> Node | None:
    matches = [
        (similarity, node)
        for node, similarity in nearest
        if _is_duplicate_of(candidate, content, node, similarity, user_id, config)
    ]
    if not matches:
        return None
    return min(matches, key=lambda pair: (-pair[0], pair[1].id))[1]


def _join_sources(existing: Sequence[str], added: Sequence[str]) -> tuple[str, ...]:
    joined = (*existing, *(s for s in added if s not in existing))
    # Keep the newest evidence when the cap is reached; the oldest ids drop out first.
    return joined[-MAX_SOURCES:]


class _Planner:
    """Accumulates one plan; `plan_ingestion` is its only user."""

    def __init__(
        self,
        *,
        user_id: str,
        messages: Sequence[Message],
        recent: Sequence[Node],
        now: datetime,
        tallies: Mapping[str, ReinforcementTally],
        timeline: ActivityTimeline | None,
        config: IngestionConfig,
    ) -> None:
        self.user_id = user_id
        self.messages = messages
        self.now = now
        self.tallies = tallies
        self.timeline = timeline
        self.config = config
        # Tenant scope: a memory of another user is never linked, reinforced or down-weighted.
        self.recent = {n.id: n for n in recent if n.user_id == user_id}
        self.resolved: dict[str, str] = {}
        self.candidates: dict[str, ExtractedMemory] = {}
        self.new_nodes: dict[str, Node] = {}
        self.reinforced: dict[str, Node] = {}
        self.reinforced_sources: dict[str, list[str]] = {}
        self.sent_at = {m.id: m.sent_at for m in messages}
        self.rejected: list[Rejection] = []
        # The user messages of the batch each accepted candidate cites (its grounding).
        self.sources: dict[str, tuple[str, ...]] = {}
        self.trimmed: list[str] = []
        self.mentions: list[NodeMentions] = []
        self.edges: dict[tuple[str, str, EdgeType], Edge] = {}
        self.dropped: list[DroppedEdge] = []
        self.contradiction_pairs: list[tuple[str, str]] = []

    def said_at(self, sources: Sequence[str]) -> datetime:
        """When the user said it: the latest of its messages' sent_at, never after `now` (a
        client clock ahead of ours). A backfilled conversation keeps its own times, so recency,
        decay and the time-of-day patterns see when things were said, not when they arrived."""
        sent = [self.sent_at[s] for s in sources if s in self.sent_at]
        return min(max(sent), self.now) if sent else self.now

    # candidates ---------------------------------------------------------------------------

    def reject(self, candidate: ExtractedMemory, reason: RejectionReason, detail: str) -> None:
        self.rejected.append(
            Rejection(ref=candidate.ref, content=candidate.content, reason=reason, detail=detail)
        )

    def screen(self, candidate: ExtractedMemory) -> str | None:
        """The content to store, or None after recording why the candidate is rejected."""
        if candidate.ref in self.candidates:
            self.reject(candidate, RejectionReason.DUPLICATE_REF, "an earlier candidate has it")
            return None
        if candidate.ref in self.recent:
            self.reject(candidate, RejectionReason.REF_IS_MEMORY_ID, "ambiguous edge ends")
            return None
        content = " ".join(candidate.content.split())
        if not content:
            self.reject(candidate, RejectionReason.BLANK_CONTENT, "nothing to remember")
            return None
        limit = self.config.max_content_chars
        if len(content) > limit:
            if not self.config.trim_overlong:
                self.reject(
                    candidate, RejectionReason.CONTENT_TOO_LONG, f"{len(content)} > {limit}"
                )
                return None
            content = trim_content(content, limit)
            self.trimmed.append(candidate.ref)
        if candidate.type is CandidateType.EMOTIONAL_NOTE and candidate.valence is None:
            self.reject(candidate, RejectionReason.MISSING_VALENCE, "emotional_note needs one")
            return None
        grounding = ground(
            content,
            candidate.source_message_ids,
            self.messages,
            self.config.grounding,
            known=[n.content for n in self.recent.values()],
        )
        if not grounding.holds(self.config.grounding):
            self.reject(
                candidate, RejectionReason.UNGROUNDED, grounding.why_not(self.config.grounding)
            )
            return None
        self.sources[candidate.ref] = grounding.sources
        decision = classify(content, config=self.config.inference_policy)
        if decision.policy_class is PolicyClass.NEVER_INFER and (
            candidate.evidence_kind is CandidateEvidence.OBSERVED
            or self.config.reject_never_infer_self_reports
        ):
            self.reject(candidate, RejectionReason.INFERENCE_POLICY, decision.reason)
            return None
        return content

    def add_candidate(
        self,
        candidate: ExtractedMemory,
        content: str,
        nearest: Sequence[tuple[Node, float]],
        embedding: Sequence[float] | None,
        embedding_model: str | None,
    ) -> None:
        sources = self.sources[candidate.ref]
        self.candidates[candidate.ref] = candidate
        duplicate = _find_duplicate(candidate, content, nearest, self.user_id, self.config)
        if duplicate is not None:
            self.resolved[candidate.ref] = duplicate.id
            self.reinforced.setdefault(duplicate.id, duplicate)
            joined = self.reinforced_sources.setdefault(duplicate.id, [])
            joined.extend(s for s in sources if s not in joined)
            return
        node_id = memory_id(self.user_id, sources, candidate.type.value, content)
        self.resolved[candidate.ref] = node_id
        if node_id in self.new_nodes:
            return  # the same statement from the same messages, proposed twice
        self.new_nodes[node_id] = self.new_node(
            node_id, candidate, content, sources, embedding, embedding_model
        )
        dates = _valid_dates(candidate.dates_mentioned)
        # A name the cited messages never say is the extractor's, not the user's.
        said = [m.text for m in self.messages if m.id in sources]
        people = tuple(
            dict.fromkeys(
                p.strip()
                for p in candidate.people
                if p.strip() and support(p, said, self.config.grounding) == 1.0
            )
        )
        if dates or people:
            self.mentions.append(NodeMentions(node_id=node_id, dates=dates, people=people))

    def new_node(
        self,
        node_id: str,
        candidate: ExtractedMemory,
        content: str,
        sources: tuple[str, ...],
        embedding: Sequence[float] | None,
        embedding_model: str | None,
    ) -> Node:
        node_type = NodeType(candidate.type.value)
        significant = is_significant_event(node_type, candidate.importance, self.config.decay)
        coefficient = coefficient_for(
            node_type, valence=candidate.valence, significant=significant, config=self.config.decay
        )
        observed = candidate.evidence_kind is CandidateEvidence.OBSERVED
        vector = tuple(embedding) if embedding is not None and embedding_model else None
        said = self.said_at(sources)
        return Node(
            id=node_id,
            user_id=self.user_id,
            type=node_type,
            content=content,
            valence=candidate.valence if node_type is NodeType.EMOTIONAL_NOTE else None,
            importance=candidate.importance,
            weight=1.0,
            weight_at=said,
            created_at=said,
            decay_coefficient=coefficient,
            significant=significant,
            expires_at=expires_at(
                1.0, said, coefficient, timeline=self.timeline, config=self.config.decay
            ),
            sources=sources,
            belief=Belief(
                confidence=(
                    self.config.observed_confidence
                    if observed
                    else self.config.self_report_confidence
                ),
                permanence=self.config.permanence[candidate.type],
                first_seen=said,
                evidence_kind=EvidenceKind.OBSERVED if observed else EvidenceKind.SELF_REPORT,
            ),
            embedding=vector,
            embedding_model=embedding_model if vector is not None else None,
        )

    # reinforcement ------------------------------------------------------------------------

    def reinforcements(self) -> tuple[MemoryReinforcement, ...]:
        """One mention per memory and batch, however many candidates repeated it (project
        choice: one batch cannot pump a memory, spec §3.3)."""
        planned = []
        for node_id, stored in self.reinforced.items():
            node, result = reinforce_node(
                stored,
                self.said_at(self.reinforced_sources[node_id]),
                self.tallies.get(node_id),
                timeline=self.timeline,
                config=self.config.decay,
            )
            added = tuple(s for s in self.reinforced_sources[node_id] if s not in stored.sources)
            node = node.model_copy(update={"sources": _join_sources(node.sources, added)})
            self.reinforced[node_id] = node
            planned.append(
                MemoryReinforcement(
                    node=node,
                    result=result,
                    added_sources=added,
                    expected_weight_at=stored.weight_at,
                )
            )
        return tuple(planned)

    # edges --------------------------------------------------------------------------------

    def resolve(self, ref: str) -> str | None:
        if ref in self.resolved:
            return self.resolved[ref]
        return ref if ref in self.recent else None

    def add_edge(self, extracted: ExtractedEdge) -> None:
        source = self.resolve(extracted.source_ref)
        target = self.resolve(extracted.target_ref)
        if source is None or target is None or source == target:
            self.dropped.append(
                DroppedEdge(
                    source_ref=extracted.source_ref,
                    target_ref=extracted.target_ref,
                    type=extracted.type,
                    reason=(
                        EdgeDropReason.SELF_LOOP
                        if source is not None and source == target
                        else EdgeDropReason.UNKNOWN_REF
                    ),
                )
            )
            return
        if extracted.type is EdgeType.CONTRADICTS:
            self.contradiction_pairs.append((source, target))
            return
        self.put_edge(source, target, extracted.type)

    def put_edge(self, source: str, target: str, edge_type: EdgeType) -> None:
        # associated_with has no direction: A~B and B~A are one link.
        if edge_type is EdgeType.ASSOCIATED_WITH and (target, source, edge_type) in self.edges:
            return
        self.edges.setdefault(
            (source, target, edge_type),
            Edge(
                source_id=source,
                target_id=target,
                type=edge_type,
                confidence=self.config.extracted_edge_confidence,
                created_at=self.now,
            ),
        )

    def link_people(self) -> None:
        people = [
            (node_id, normalise_content(node.content))
            for node_id, node in (*self.new_nodes.items(), *self.recent.items())
            if node.type is NodeType.PERSON
        ]
        for ref, candidate in self.candidates.items():
            source = self.resolved[ref]
            for name in candidate.people:
                folded = normalise_content(name)
                # Whole words only: "Anna" is not "Joanna".
                pattern = re.compile(rf"(?<!\w){re.escape(folded)}(?!\w)")
                for person_id, person_text in people:
                    if folded and pattern.search(person_text) and person_id != source:
                        self.put_edge(source, person_id, EdgeType.ASSOCIATED_WITH)

    # contradictions -----------------------------------------------------------------------

    def known_node(self, node_id: str) -> Node:
        return self.new_nodes.get(node_id) or self.reinforced.get(node_id) or self.recent[node_id]

    def contradictions(self) -> tuple[tuple[PlannedContradiction, ...], tuple[Downweight, ...]]:
        planned: dict[frozenset[str], PlannedContradiction] = {}
        downweights: dict[str, Downweight] = {}
        for first, second in self.contradiction_pairs:
            pair = frozenset((first, second))
            if pair in planned:
                continue
            a, b = self.known_node(first), self.known_node(second)
            # The edge points from the newer statement to the one it contradicts.
            newer, older = (a, b) if (b.created_at, b.id) <= (a.created_at, a.id) else (b, a)
            edge = Edge(
                source_id=newer.id,
                target_id=older.id,
                type=EdgeType.CONTRADICTS,
                confidence=self.config.extracted_edge_confidence,
                created_at=self.now,
            )
            tension = Tension(
                id=tension_id(self.user_id, newer.id, older.id),
                node_a=newer.id,
                node_b=older.id,
                detected_at=self.now,
            )
            planned[pair] = PlannedContradiction(edge=edge, tension=tension)
            # Same age: both came from this batch, neither is older. A pinned memory keeps its
            # weight: the user chose it, the tension alone records the doubt (project choice).
            if (
                older.created_at < newer.created_at
                and not older.is_pinned
                and older.id not in self.new_nodes
                and older.id not in downweights
            ):
                downweights[older.id] = self.downweight(older)
        return tuple(planned.values()), tuple(downweights.values())

    def downweight(self, node: Node) -> Downweight:
        at = max(self.now, node.weight_at)
        current = node_effective_weight(node, at, timeline=self.timeline, config=self.config.decay)
        weight = current * self.config.contradiction_downweight
        return Downweight(
            node_id=node.id,
            weight=weight,
            weight_at=at,
            expires_at=expires_at(
                weight,
                at,
                node_coefficient(node, self.config.decay),
                timeline=self.timeline,
                config=self.config.decay,
            ),
            expected_weight_at=node.weight_at,
        )


def plan_ingestion(
    extraction: Extraction,
    messages: Sequence[Message],
    *,
    user_id: str,
    now: datetime,
    embeddings: Mapping[str, Sequence[float]] | None = None,
    embedding_model: str | None = None,
    nearest: Mapping[str, Sequence[tuple[Node, float]]] | None = None,
    recent: Sequence[Node] = (),
    tallies: Mapping[str, ReinforcementTally] | None = None,
    timeline: ActivityTimeline | None = None,
    config: IngestionConfig = DEFAULT_INGESTION,
) -> IngestionPlan:
    """Turn one batch's extraction into what the graph store writes. Pure and deterministic.

    - `messages`: the batch the extraction came from (source ids are checked against it).
    - `embeddings`: candidate ref -> vector of its content, from `embedding_model`.
    - `nearest`: candidate ref -> the user's existing memories nearest to it, with cosine
      similarity (the duplicate check, spec §3.9).
    - `recent`: the memories shown to the extractor; edges and contradictions may point to them.
    - `tallies`: today's reinforcement tallies by memory id (spec §6 rate limit).
    - `timeline`: the user's decay clock, for effective weights (spec §3.8.1).
    """
    if not messages:
        raise ValueError("an extraction plan needs the batch of messages it came from")
    planner = _Planner(
        user_id=user_id,
        messages=messages,
        recent=recent,
        now=now,
        tallies=tallies or {},
        timeline=timeline,
        config=config,
    )
    embeddings = embeddings or {}
    nearest = nearest or {}
    for candidate in extraction.candidates:
        content = planner.screen(candidate)
        if content is not None:
            planner.add_candidate(
                candidate,
                content,
                nearest.get(candidate.ref, ()),
                embeddings.get(candidate.ref),
                embedding_model,
            )
    reinforcements = planner.reinforcements()
    for extracted in extraction.edges:
        planner.add_edge(extracted)
    for ref, candidate in planner.candidates.items():
        for memory in candidate.contradicts_memory_ids:
            planner.add_edge(
                ExtractedEdge(source_ref=ref, target_ref=memory, type=EdgeType.CONTRADICTS)
            )
    if config.link_people:
        planner.link_people()
    contradictions, downweights = planner.contradictions()
    return IngestionPlan(
        nodes=tuple(planner.new_nodes.values()),
        reinforcements=reinforcements,
        edges=tuple(
            sorted(planner.edges.values(), key=lambda e: (e.source_id, e.target_id, e.type))
        ),
        contradictions=contradictions,
        downweights=downweights,
        rejected=tuple(planner.rejected),
        dropped_edges=tuple(planner.dropped),
        trimmed_refs=tuple(planner.trimmed),
        mentions=tuple(planner.mentions),
        resolved_refs=dict(planner.resolved),
    )

"""Which candidates become memories (spec §3.2, §4.1). A candidate is rejected, with a reason,
when its ref is taken, it is blank, too long (unless trimmed), an emotional note without a
valence, not grounded in the user's own words, or forbidden by the inference policy. An
accepted one either reinforces the memory it restates (`reinforcement`) or becomes a new node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from selfimprint.domain.asides import aside_coefficient
from selfimprint.domain.decay import coefficient_for, expires_at, is_significant_event
from selfimprint.domain.grounding import ground, support
from selfimprint.domain.inference_policy import PolicyClass, classify
from selfimprint.domain.ingestion.draft import PlanDraft
from selfimprint.domain.ingestion.extraction import (
    CandidateEvidence,
    CandidateType,
    ExtractedMemory,
)
from selfimprint.domain.ingestion.identity import memory_id
from selfimprint.domain.ingestion.plan import NodeMentions, Rejection, RejectionReason
from selfimprint.domain.ingestion.reinforcement import find_duplicate, same_person_memory
from selfimprint.domain.lasting import lasting_permanence, lasting_type
from selfimprint.domain.models import Belief, EvidenceKind, Node, NodeType
from selfimprint.domain.reply_context import context_of, context_terms


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


def _reject(
    draft: PlanDraft, candidate: ExtractedMemory, reason: RejectionReason, detail: str
) -> None:
    draft.rejected.append(
        Rejection(ref=candidate.ref, content=candidate.content, reason=reason, detail=detail)
    )


def screen(draft: PlanDraft, candidate: ExtractedMemory) -> str | None:
    """The content to store, or None after recording why the candidate is rejected."""
    if candidate.ref in draft.candidates:
        _reject(draft, candidate, RejectionReason.DUPLICATE_REF, "an earlier candidate has it")
        return None
    if candidate.ref in draft.recent:
        _reject(draft, candidate, RejectionReason.REF_IS_MEMORY_ID, "ambiguous edge ends")
        return None
    content = " ".join(candidate.content.split())
    if not content:
        _reject(draft, candidate, RejectionReason.BLANK_CONTENT, "nothing to remember")
        return None
    limit = draft.config.max_content_chars
    if len(content) > limit:
        if not draft.config.trim_overlong:
            _reject(draft, candidate, RejectionReason.CONTENT_TOO_LONG, f"{len(content)} > {limit}")
            return None
        content = trim_content(content, limit)
        draft.trimmed.append(candidate.ref)
    if candidate.type is CandidateType.EMOTIONAL_NOTE and candidate.valence is None:
        _reject(draft, candidate, RejectionReason.MISSING_VALENCE, "emotional_note needs one")
        return None
    grounding = ground(
        content,
        candidate.source_message_ids,
        draft.messages,
        draft.config.grounding,
        known=[n.content for n in draft.recent.values()],
    )
    if not grounding.holds(draft.config.grounding):
        _reject(
            draft, candidate, RejectionReason.UNGROUNDED, grounding.why_not(draft.config.grounding)
        )
        return None
    draft.sources[candidate.ref] = grounding.sources
    decision = classify(content, config=draft.config.inference_policy)
    if decision.policy_class is PolicyClass.NEVER_INFER and (
        candidate.evidence_kind is CandidateEvidence.OBSERVED
        or draft.config.reject_never_infer_self_reports
    ):
        _reject(draft, candidate, RejectionReason.INFERENCE_POLICY, decision.reason)
        return None
    return content


@dataclass(frozen=True)
class ReplyContext:
    """How a new memory reads after the message it replied to (domain.reply_context)."""

    embedding: tuple[float, ...]
    terms: tuple[str, ...]


def reply_context(
    candidate: ExtractedMemory,
    content: str,
    replies: Mapping[str, str],
    context_embeddings: Mapping[str, Sequence[float]],
) -> ReplyContext | None:
    """The candidate's reply context: its first cited message's (the extraction activity
    embedded the same one), when that message replied to one and the vector came with it."""
    context = context_of(candidate.source_message_ids, replies)
    vector = context_embeddings.get(candidate.ref)
    if context is None or vector is None:
        return None
    return ReplyContext(tuple(vector), context_terms(context, content))


def add_candidate(
    draft: PlanDraft,
    candidate: ExtractedMemory,
    content: str,
    nearest: Sequence[tuple[Node, float]],
    embedding: Sequence[float] | None,
    embedding_model: str | None,
    replied: ReplyContext | None = None,
) -> None:
    """Record a screened candidate: it reinforces the memory it restates, or it becomes a new
    node, with the dates and the names its cited messages say."""
    sources = draft.sources[candidate.ref]
    draft.candidates[candidate.ref] = candidate
    duplicate = find_duplicate(
        candidate, content, nearest, draft.user_id, draft.config
    ) or same_person_memory(
        candidate, content, [*(n for n, _ in nearest), *draft.recent.values()], draft.user_id
    )
    if duplicate is not None:
        draft.resolved[candidate.ref] = duplicate.id
        draft.reinforced.setdefault(duplicate.id, duplicate)
        joined = draft.reinforced_sources.setdefault(duplicate.id, [])
        joined.extend(s for s in sources if s not in joined)
        return
    node_id = memory_id(draft.user_id, sources, candidate.type.value, content)
    draft.resolved[candidate.ref] = node_id
    if node_id in draft.new_nodes:
        return  # the same statement from the same messages, proposed twice
    draft.new_nodes[node_id] = _new_node(
        draft, node_id, candidate, content, sources, embedding, embedding_model, replied
    )
    dates = _valid_dates(candidate.dates_mentioned)
    # A name the cited messages never say is the extractor's, not the user's.
    said = [m.text for m in draft.messages if m.id in sources]
    people = tuple(
        dict.fromkeys(
            p.strip()
            for p in candidate.people
            if p.strip() and support(p, said, draft.config.grounding) == 1.0
        )
    )
    if dates or people:
        draft.mentions.append(NodeMentions(node_id=node_id, dates=dates, people=people))


def _new_node(
    draft: PlanDraft,
    node_id: str,
    candidate: ExtractedMemory,
    content: str,
    sources: tuple[str, ...],
    embedding: Sequence[float] | None,
    embedding_model: str | None,
    replied: ReplyContext | None,
) -> Node:
    # Issue 33: a lasting trait ("allergic to cats") is a fact, whatever the extractor read.
    node_type = lasting_type(NodeType(candidate.type.value), content)
    significant = is_significant_event(node_type, candidate.importance, draft.config.decay)
    coefficient = coefficient_for(
        node_type, valence=candidate.valence, significant=significant, config=draft.config.decay
    )
    # Issue 33: when the reader nearly chose a type that decays more slowly, the slower curve
    # wins (a feeling that may be a fact fades like a fact). An emotional note is never slower
    # than the types it competes with, and needs a valence: it is not considered.
    coefficient = max(
        [
            coefficient,
            *(
                coefficient_for(NodeType(t.value), config=draft.config.decay)
                for t in draft.near.get(candidate.ref, ())
                if t is not CandidateType.EMOTIONAL_NOTE
            ),
        ]
    )
    # Issue 32: an aside (asks, says nothing of the user) fades fast whatever its type.
    coefficient = aside_coefficient(coefficient, content, draft.config.decay.aside)
    observed = candidate.evidence_kind is CandidateEvidence.OBSERVED
    vector = tuple(embedding) if embedding is not None and embedding_model else None
    said = draft.said_at(sources)
    born = draft.born_at(said)
    return Node(
        id=node_id,
        user_id=draft.user_id,
        type=node_type,
        content=content,
        valence=candidate.valence if node_type is NodeType.EMOTIONAL_NOTE else None,
        importance=candidate.importance,
        weight=1.0,
        weight_at=born,
        created_at=said,
        decay_coefficient=coefficient,
        significant=significant,
        expires_at=expires_at(
            1.0, born, coefficient, timeline=draft.timeline, config=draft.config.decay
        ),
        sources=sources,
        belief=Belief(
            confidence=(
                draft.config.observed_confidence
                if observed
                else draft.config.self_report_confidence
            ),
            permanence=lasting_permanence(
                node_type, content, draft.config.permanence[CandidateType(node_type.value)]
            ),
            first_seen=said,
            evidence_kind=EvidenceKind.OBSERVED if observed else EvidenceKind.SELF_REPORT,
        ),
        embedding=vector,
        embedding_model=embedding_model if vector is not None else None,
        # Only beside a content vector of the same model and size (Node checks the size).
        context_embedding=(
            replied.embedding
            if replied is not None and vector is not None and len(replied.embedding) == len(vector)
            else None
        ),
        context_terms=replied.terms if replied is not None else (),
    )

"""`plan_ingestion`: one batch's extraction in, the write plan out, pure and deterministic. It
runs the steps in an order that matters: candidates first (so edges can name them), then
reinforcement, edges, people links and contradictions last (they may down-weight a memory
reinforced just before)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.decay import ActivityTimeline, ReinforcementTally
from selfimprint.domain.ingestion.candidates import add_candidate, reply_context, screen
from selfimprint.domain.ingestion.config import DEFAULT_INGESTION, IngestionConfig
from selfimprint.domain.ingestion.contradictions import plan_contradictions
from selfimprint.domain.ingestion.draft import PlanDraft
from selfimprint.domain.ingestion.edges import add_edge, link_people
from selfimprint.domain.ingestion.extraction import ExtractedEdge, Extraction
from selfimprint.domain.ingestion.plan import IngestionPlan
from selfimprint.domain.ingestion.reinforcement import plan_reinforcements
from selfimprint.domain.messages import Message
from selfimprint.domain.models import EdgeType, Node


def plan_ingestion(
    extraction: Extraction,
    messages: Sequence[Message],
    *,
    user_id: str,
    now: datetime,
    embeddings: Mapping[str, Sequence[float]] | None = None,
    embedding_model: str | None = None,
    context_embeddings: Mapping[str, Sequence[float]] | None = None,
    replies: Mapping[str, str] | None = None,
    nearest: Mapping[str, Sequence[tuple[Node, float]]] | None = None,
    recent: Sequence[Node] = (),
    tallies: Mapping[str, ReinforcementTally] | None = None,
    timeline: ActivityTimeline | None = None,
    config: IngestionConfig = DEFAULT_INGESTION,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> IngestionPlan:
    """Turn one batch's extraction into what the graph store writes. Pure and deterministic.

    - `messages`: the batch the extraction came from (source ids are checked against it).
    - `embeddings`: candidate ref -> vector of its content, from `embedding_model`.
    - `context_embeddings`: candidate ref -> vector of its content read after the message it
      replied to; `replies`: user message id -> that message's text (domain.reply_context).
    - `nearest`: candidate ref -> the user's existing memories nearest to it, with cosine
      similarity (the duplicate check, spec §3.9).
    - `recent`: the memories shown to the extractor; edges and contradictions may point to them.
    - `tallies`: today's reinforcement tallies by memory id (spec §6 rate limit).
    - `timeline`: the user's decay clock, for effective weights (spec §3.8.1).
    - `beliefs`: how restatements and contradictions move confidence (`domain.belief`).
    """
    if not messages:
        raise ValueError("an extraction plan needs the batch of messages it came from")
    draft = PlanDraft(
        user_id=user_id,
        messages=messages,
        recent=recent,
        now=now,
        tallies=tallies or {},
        timeline=timeline,
        config=config,
        beliefs=beliefs,
        near={n.ref: n.types for n in extraction.near},
    )
    embeddings = embeddings or {}
    context_embeddings = context_embeddings or {}
    replies = replies or {}
    nearest = nearest or {}
    for candidate in extraction.candidates:
        content = screen(draft, candidate)
        if content is not None:
            add_candidate(
                draft,
                candidate,
                content,
                nearest.get(candidate.ref, ()),
                embeddings.get(candidate.ref),
                embedding_model,
                reply_context(candidate, content, replies, context_embeddings),
            )
    reinforcements = plan_reinforcements(draft)
    for extracted in extraction.edges:
        add_edge(draft, extracted)
    for ref, candidate in draft.candidates.items():
        for memory in candidate.contradicts_memory_ids:
            add_edge(
                draft, ExtractedEdge(source_ref=ref, target_ref=memory, type=EdgeType.CONTRADICTS)
            )
    if config.link_people:
        link_people(draft)
    contradictions, downweights = plan_contradictions(draft)
    return IngestionPlan(
        nodes=tuple(draft.new_nodes.values()),
        reinforcements=reinforcements,
        edges=tuple(sorted(draft.edges.values(), key=lambda e: (e.source_id, e.target_id, e.type))),
        contradictions=contradictions,
        downweights=downweights,
        rejected=tuple(draft.rejected),
        dropped_edges=tuple(draft.dropped),
        trimmed_refs=tuple(draft.trimmed),
        mentions=tuple(draft.mentions),
        resolved_refs=dict(draft.resolved),
    )

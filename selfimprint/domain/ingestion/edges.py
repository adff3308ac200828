"""Which proposed links become edges: links among candidates and to recent memories, with
their ends resolved to memory ids; links to anything unknown and self loops are dropped with a
reason, duplicates are one edge. A person named in a candidate is linked to that person's
memory. `contradicts` links go on to `contradictions`."""

from __future__ import annotations

from selfimprint.domain.ingestion.draft import PlanDraft
from selfimprint.domain.ingestion.extraction import ExtractedEdge
from selfimprint.domain.ingestion.plan import DroppedEdge, EdgeDropReason
from selfimprint.domain.models import Edge, EdgeType, NodeType
from selfimprint.domain.structured.name_keys import full_name_keys, names_in


def _resolve(draft: PlanDraft, ref: str) -> str | None:
    if ref in draft.resolved:
        return draft.resolved[ref]
    return ref if ref in draft.recent else None


def add_edge(draft: PlanDraft, extracted: ExtractedEdge) -> None:
    """Record one proposed link, or why it is dropped; a `contradicts` link waits for
    `contradictions.plan_contradictions`."""
    source = _resolve(draft, extracted.source_ref)
    target = _resolve(draft, extracted.target_ref)
    if source is None or target is None or source == target:
        draft.dropped.append(
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
        draft.contradiction_pairs.append((source, target))
        return
    _put_edge(draft, source, target, extracted.type)


def _put_edge(draft: PlanDraft, source: str, target: str, edge_type: EdgeType) -> None:
    # associated_with has no direction: A~B and B~A are one link.
    if edge_type is EdgeType.ASSOCIATED_WITH and (target, source, edge_type) in draft.edges:
        return
    draft.edges.setdefault(
        (source, target, edge_type),
        Edge(
            source_id=source,
            target_id=target,
            type=edge_type,
            confidence=draft.config.extracted_edge_confidence,
            created_at=draft.now,
        ),
    )


def link_people(draft: PlanDraft) -> None:
    """Link each candidate to the person memories (new or recent) that name someone it
    mentions: the same name however written (`structured.name_keys`: "Anya" and "Аня",
    "с Аней" and "Аня"), whole words only ("Anna" is not "Joanna")."""
    people = [
        (node_id, names_in(node.content))
        for node_id, node in (*draft.new_nodes.items(), *draft.recent.items())
        if node.type is NodeType.PERSON
    ]
    for ref, candidate in draft.candidates.items():
        source = draft.resolved[ref]
        for name in candidate.people:
            keys = full_name_keys(name)
            for person_id, named in people:
                if keys & named and person_id != source:
                    _put_edge(draft, source, person_id, EdgeType.ASSOCIATED_WITH)

"""What a contradiction writes (spec §6): a `contradicts` edge from the newer statement to the
older one, an unresolved tension, and, when the older memory predates the batch and is not
pinned, the loss of part of its effective weight, a challenge to its belief (observed evidence
against it: the user's own later statement, under the newer memory's message id, so
`challenged_at` moves and its confidence drops; the epistemic-memory article, component 6), and
the end of its validity when the newer was said (issue 33: kept as history, shown as past).

Two lines of a transcript labelled with different speakers ("Melanie: ..." and "Caroline: ...")
never contradict each other, whoever proposed it: one person's news does not end another's
(the rule restatement applies to merging, `domain.restatement`)."""

from __future__ import annotations

from datetime import datetime

from selfimprint.domain.belief import Evidence, EvidenceStream
from selfimprint.domain.decay import expires_at, node_coefficient, node_effective_weight
from selfimprint.domain.ingestion.draft import PlanDraft
from selfimprint.domain.ingestion.identity import tension_id
from selfimprint.domain.ingestion.plan import (
    Downweight,
    DroppedEdge,
    EdgeDropReason,
    PlannedContradiction,
)
from selfimprint.domain.models import Edge, EdgeType, Node, Tension
from selfimprint.domain.permanence import with_evidence
from selfimprint.domain.terms import same_speaker


def _known_node(draft: PlanDraft, node_id: str) -> Node:
    return draft.new_nodes.get(node_id) or draft.reinforced.get(node_id) or draft.recent[node_id]


def plan_contradictions(
    draft: PlanDraft,
) -> tuple[tuple[PlannedContradiction, ...], tuple[Downweight, ...]]:
    """One edge and one tension per contradicted pair, and the older sides' down-weights."""
    planned: dict[frozenset[str], PlannedContradiction] = {}
    downweights: dict[str, Downweight] = {}
    for first, second in draft.contradiction_pairs:
        pair = frozenset((first, second))
        if pair in planned:
            continue
        a, b = _known_node(draft, first), _known_node(draft, second)
        if not same_speaker(a.content, b.content):
            draft.dropped.append(
                DroppedEdge(
                    source_ref=first,
                    target_ref=second,
                    type=EdgeType.CONTRADICTS,
                    reason=EdgeDropReason.OTHER_SPEAKER,
                )
            )
            continue
        # The edge points from the newer statement to the one it contradicts.
        newer, older = (a, b) if (b.created_at, b.id) <= (a.created_at, a.id) else (b, a)
        edge = Edge(
            source_id=newer.id,
            target_id=older.id,
            type=EdgeType.CONTRADICTS,
            confidence=draft.config.extracted_edge_confidence,
            created_at=draft.now,
        )
        tension = Tension(
            id=tension_id(draft.user_id, newer.id, older.id),
            node_a=newer.id,
            node_b=older.id,
            detected_at=draft.now,
            a_said=newer.content,
            b_said=older.content,
        )
        planned[pair] = PlannedContradiction(edge=edge, tension=tension)
        # Same age: both came from this batch, neither is older. A pinned memory keeps its
        # weight: the user chose it, the tension alone records the doubt (project choice).
        if (
            older.created_at < newer.created_at
            and not older.is_pinned
            and older.id not in draft.new_nodes
            and older.id not in downweights
        ):
            evidence = _contradiction_evidence(draft, newer)
            challenged = with_evidence(older, evidence, draft.beliefs)
            # The evidence already on the belief: an earlier attempt of this batch applied the
            # down-weight, and applying it again would halve the memory twice.
            if challenged is not older:
                downweights[older.id] = _downweight(draft, challenged, ended_at=evidence.at)
    return tuple(planned.values()), tuple(downweights.values())


def _contradiction_evidence(draft: PlanDraft, newer: Node) -> Evidence:
    """Observed evidence against, under the newest message the newer memory cites (its own id
    when it cites none)."""
    cited = [s for s in newer.sources if s in draft.sent_at] or list(newer.sources[-1:])
    evidence_id = max(cited, key=lambda s: (draft.said_at([s]), s)) if cited else newer.id
    return Evidence(
        id=evidence_id,
        stream=EvidenceStream.OBSERVED,
        supports=False,
        at=draft.said_at([evidence_id]),
    )


def _downweight(draft: PlanDraft, node: Node, ended_at: datetime) -> Downweight:
    """The older side loses weight and stops being current when the newer was said (issue 33;
    an earlier end already stored stays: `writes.downweight` keeps the earliest)."""
    at = max(draft.now, node.weight_at)
    current = node_effective_weight(node, at, timeline=draft.timeline, config=draft.config.decay)
    weight = current * draft.config.contradiction_downweight
    return Downweight(
        node_id=node.id,
        weight=weight,
        weight_at=at,
        expires_at=expires_at(
            weight,
            at,
            node_coefficient(node, draft.config.decay),
            timeline=draft.timeline,
            config=draft.config.decay,
        ),
        expected_weight_at=node.weight_at,
        belief=node.belief,
        valid_until=ended_at,
    )

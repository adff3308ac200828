"""When a candidate restates an existing memory, and how that memory is reinforced (spec §3.3,
§3.9, rate-limited per §6). Same type and valence, and the restatement test of
`selfimprint.domain.restatement` (which compaction's dedupe shares): the memory is reinforced
once per batch and the candidate's message ids join its sources, so a memory cites only
messages that said what it says.

The restatement is also evidence for the memory's belief (the epistemic-memory article,
components 2 and 6): the user returning to it unprompted in a later message is behaviour
consistent with it, so it is recorded as observed support (`confirmed_at` moves, confidence
rises towards its cap), under the newest restating message's id (docs/decisions.md)."""

from __future__ import annotations

from collections.abc import Sequence

from selfimprint.domain.belief import Evidence, EvidenceStream
from selfimprint.domain.decay import reinforce_node
from selfimprint.domain.ingestion.config import IngestionConfig
from selfimprint.domain.ingestion.draft import PlanDraft
from selfimprint.domain.ingestion.extraction import ExtractedMemory
from selfimprint.domain.ingestion.plan import MemoryReinforcement
from selfimprint.domain.models import MAX_SOURCES, Node, NodeType
from selfimprint.domain.permanence import with_evidence
from selfimprint.domain.restatement import restates
from selfimprint.domain.structured.people import same_person


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


def find_duplicate(
    candidate: ExtractedMemory,
    content: str,
    nearest: Sequence[tuple[Node, float]],
    user_id: str,
    config: IngestionConfig,
) -> Node | None:
    """The memory among `nearest` that the candidate restates (the most similar, ties by id)."""
    matches = [
        (similarity, node)
        for node, similarity in nearest
        if _is_duplicate_of(candidate, content, node, similarity, user_id, config)
    ]
    if not matches:
        return None
    return min(matches, key=lambda pair: (-pair[0], pair[1].id))[1]


def same_person_memory(
    candidate: ExtractedMemory,
    content: str,
    known: Sequence[Node],
    user_id: str,
) -> Node | None:
    """The person memory among `known` that a person candidate tells of again, in whatever
    language or case (`structured.people.same_person`: one name, one relation; issue 34):
    "Моя сестра Аня" restates "My sister Anya" though no restatement test of the words can
    say so. The earliest such memory (ties by id)."""
    if candidate.type.value != NodeType.PERSON.value:
        return None
    matches = [
        node
        for node in known
        if node.user_id == user_id
        and node.type is NodeType.PERSON
        and same_person(node.content, content)
    ]
    return min(matches, key=lambda n: (n.created_at, n.id)) if matches else None


def _join_sources(existing: Sequence[str], added: Sequence[str]) -> tuple[str, ...]:
    joined = (*existing, *(s for s in added if s not in existing))
    # Keep the newest evidence when the cap is reached; the oldest ids drop out first.
    return joined[-MAX_SOURCES:]


def _restatement_evidence(draft: PlanDraft, added: Sequence[str]) -> Evidence:
    """Observed support, under the newest of the restating messages (ties by id)."""
    newest = max(added, key=lambda s: (draft.said_at([s]), s))
    return Evidence(
        id=newest, stream=EvidenceStream.OBSERVED, supports=True, at=draft.said_at([newest])
    )


def plan_reinforcements(draft: PlanDraft) -> tuple[MemoryReinforcement, ...]:
    """One mention per memory and batch, however many candidates repeated it (project
    choice: one batch cannot pump a memory, spec §3.3)."""
    planned = []
    for node_id, stored in draft.reinforced.items():
        node, result = reinforce_node(
            stored,
            draft.said_at(draft.reinforced_sources[node_id]),
            draft.tallies.get(node_id),
            timeline=draft.timeline,
            config=draft.config.decay,
        )
        added = tuple(s for s in draft.reinforced_sources[node_id] if s not in stored.sources)
        node = node.model_copy(update={"sources": _join_sources(node.sources, added)})
        if added and result.applied:
            # One piece of evidence per memory and batch, like the reinforcement itself; a
            # rate-limited mention is ignored (spec §6) for confidence too.
            node = with_evidence(node, _restatement_evidence(draft, added), draft.beliefs)
        draft.reinforced[node_id] = node
        planned.append(
            MemoryReinforcement(
                node=node,
                result=result,
                added_sources=added,
                expected_weight_at=stored.weight_at,
            )
        )
    return tuple(planned)

"""What one batch writes to the graph: the `IngestionPlan` and its parts (new nodes,
reinforcements, edges, contradictions, down-weights), and what was left out and why."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.decay import ReinforcementResult
from selfimprint.domain.models import (
    AwareDatetime,
    Belief,
    Edge,
    EdgeType,
    MemoryId,
    Node,
    Tension,
    Unit,
)


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    # A contradiction between lines two different speakers said (`ingestion.contradictions`).
    OTHER_SPEAKER = "other_speaker"


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
    """The older side of a contradiction loses weight (spec §6) and its belief is challenged
    (`belief`: the whole belief after the evidence against; None leaves the stored one).
    Applied after reinforcements."""

    node_id: MemoryId
    weight: Unit
    weight_at: AwareDatetime
    expires_at: AwareDatetime | None
    expected_weight_at: AwareDatetime
    belief: Belief | None = None
    # Issue 33: when the newer statement was said; the older memory is no longer current from
    # then (Node.valid_until). None leaves the stored value.
    valid_until: AwareDatetime | None = None


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

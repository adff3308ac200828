"""What the extractor may propose for one batch of messages: candidate memories and links
(`Extraction`), and the recent memories it is shown (`RecentMemory`). Every extractor, LLM,
verbatim or structured, answers in this shape; `selfimprint.prompts.extraction` asks for it."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Annotated, Final

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from selfimprint.domain.models import (
    MAX_CONTENT_CHARS,
    MAX_ID_CHARS,
    EdgeType,
    MemoryId,
    Node,
    NodeType,
    Valence,
)

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


class NearReading(_Value):
    """Types a reader nearly gave candidate `ref` (within its margin of the type it chose):
    when one of them decays more slowly, the memory takes the slower curve (issue 33: a
    misread type must not forget a lasting fact). Not part of a model's answer schema."""

    ref: Ref
    types: Annotated[tuple[CandidateType, ...], Field(max_length=len(CandidateType))]


class Extraction(_Value):
    """What the extractor proposes for one batch of messages."""

    candidates: Annotated[tuple[ExtractedMemory, ...], Field(max_length=MAX_CANDIDATES)]
    edges: Annotated[tuple[ExtractedEdge, ...], Field(max_length=MAX_EXTRACTED_EDGES)]
    near: Annotated[tuple[NearReading, ...], Field(max_length=MAX_CANDIDATES)] = ()


class RecentMemory(_Value):
    """A memory shown to the extractor so that it can link to it or flag a contradiction."""

    id: MemoryId
    type: NodeType
    content: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]

    @classmethod
    def from_node(cls, node: Node) -> RecentMemory:
        return cls(id=node.id, type=node.type, content=node.content)

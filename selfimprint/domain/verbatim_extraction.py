"""The extraction used when the LLM's answer is unusable (truncated or invalid JSON): each user
message becomes one memory in the user's own words.

A weak model failing on one batch must not mean the user's words are never remembered. The
memories are plain self-reported facts with no edges; later sleep phases can still connect them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.ingestion import (
    CandidateEvidence,
    CandidateType,
    ExtractedMemory,
    Extraction,
)
from selfimprint.domain.messages import Message, Role

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s")


class VerbatimConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Same cap as LLM-extracted memories (IngestionConfig.max_content_chars).
    max_chars: int = Field(300, ge=20)
    # Without the model's judgement every message is "ordinary" (the prompt's 0.5).
    importance: float = Field(0.5, ge=0.0, le=1.0)
    # Short acknowledgements ("ok", "thanks!") are not worth remembering.
    min_chars: int = Field(12, ge=1)


DEFAULT_VERBATIM = VerbatimConfig()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    sentences = _SENTENCE_END.split(cut)
    if len(sentences) > 1:
        return " ".join(sentences[:-1])
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def verbatim_extraction(
    messages: Sequence[Message], config: VerbatimConfig = DEFAULT_VERBATIM
) -> Extraction:
    candidates = []
    for index, message in enumerate(messages):
        text = _clip(message.text, config.max_chars)
        if message.role is not Role.USER or len(text) < config.min_chars:
            continue
        candidates.append(
            ExtractedMemory(
                ref=f"v{index + 1}",
                type=CandidateType.FACT,
                content=text,
                importance=config.importance,
                valence=None,
                dates_mentioned=(),
                people=(),
                evidence_kind=CandidateEvidence.SELF_REPORT,
                source_message_ids=(message.id,),
                contradicts_memory_ids=(),
            )
        )
    return Extraction(candidates=tuple(candidates), edges=())

"""What a user's correction does to a memory (spec §4.3: users see, correct and delete what the
system believes). Pure: the API embeds corrected text and the store writes the returned node."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.decay import (
    DEFAULT_DECAY,
    ActivityTimeline,
    DecayConfig,
    coefficient_for,
    expires_at,
    node_effective_weight,
)
from selfimprint.domain.models import Belief, Content, EvidenceKind, Node


class CorrectionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    # The user saying it directly is the strongest self-report there is (epistemic article:
    # self-report is one stream; a correction by the person themselves settles the wording).
    corrected_confidence: float = Field(0.95, ge=0.0, le=1.0)


DEFAULT_CORRECTION = CorrectionConfig()


class MemoryCorrection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    content: Content | None = None
    pinned: bool | None = None
    wrong: bool | None = Field(None, description="True: the memory is wrong (refuted).")


def _belief(node: Node, **change: object) -> Belief:
    return Belief.model_validate({**node.belief.model_dump(), **change})


def apply_correction(
    node: Node,
    correction: MemoryCorrection,
    now: datetime,
    *,
    embedding: tuple[float, ...] | None = None,
    embedding_model: str | None = None,
    timeline: ActivityTimeline | None = None,
    decay: DecayConfig = DEFAULT_DECAY,
    config: CorrectionConfig = DEFAULT_CORRECTION,
) -> Node:
    """The node after the correction. Weight is re-based at `now` (its effective value), so a
    pin or unpin never resurrects weight that had already decayed."""
    weight = node_effective_weight(node, now, timeline=timeline, config=decay)
    update: dict[str, object] = {"weight": weight, "weight_at": now}
    if correction.content is not None and correction.content != node.content:
        if embedding is None or embedding_model is None:
            raise ValueError("corrected content needs its new embedding")
        update |= {
            "content": correction.content,
            "embedding": embedding,
            "embedding_model": embedding_model,
            # Read after the message it replied to, the old words: the corrected ones stand
            # alone (domain.reply_context).
            "context_embedding": None,
            "context_terms": (),
            "belief": _belief(
                node,
                confidence=config.corrected_confidence,
                confirmed_at=now,
                evidence_kind=EvidenceKind.SELF_REPORT,
            ),
        }
    if correction.wrong:
        update["belief"] = _belief(node, confidence=0.0, challenged_at=now)
    pinned = node.is_pinned if correction.pinned is None else correction.pinned
    coefficient = coefficient_for(
        node.type,
        valence=node.valence,
        significant=node.significant,
        pinned=pinned,
        config=decay,
    )
    update |= {
        "is_pinned": pinned,
        "decay_coefficient": coefficient,
        "expires_at": expires_at(weight, now, coefficient, timeline=timeline, config=decay),
    }
    return Node.model_validate({**node.model_dump(), **update})

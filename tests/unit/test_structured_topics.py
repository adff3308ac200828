"""Topic shifts (domain.structured.topics, issue 32): a sentence that opens with "BTW" or
"кстати" starts a new memory; without one, a message's sentences stay together."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.topics import topic_runs

pytestmark = pytest.mark.unit

EN = cues("en").topic_shift
RU = cues("ru").topic_shift


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        (
            "Thanks for the tip, I'll do that. BTW, I hurt my ankle running on February 20.",
            ["Thanks for the tip, I'll do that.", "BTW, I hurt my ankle running on February 20."],
        ),
        (
            "Congrats on the show! By the way, I finally adopted a dog.",
            ["Congrats on the show!", "By the way, I finally adopted a dog."],
        ),
        (
            "So glad to hear it! Oh, and my sister is visiting.",
            ["So glad to hear it!", "Oh, and my sister is visiting."],
        ),
        ("(btw) I quit. It was time.", ["(btw) I quit. It was time."]),  # nothing before: one run
        # No cue at a sentence's start: one run ("by the way" mid-sentence, "also" without a
        # comma).
        ("I moved, by the way. I also got a cat.", ["I moved, by the way. I also got a cat."]),
        ("Also the gym opens at six. It is far.", ["Also the gym opens at six. It is far."]),
    ],
)
def test_english_topic_runs(text: str, runs: list[str]) -> None:
    assert topic_runs(text, EN) == runs


def test_russian_topic_runs() -> None:
    text = "Спасибо за совет! Кстати, я переехала в Казань в мае."
    assert topic_runs(text, RU) == ["Спасибо за совет!", "Кстати, я переехала в Казань в мае."]
    assert topic_runs("Я переехала. Это было непросто.", RU) == ["Я переехала. Это было непросто."]


def test_each_topic_is_a_memory_of_the_same_message() -> None:
    text = (
        "Thanks, Caroline, that makes sense and I'll do that. "
        "BTW, I hurt my ankle running on February 20."
    )
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    vectors = {t: [1.0, 0.0] for t in texts_to_embed([message], [])}
    answer = structured_extraction([message], [], vectors, None, similarity_floor=0.0)
    contents = [c.content for c in answer.candidates]
    assert contents == [
        "Thanks, Caroline, that makes sense and I'll do that.",
        "BTW, I hurt my ankle running on February 20.",
    ]
    assert all(c.source_message_ids == ("m1",) for c in answer.candidates)
    ankle = answer.candidates[1]
    assert ankle.dates_mentioned == ("2026-02-20",)  # read from its own words
    assert answer.candidates[0].dates_mentioned == ()

"""Topic shifts (domain.structured.topics, issue 32): a sentence that opens with "BTW" or
"кстати" starts a new memory; without one, a message's sentences stay together."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.head import ExtractionHead, Softmax
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


# [1, 0] reads as a fact, [0, 1] as small talk.
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(
        labels=("fact", "event", "emotional_note", "person", "open_loop", "none"),
        weights=((4, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 4)),
        bias=(0,) * 6,
    ),
    valence=Softmax(labels=("positive", "negative", "none"), weights=((0, 0),) * 3, bias=(0,) * 3),
)
REPLY = "Wow, that sounds amazing, how did the show go?"
NEWS = "BTW, I hurt my ankle running on February 20."


def _extract(text: str, news_reads_as: list[float]) -> list[tuple[str, str]]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    texts = texts_to_embed([message], [])
    vectors = {t: news_reads_as if t == NEWS else [0.0, 1.0] for t in texts}
    answer = structured_extraction([message], [], vectors, HEAD, similarity_floor=0.0)
    return [(c.type.value, c.content) for c in answer.candidates]


def test_news_after_a_shift_keeps_a_message_from_being_small_talk() -> None:
    text = f"{REPLY} {NEWS}"
    assert NEWS in texts_to_embed(
        [Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 1, tzinfo=UTC))], []
    )
    # The whole message reads as small talk; its news does not: kept whole, typed by the news.
    assert _extract(text, [1.0, 0.0]) == [("fact", text)]
    # Small talk both ways, or no shift to read past: not stored.
    assert _extract(text, [0.0, 1.0]) == []
    assert _extract(f"{REPLY} I hurt my ankle running on February 20.", [1.0, 0.0]) == []

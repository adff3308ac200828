"""Only a short message is small talk: a piece of a long message that alone reads like small
talk (a closing "Thanks, see you soon!", a photo's caption) is kept with the rest of what the
message says (domain.structured.extractor)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    read_type,
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.head import ExtractionHead, Softmax
from selfimprint.domain.terms import read

pytestmark = pytest.mark.unit

TYPES = ("fact", "event", "emotional_note", "person", "open_loop", "none")
# [1, 0] reads as a fact, [0, 1] as small talk.
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(
        labels=TYPES, weights=((4, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 4)), bias=(0,) * 6
    ),
    valence=Softmax(labels=("positive", "negative", "none"), weights=((0, 0),) * 3, bias=(0,) * 3),
)
LONG = (
    "We finally moved the whole team to the new office on the river last week, and the commute "
    "is twenty minutes shorter for me now, which means I can drop the kids at school before "
    "work, have breakfast with them, and still be at my desk before the stand-up meeting starts "
    "at nine, or even earlier on Fridays. Thanks, see you soon!"
)
CLOSING = "Thanks, see you soon!"


def _contents(text: str) -> list[str]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    vectors = {
        t: [0.0, 1.0] if t.endswith(CLOSING) and len(t) < 60 else [1.0, 0.0]
        for t in texts_to_embed([message], [])
    }
    answer = structured_extraction([message], [], vectors, HEAD, similarity_floor=0.0)
    return [c.content for c in answer.candidates]


def test_the_closing_piece_of_a_long_message_is_kept() -> None:
    contents = _contents(LONG)
    assert len(contents) == 2, contents  # the message is read in two runs of sentences
    assert CLOSING in contents[1]


def test_the_same_words_alone_are_small_talk() -> None:
    assert _contents(CLOSING) == []


def _answer(text: str, replied_to: str) -> list[str]:
    """`text` read as small talk by the head, said in reply to `replied_to`."""
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    vectors = {t: [0.0, 1.0] for t in texts_to_embed([message], [])}
    answer = structured_extraction(
        [message], [], vectors, HEAD, similarity_floor=0.0, replies={"m1": replied_to}
    )
    return [c.content for c in answer.candidates]


def test_a_short_answer_to_a_question_is_kept() -> None:
    # The head reads both as small talk; the question is what makes the first worth keeping.
    text = "I added some sage for a nice flavor. Enjoy!"
    assert _answer(text, "Can you tell me what spices you used in the soup?") == [text]
    assert _answer(text, "The soup was lovely, thank you.") == []


def test_a_pleasantry_after_a_question_is_still_small_talk() -> None:
    assert _answer("Good, thanks!", "How are you today?") == []


def test_an_answers_numbers_count_among_its_words() -> None:
    # "twice" is a number word, not a stem: with it the answer says three things, the minimum
    # (`answer_min_words`); "Won twice." says two.
    text = "It was fun, I won twice."
    assert read(text).stems == {"fun", "won"} and read(text).numbers == {"twice"}
    assert _answer(text, "How was the chess club today?") == [text]
    assert _answer(text, "The chess club was fun.") == []
    assert _answer("Won twice.", "How was the chess club today?") == []


def test_small_talk_may_run_to_none_max_words_content_words() -> None:
    # Issue 34: new writers' pleasantries and requests run longer than a greeting. Read as small
    # talk by the head, 12 content words are dropped, 13 are kept (DEFAULT_STRUCTURED).
    twelve = "happy new year friend, hope the coming year treats both families kindly, cheers mate"
    thirteen = twelve + " always"
    assert DEFAULT_STRUCTURED.none_max_words == 12
    assert len(read(twelve).stems) == 12 and len(read(thirteen).stems) == 13
    assert _answer(twelve, "") == []
    assert _answer(thirteen, "") == [thirteen]


@pytest.mark.parametrize(
    ("text", "small_talk"),
    [
        ("Bye, see you later!", True),
        ("Nate: Bye, see you later!", True),  # a transcript line: its label is not what was said
        ("Анна: Спасибо, пока!", True),
        ("Nate: Bye, I'll call my sister first.", False),  # says something of the speaker
        ("Nate: I moved to Porto last week.", False),
    ],
)
def test_small_talk_cues_read_past_a_speaker_label(text: str, small_talk: bool) -> None:
    language = "ru" if "Анна" in text else "en"
    reading = read_type(text, None, cues(language), None, dated=False)
    assert (reading.type == "none") is small_talk, reading

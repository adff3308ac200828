"""Names read by a reader of words (issue 34): an English word the reader takes for a person's
name with at least `name_likely` is one wherever it stands; a name the rules found whose every
word it reads below `name_unlikely` is dropped, unless the user told of that person before.
Both sides of each threshold, through `structured_extraction`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.head import Reading
from selfimprint.domain.structured.people import find_people

pytestmark = pytest.mark.unit

LIKELY = DEFAULT_STRUCTURED.name_likely
UNLIKELY = DEFAULT_STRUCTURED.name_unlikely


@dataclass(frozen=True)
class _Names:
    """A reader of words with fixed name readings and a plain fact."""

    names: Mapping[str, float]

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading:
        return Reading({"fact": 0.9, "none": 0.1}, {"none": 1.0}, dict(self.names))

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        return {t: self.reading(t, None) for t in texts}


def _people(text: str, names: Mapping[str, float]) -> set[str]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 2, tzinfo=UTC))
    vectors = dict.fromkeys(texts_to_embed([message], []), [1.0, 0.0])
    answer = structured_extraction([message], [], vectors, _Names(names), similarity_floor=0.0)
    return {p for c in answer.candidates for p in c.people}


def test_a_name_no_list_holds_is_taken_from_the_reader() -> None:
    text = "Thandiwe is taking the kids to her mum's on Saturday so I get a quiet weekend"
    assert _people(text, {"thandiwe": LIKELY}) == {"Thandiwe"}
    assert _people(text, {"thandiwe": LIKELY - 0.01}) == set()


def test_a_lowercase_name_read_as_one_keeps_its_capital() -> None:
    text = "had coffee with fionnuala after work, she's my best mate"
    assert _people(text, {"fionnuala": LIKELY}) == {"Fionnuala"}


def test_a_company_the_reader_reads_as_no_one_is_dropped() -> None:
    text = "Telekom says the router comes next week"
    assert _people(text, {"telekom": UNLIKELY + 0.01}) == {"Telekom"}  # the rules' reading
    assert _people(text, {"telekom": UNLIKELY - 0.01}) == set()


def test_a_person_told_of_before_stands_whatever_the_reader_says() -> None:
    text = "Telekom says the router comes next week"
    en = cues("en")
    assert find_people(text, en, unlikely=["telekom"]) == ()
    assert [m.name for m in find_people(text, en, ["Telekom"], unlikely=["telekom"])] == ["Telekom"]


def test_function_words_and_russian_are_left_to_the_rules() -> None:
    assert find_people("the kids are asleep", cues("en"), likely=["the"]) == ()
    # Russian names have their dictionary and NER: a reading does not add one.
    assert find_people("вчера был у бабушки", cues("ru"), likely=["бабушки"]) == ()


POSSIBLE = DEFAULT_STRUCTURED.name_possible


def test_a_lowercase_word_beside_a_relation_word_is_a_name_the_reader_thinks_possible() -> None:
    text = "pete my running coach is 70 and ex navy"
    assert _people(text, {"pete": POSSIBLE}) == {"Pete"}
    assert _people(text, {"pete": POSSIBLE - 0.01}) == set()
    # Beside no relation word, the reader must be sure of it (name_likely).
    assert _people("pete is 70 and ex navy", {"pete": POSSIBLE}) == set()


@pytest.mark.parametrize(
    ("text", "word", "expected"),
    [
        ("tita nene's birthday was last night", "nene", {"Nene": "aunt"}),
        ("hazel next door swims in the harbour every morning", "hazel", {"Hazel": "neighbour"}),
        ("dawn's my manager, been running the team 10 years", "dawn", {"Dawn": "manager"}),
        ("bex, my climbing coach, is terrifying", "bex", {"Bex": "teacher"}),
        # A word after an article is a noun; another's relation says nothing of the word.
        ("dean, the lad my daughter is marrying, works for the council", "lad", {}),
        ("jules' girlfriend noor is moving here", "noor", {}),
        ("jules' girlfriend Noor is moving here", "noor", {"Noor": None}),
    ],
)
def test_the_relation_beside_a_possible_name(
    text: str, word: str, expected: dict[str, str | None]
) -> None:
    people = find_people(text, cues("en"), possible=[word])
    assert {m.name: m.relation for m in people} == expected

"""Relations a reader of the message reads (issue 34, adapters.relation_reader) fill in who a
person is where the rules read no relation word, and only there: never over a relation the
rules read, never for another's relative, and only for the word that spells the person's name
(domain.structured.people.find_people, likeliest_relation)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    name_readings,
    structured_extraction,
)
from selfimprint.domain.structured.head import Reading
from selfimprint.domain.structured.people import find_people, likeliest_relation

pytestmark = pytest.mark.unit


def _people(
    text: str, language: str, read: dict[str, str], odds: dict[str, float] | None = None
) -> list[tuple[str, str | None]]:
    """`read`: word -> the relation read for it, at `odds` (0.9 where not given)."""
    readings = {w: (r, (odds or {}).get(w, 0.9)) for w, r in read.items()}
    found = find_people(text, cues(language), read_relations=readings)
    return [(m.name, m.relation) for m in found]


def test_a_read_relation_fills_in_a_person_the_rules_read_none_for() -> None:
    text = "the new guy kieran I've been training up on the 86 is 22 and calls me grandad"
    assert _people(text, "en", {}) == [("Kieran", None)]
    assert _people(text, "en", {"kieran": "colleague"}) == [("Kieran", "colleague")]


def test_a_relation_the_rules_read_stands() -> None:
    text = "my sister Anna is visiting next week"
    assert _people(text, "en", {"anna": "friend"}) == [("Anna", "sister")]


def test_another_persons_relative_gets_no_read_relation() -> None:
    assert _people("her brother Tom is visiting", "en", {"tom": "brother"}) == [("Tom", None)]


@pytest.mark.parametrize(
    ("text", "language", "read", "want"),
    [
        ("Anna called me today. my sister Anna never calls", "en", {"anna": "friend"}, "sister"),
        ("her brother Tom is visiting. Tom is so loud lol", "en", {"tom": "brother"}, None),
        ("Маша позвонила. моя сестра Маша редко звонит", "ru", {"маша": "friend"}, "sister"),
        ("её брат Костя приехал. Костя классный", "ru", {"костя": "brother"}, None),
    ],
)
def test_a_name_said_twice_keeps_what_any_of_its_mentions_says(
    text: str, language: str, read: dict[str, str], want: str | None
) -> None:
    assert [relation for _, relation in _people(text, language, read)] == [want]


def test_a_relation_the_rules_gave_someone_is_not_read_for_another() -> None:
    text = "told my boss Helen I'm leaving and she was lovely about it. going to miss Kate the most"
    assert _people(text, "en", {"kate": "boss"}) == [("Helen", "boss"), ("Kate", None)]
    assert _people(text, "en", {"kate": "friend"}) == [("Helen", "boss"), ("Kate", "friend")]


def test_of_two_read_with_one_relation_the_likelier_keeps_it() -> None:
    text = "Mike called last night. lives up in Columbus with his wife and my grandson Owen"
    read = {"mike": "son", "owen": "son"}
    assert _people(text, "en", read, {"mike": 0.95, "owen": 0.8}) == [
        ("Mike", "son"),
        ("Owen", None),
    ]
    assert _people(text, "en", read, {"mike": 0.8, "owen": 0.95}) == [
        ("Mike", None),
        ("Owen", "son"),
    ]


def test_a_possessive_name_takes_its_reading() -> None:
    text = "went round to kieran's for tea, the new guy I've been training up"
    assert _people(text, "en", {}) == [("Kieran", None)]
    assert _people(text, "en", {"kieran": "colleague"}) == [("Kieran", "colleague")]


def test_a_russian_name_in_another_case_takes_its_reading() -> None:
    text = "вчера с Геной ходили на рыбалку"
    assert _people(text, "ru", {"геной": "friend"}) == [("Гена", "friend")]


def test_only_the_word_of_each_name_says_its_relation() -> None:
    text = "Kieran and Beth came round for tea"
    assert _people(text, "en", {"beth": "friend"}) == [("Kieran", None), ("Beth", "friend")]


@pytest.mark.parametrize(
    ("odds", "relation"),
    [
        ({"friend": 0.75, "son": 0.05, "none": 0.20}, "friend"),
        ({"friend": 0.65, "son": 0.05, "none": 0.30}, None),  # below relation_likely
        ({"friend": 0.50, "none": 0.50}, None),  # not above "none" (nor likely enough)
        ({"none": 0.9, "son": 0.1}, None),
    ],
)
def test_the_likeliest_relation_must_reach_the_bar_and_beat_none(
    odds: dict[str, float], relation: str | None
) -> None:
    found = likeliest_relation(odds, DEFAULT_STRUCTURED.relation_likely)
    assert (found[0] if found else None) == relation


class _Reader:
    def __init__(
        self, relations: dict[str, dict[str, float]], names: dict[str, float] | None = None
    ) -> None:
        self._relations = relations
        self._names = names or {}

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading:
        return Reading({}, {}, self._names, self._relations)

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        return {t: self.reading(t, None) for t in texts}


def test_name_readings_pass_on_only_the_relations_read_likely_enough() -> None:
    reader = _Reader(
        {"kieran": {"colleague": 0.75, "none": 0.25}, "beth": {"friend": 0.65, "none": 0.35}}
    )
    assert name_readings(reader, "kieran and beth", None)["read_relations"] == {
        "kieran": ("colleague", 0.75)
    }


TOLD = (
    "sent my application to Te Ara Hauora last night. my team leader denise said she'd be my "
    "referee even tho she'll be gutted to lose me"
)


def _memories(denise: dict[str, float]) -> list[tuple[str, str, tuple[str, ...]]]:
    message = Message(id="m1", role=Role.USER, text=TOLD, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    reader = _Reader({"denise": denise}, {"denise": 0.99})  # the name head reads "denise" a name
    answer = structured_extraction([message], [], {}, reader, similarity_floor=0.0)
    return [(c.type.value, c.content, c.people) for c in answer.candidates]


def test_a_read_relation_gives_the_person_a_memory_of_the_words_around_their_name() -> None:
    memories = _memories({"manager": 0.9, "none": 0.1})
    assert ("person", "My team leader denise said she'd be my", ("Denise",)) in memories


def test_a_relation_read_below_the_bar_gives_no_person_memory() -> None:
    memories = _memories({"manager": 0.6, "none": 0.4})
    assert [m for m in memories if m[0] == "person"] == []


def test_relation_likely_one_leaves_relations_to_the_rules() -> None:
    reader = _Reader({"kieran": {"colleague": 1.0, "none": 0.0}})
    off = DEFAULT_STRUCTURED.model_copy(update={"relation_likely": 1.0})
    assert name_readings(reader, "kieran", None, off)["read_relations"] == {}
    assert name_readings(reader, "kieran", None)["read_relations"] == {"kieran": ("colleague", 1.0)}

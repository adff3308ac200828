"""The labelled message set for the structured memory extractor (tests/data/extraction).

Checks the schema of every record and the coverage floors from the labelling guide, so the set
cannot silently shrink or drift into labels the extractor's scorer does not understand."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[1] / "data" / "extraction" / "messages.jsonl"

TYPES = {"fact", "event", "emotional_note", "person", "open_loop", "none"}
MEMORY_TYPES = TYPES - {"none"}
VALENCES = {"positive", "negative", None}
RELATIONS = {
    "colleague", "friend", "boss", "manager", "partner", "wife", "husband", "girlfriend",
    "boyfriend", "ex", "mother", "father", "sister", "brother", "son", "daughter", "grandmother",
    "grandfather", "aunt", "uncle", "cousin", "neighbour", "doctor", "therapist", "teacher",
    "classmate", "roommate", "client",
}  # fmt: skip
TOP_KEYS = {"id", "lang", "split", "sent_at", "text", "recent", "expect"}
EXPECT_KEYS = {"type", "valence", "dates", "people", "cause", "contradicts"}
ID_RE = re.compile(r"^(en|ru)-\d{3}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")

Record = dict[str, Any]


def _load() -> list[Record]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


RECORDS = _load()
# The split was assigned by position over the first records (README, "Splits"); the rounds
# written later for the extractor's cues ("Added to train later") are train only, so the eval
# split stays what it was and the split's shares are checked over the assigned records.
ASSIGNED = 483
BY_POSITION = RECORDS[:ASSIGNED]


def _has_dates(r: Record) -> bool:
    return bool(r["expect"]["dates"])


def _has_people(r: Record) -> bool:
    return bool(r["expect"]["people"])


def _has_relation(r: Record) -> bool:
    return any(p["relation"] is not None for p in r["expect"]["people"])


def _has_cause(r: Record) -> bool:
    return bool(r["expect"]["cause"])


def _contradicts(r: Record) -> bool:
    return bool(r["expect"]["contradicts"])


def _recent_not_contradicted(r: Record) -> bool:
    return bool(r["recent"]) and not r["expect"]["contradicts"]


FIELDS: dict[str, Callable[[Record], bool]] = {
    "dates": _has_dates,
    "people": _has_people,
    "relation": _has_relation,
    "cause": _has_cause,
    "contradicts": _contradicts,
    "recent_not_contradicted": _recent_not_contradicted,
}

# Coverage floors over the whole file (the labelling guide in tests/data/extraction/README.md).
FIELD_FLOORS = {
    "dates": 70,
    "people": 70,
    "relation": 40,
    "cause": 45,
    "contradicts": 50,
    "recent_not_contradicted": 40,
}


def _check_record(r: Record) -> None:
    rid = r.get("id")
    assert set(r) == TOP_KEYS, rid
    assert isinstance(rid, str) and ID_RE.match(rid), rid
    assert r["lang"] in {"en", "ru"} and rid.startswith(r["lang"] + "-"), rid
    assert r["split"] in {"train", "eval"}, rid
    sent = dt.datetime.fromisoformat(r["sent_at"])
    assert sent.tzinfo is not None, rid
    assert sent.year == 2026, rid
    text = r["text"]
    assert isinstance(text, str) and text.strip(), rid
    assert bool(CYRILLIC.search(text)) == (r["lang"] == "ru"), rid

    recent = r["recent"]
    assert isinstance(recent, list) and len(recent) <= 3, rid
    for n, mem in enumerate(recent, 1):
        assert set(mem) == {"id", "type", "content"}, rid
        assert mem["id"] == f"r-{rid}-{n}", rid
        assert mem["type"] in MEMORY_TYPES, rid
        assert isinstance(mem["content"], str) and mem["content"].strip(), rid

    e = r["expect"]
    assert set(e) == EXPECT_KEYS, rid
    assert e["type"] in TYPES, rid
    assert e["valence"] in VALENCES, rid
    if e["type"] == "emotional_note":
        assert e["valence"] is not None, rid
    assert isinstance(e["cause"], bool), rid

    assert isinstance(e["dates"], list), rid
    for day in e["dates"]:
        assert isinstance(day, str) and DATE_RE.match(day), rid
        parsed = dt.date.fromisoformat(day)
        assert abs((parsed - sent.date()).days) <= 366, rid
    assert len(set(e["dates"])) == len(e["dates"]), rid

    assert isinstance(e["people"], list), rid
    for person in e["people"]:
        assert set(person) == {"name", "relation"}, rid
        assert isinstance(person["name"], str) and person["name"].strip(), rid
        # English names appear as written; Russian ones may be declined in the text.
        assert person["name"].lower() in text.lower() or r["lang"] == "ru", rid
        assert person["relation"] is None or person["relation"] in RELATIONS, rid

    recent_ids = {mem["id"] for mem in recent}
    assert isinstance(e["contradicts"], list), rid
    assert set(e["contradicts"]) <= recent_ids, rid
    assert len(set(e["contradicts"])) == len(e["contradicts"]), rid

    if e["type"] == "none":
        assert not e["people"] and not e["contradicts"] and e["valence"] is None, rid


@pytest.mark.parametrize("record", RECORDS, ids=[str(r.get("id")) for r in RECORDS])
def test_record_schema(record: Record) -> None:
    _check_record(record)


def test_ids_and_texts_are_unique() -> None:
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids))
    texts = [r["text"] for r in RECORDS]
    assert len(texts) == len(set(texts))


def test_language_floors() -> None:
    langs = Counter(r["lang"] for r in RECORDS)
    assert langs["en"] >= 170
    assert langs["ru"] >= 170


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_type_floors_and_language_balance(kind: str) -> None:
    per_lang = Counter(r["lang"] for r in RECORDS if r["expect"]["type"] == kind)
    total = per_lang["en"] + per_lang["ru"]
    assert total >= 45, (kind, per_lang)
    assert min(per_lang["en"], per_lang["ru"]) >= 0.4 * total, (kind, per_lang)


@pytest.mark.parametrize("field", sorted(FIELD_FLOORS))
def test_field_floors(field: str) -> None:
    has = FIELDS[field]
    per_lang = Counter(r["lang"] for r in RECORDS if has(r))
    total = per_lang["en"] + per_lang["ru"]
    assert total >= FIELD_FLOORS[field], (field, per_lang)
    assert min(per_lang["en"], per_lang["ru"]) >= 0.3 * total, (field, per_lang)


def _eval_share(rows: list[Record]) -> float:
    evals = sum(1 for r in rows if r["split"] == "eval")
    return evals / len(rows)


def test_split_is_about_sixty_forty() -> None:
    assert 0.35 <= _eval_share(BY_POSITION) <= 0.45


def test_messages_added_later_are_train_only() -> None:
    assert all(r["split"] == "train" for r in RECORDS[ASSIGNED:])


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("kind", sorted(TYPES))
def test_split_is_stratified_by_type_and_language(lang: str, kind: str) -> None:
    rows = [r for r in BY_POSITION if r["lang"] == lang and r["expect"]["type"] == kind]
    assert 0.25 <= _eval_share(rows) <= 0.55, (lang, kind)


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_split_is_stratified_by_field(field: str) -> None:
    rows = [r for r in BY_POSITION if FIELDS[field](r)]
    assert 0.25 <= _eval_share(rows) <= 0.55, field
    for lang in ("en", "ru"):
        assert any(r["split"] == "eval" and r["lang"] == lang for r in rows), (field, lang)
        assert any(r["split"] == "train" and r["lang"] == lang for r in rows), (field, lang)


def test_every_positive_and_negative_valence_is_in_both_splits() -> None:
    for valence in ("positive", "negative"):
        splits = {r["split"] for r in RECORDS if r["expect"]["valence"] == valence}
        assert splits == {"train", "eval"}, valence

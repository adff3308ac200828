"""The persona corpus of tests/data/extraction/personas/ (issue 34): new writers, split by
persona. Checks its size and language mix, that train, dev and test personas are disjoint and
cover every file, and the schema of every record, so the corpus cannot shrink or drift into
labels the scorer does not understand."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_extraction_labels import EXPECT_KEYS, MEMORY_TYPES, RELATIONS, TYPES

pytestmark = pytest.mark.unit

PERSONAS = Path(__file__).resolve().parents[1] / "data" / "extraction" / "personas"
SPLITS: dict[str, list[str]] = json.loads((PERSONAS / "splits.json").read_text())
TOP_KEYS = {"id", "persona", "lang", "sent_at", "text", "recent", "tags", "expect"}
TAGS = {
    "lowercase", "no_punct", "typo", "emoji", "caps", "run_on", "sarcasm", "reported_speech",
    "question_to_assistant", "small_talk", "mixed", "conditional", "moved_plan",
    "cancelled_plan", "relapse", "other_person_change", "name_first", "name_lowercase",
    "name_caps", "possessive_name", "place_or_org", "everyday_relation", "lookalike",
}  # fmt: skip
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _records(persona: str) -> list[dict[str, Any]]:
    lines = (PERSONAS / f"{persona}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


ALL = {p: _records(p) for split in SPLITS.values() for p in split}
# Writers outside the splits (tests/data/extraction/README.md, "Supplement"): same schema.
SUPPLEMENT = PERSONAS.parent / "supplement"
EXTRA = {
    f.stem: [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line]
    for f in sorted(SUPPLEMENT.glob("*.jsonl"))
}


def test_the_splits_are_disjoint_and_name_every_file() -> None:
    named = [p for split in ("train", "dev", "test") for p in SPLITS[split]]
    assert len(named) == len(set(named)) >= 12
    assert set(named) == {f.stem for f in PERSONAS.glob("*.jsonl")}
    for split in ("dev", "test"):  # each held-out split has writers of both languages
        assert {ALL[p][0]["lang"] for p in SPLITS[split]} == {"en", "ru"}


def test_size_and_language_mix() -> None:
    rows = [r for records in ALL.values() for r in records]
    assert len(rows) >= 1500
    langs = Counter(r["lang"] for r in rows)
    assert langs["ru"] / len(rows) >= 0.40


@pytest.mark.parametrize("persona", sorted(ALL | EXTRA))
def test_every_record_follows_the_schema(persona: str) -> None:
    records = (ALL | EXTRA)[persona]
    assert len({r["lang"] for r in records}) == 1
    previous: dt.datetime | None = None
    for n, r in enumerate(records, 1):
        assert set(r) == TOP_KEYS, r["id"]
        assert r["id"] == f"{persona}-{n:03d}" and r["persona"] == persona
        sent = dt.datetime.fromisoformat(r["sent_at"])
        assert sent.utcoffset() is not None
        assert previous is None or sent >= previous, r["id"]
        previous = sent
        assert set(r["tags"]) <= TAGS, r["id"]
        recent_ids = set()
        for m in r["recent"]:
            assert m["type"] in MEMORY_TYPES and m["content"].strip(), r["id"]
            assert m["id"].startswith(f"r-{r['id']}-")
            recent_ids.add(m["id"])
        e = r["expect"]
        assert set(e) == EXPECT_KEYS, r["id"]
        assert e["type"] in TYPES
        assert e["valence"] in {"positive", "negative", None}
        assert all(DATE_RE.match(d) for d in e["dates"])
        assert set(e["contradicts"]) <= recent_ids, r["id"]
        for person in e["people"]:
            assert person["relation"] in RELATIONS | {None}, r["id"]
        if e["type"] == "none":
            assert e["valence"] is None and not e["people"] and not e["dates"], r["id"]
            assert not e["cause"] and not e["contradicts"], r["id"]
        if e["type"] == "emotional_note":
            assert e["valence"] is not None, r["id"]

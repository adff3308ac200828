"""Contradictions read by a pair reader (issue 34): through `structured_extraction`, a message the
change head gives some change at least `pair_gate` is read against at most `pair_memories` older
facts, events and open loops, and one read at `pair_likely` or above is contradicted, beside
what the rules read; both sides of each threshold, and nothing at all without a reader, a change
head or the message's vector."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType
from selfimprint.domain.structured.changes import ChangeHead
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.head import Softmax
from selfimprint.domain.structured.pairs import most_related, read_contradictions

pytestmark = pytest.mark.unit

# No rule reads a plan called off here ("pulling the pin"), nor a job changed.
TEXT = "pulling the pin on yallingup, cant justify it with the ute needing a new clutch"
TRIP = RecentMemory(
    id="trip", type=NodeType.EVENT, content="Booked a shack at Yallingup for Easter."
)
JOB = RecentMemory(id="job", type=NodeType.FACT, content="I work at the Karratha mine.")
RULED = RecentMemory(id="ruled", type=NodeType.FACT, content="I smoke about ten a day.")
MESSAGE = Message(id="m1", role=Role.USER, text=TEXT, sent_at=datetime(2026, 3, 2, tzinfo=UTC))


class Table:
    """A pair reader that reads each memory's odds from a table and counts the pairs read."""

    def __init__(self, odds: dict[str, float]) -> None:
        self.odds, self.read = odds, 0

    def contradiction_odds(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.read += len(pairs)
        return [self.odds.get(memory, 0.0) for memory, _ in pairs]


def _head(change: float) -> ChangeHead:
    """A change head that gives "some slot changed" `change` from any vector."""
    logit = math.log(change / (1.0 - change))
    return ChangeHead("test", Softmax(("none", "plan"), ((0.0,), (0.0,)), (0.0, logit)))


def _contradicted(
    reader: Table | None,
    change: float | None,
    recent: list[RecentMemory],
    text: str = TEXT,
    *,
    vector: bool = True,
) -> set[str]:
    message = MESSAGE.model_copy(update={"text": text})
    vectors = dict.fromkeys(texts_to_embed([message], recent), [1.0])
    if not vector:
        del vectors[text]
    head = _head(change) if change is not None else None
    answer = structured_extraction(
        [message], recent, vectors, None, similarity_floor=0.5, changes=head, pairs=reader
    )
    return {i for c in answer.candidates for i in c.contradicts_memory_ids}


def test_a_memory_read_at_pair_likely_is_contradicted_and_one_below_is_not() -> None:
    likely = DEFAULT_STRUCTURED.pair_likely
    odds = {TRIP.content: likely, JOB.content: likely - 0.01}
    assert _contradicted(Table(odds), 0.9, [TRIP, JOB]) == {"trip"}
    assert _contradicted(Table({TRIP.content: likely - 0.01}), 0.9, [TRIP, JOB]) == set()
    assert _contradicted(None, 0.9, [TRIP, JOB]) == set()  # the rules and the head alone


def test_the_reader_runs_only_where_the_change_head_passes_the_gate() -> None:
    gate = DEFAULT_STRUCTURED.pair_gate
    passing, short = Table({TRIP.content: 0.99}), Table({TRIP.content: 0.99})
    assert _contradicted(passing, gate + 0.01, [TRIP, JOB]) == {"trip"}
    assert passing.read == min(DEFAULT_STRUCTURED.pair_memories, 2)
    assert _contradicted(short, gate - 0.01, [TRIP, JOB]) == set()
    assert short.read == 0
    # No change head, or no vector of the message: the gate cannot be read, nothing is.
    for unread in (Table({TRIP.content: 0.99}), Table({TRIP.content: 0.99})):
        assert _contradicted(unread, None, [TRIP]) == set()
        assert _contradicted(unread, 0.9, [TRIP], vector=False) == set()
        assert unread.read == 0


def test_what_the_rules_read_stays_beside_what_the_reader_adds() -> None:
    text = "quit smoking for good last week. also " + TEXT
    both = _contradicted(Table({TRIP.content: 0.99}), 0.9, [TRIP, RULED], text)
    assert both == {"trip", "ruled"}
    assert _contradicted(Table({}), 0.9, [TRIP, RULED], text) == {"ruled"}


def test_read_contradictions_keeps_the_memories_order_and_reads_none_without_memories() -> None:
    table = Table({"a": 0.95, "b": 0.2, "c": 0.91})
    older = [("3", "c"), ("1", "a"), ("2", "b")]
    assert read_contradictions("x", older, table, likely=0.9) == ("3", "1")
    assert read_contradictions("x", [], table, likely=0.9) == ()
    assert table.read == 3


def test_feelings_and_people_are_not_read_against_the_message() -> None:
    feeling = RecentMemory(
        id="feel", type=NodeType.EMOTIONAL_NOTE, content="So excited for Easter!"
    )
    mate = RecentMemory(id="mate", type=NodeType.PERSON, content="Dazza is my mate from work.")
    reader = Table({feeling.content: 0.99, mate.content: 0.99, TRIP.content: 0.99})
    assert _contradicted(reader, 0.9, [feeling, mate, TRIP]) == {"trip"}
    assert reader.read == 1


def test_the_reader_reads_the_memories_sharing_most_words_up_to_pair_memories() -> None:
    older = [
        ("a", "I work at the Karratha mine."),
        ("b", "Booked a shack at Yallingup for Easter."),
        ("c", "The ute needs a new clutch."),
        ("d", "My partner Jess works at the hospital."),
    ]
    assert most_related(TEXT, older, 2) == [older[1], older[2]]  # yallingup; ute, clutch
    assert most_related(TEXT, older, 3) == [older[0], older[1], older[2]]  # then the latest
    assert most_related(TEXT, older, 9) == older
    limit = DEFAULT_STRUCTURED.pair_memories
    many = [
        RecentMemory(id=f"f{i}", type=NodeType.FACT, content=f"Fact number {i} about bowls.")
        for i in range(limit + 1)
    ]
    reader = Table({TRIP.content: 0.99})
    assert _contradicted(reader, 0.9, [*many, TRIP]) == {"trip"}  # it names Yallingup
    assert reader.read == limit

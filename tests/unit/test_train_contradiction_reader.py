"""scripts/train_contradiction_reader.py (issue 34): the pairs it trains on and scores with
`--folds`. A scored message's distractors are its writer's earlier memories, never one of its
own labelled memories, and never labelled contradicted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.models import NodeType
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

training = load_script("train_contradiction_reader")
data = load_script("extraction_data")


def _row(n: int, persona: str, recent: list[str], contradicts: set[int]) -> object:
    memories = tuple(
        RecentMemory(id=f"r-{persona}-{n}-{k}", type=NodeType.FACT, content=text)
        for k, text in enumerate(recent)
    )
    return data.Labelled(
        id=f"{persona}-{n:03d}", lang="en", split="train", persona=persona,
        sent_at=datetime(2026, 1, n, tzinfo=UTC), text=f"message {n}", recent=memories,
        type="event", valence=None, dates=frozenset(), people=(), cause=False,
        contradicts=frozenset(f"r-{persona}-{n}-{k}" for k in contradicts),
    )  # fmt: skip


def test_distractors_are_the_writers_earlier_memories_and_never_contradicted() -> None:
    rows = [
        _row(1, "a", ["I live in Leeds.", "I work at Asda."], set()),
        _row(2, "a", ["I live in Leeds."], {0}),  # moved: contradicts the home
        _row(3, "b", ["I smoke."], set()),  # another writer's memories are never drawn
        _row(4, "a", [], set()),  # nothing recent: no pair at all
    ]
    pairs = training.pairs_of(rows, distractors=8, seed=7)
    second = [p for p in pairs if p.row.id == "a-002"]
    assert [(p.memory, p.contradicted, p.distractor) for p in second] == [
        ("I live in Leeds.", True, False),
        ("I work at Asda.", False, True),
    ]
    assert [p.memory for p in pairs if p.row.id == "b-003"] == ["I smoke."]
    assert not [p for p in pairs if p.row.id == "a-004"]

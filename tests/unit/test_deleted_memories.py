"""How long deleted memories' ids are remembered (`domain.deleted_memories`): one entry per id,
none past the retention, never more than the cap (the newest kept), and no tuning below the
window the list exists for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from selfimprint.domain.deleted_memories import DeletedMemory, DeletedMemoryConfig, kept
from selfimprint.domain.tuning import DomainTuning

pytestmark = pytest.mark.unit

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def _at(memory_id: str, days_ago: float) -> DeletedMemory:
    return DeletedMemory(id=memory_id, deleted_at=NOW - days_ago * DAY)


def test_ids_older_than_the_retention_go_and_the_rest_stay_oldest_first() -> None:
    config = DeletedMemoryConfig(retention=30 * DAY)
    entries = [_at("b", 1), _at("old", 31), _at("a", 29), _at("edge", 30)]
    assert [e.id for e in kept(entries, NOW, config)] == ["a", "b"]


def test_the_cap_keeps_the_newest_and_an_id_deleted_twice_counts_once() -> None:
    config = DeletedMemoryConfig(max_ids=2)
    entries = [_at("a", 3), _at("b", 2), _at("a", 0.5), _at("c", 1)]
    assert kept(entries, NOW, config) == (_at("c", 1), _at("a", 0.5))


def test_the_retention_cannot_be_tuned_below_the_retry_window() -> None:
    with pytest.raises(ValidationError):
        DeletedMemoryConfig(retention=timedelta(hours=2))
    tuning = DomainTuning.model_validate({"deletions": {"retention": "P90D", "max_ids": 100}})
    assert tuning.deletions == DeletedMemoryConfig(retention=90 * DAY, max_ids=100)

"""How long the ids of memories the user deleted one by one are remembered (issue 16).

`DELETE /v1/users/{u}/memories/{id}` remembers the id on the user's profile so that a write
planned before the delete cannot bring the memory back when it commits after it: memory ids are
derived from their messages (`ingestion.identity.memory_id`), so a retried `apply_extraction`
writes the same id again, and a sleep operation whose plan (or model answer) named the memory
commits its writes later. The writers that consult the list are the graph store's `upsert`
(nodes and edges), `record_contradiction` and the sleep's `apply_sleep_writes`; the API's
DELETE reads it to answer a repeated DELETE 204 rather than 404.

The longest time such a write can still commit after the delete (the window; see
docs/decisions.md, "Bounded storage"):
- an ingestion apply retried by Temporal (`INGESTION_GRAPH`: seconds between attempts, no
  attempt limit, so as long as the apply keeps failing or its workers are down);
- a sleep operation committing a plan or a model answer read before the delete (hypothesis
  proposals, stance verdicts): about two hours with every retry of the model and graph
  activities (`SLEEP_MODEL`, `SLEEP_GRAPH`), again plus any worker outage;
- the re-extraction of messages that an apply which crashed after its upsert left pending: the
  lifecycle's next reconcile. An extracted message is never extracted again (its state is set in
  the apply), and a later restatement has other source messages, hence another id.
Hours, or a worker outage: the retention below is a month, far beyond both. What it does not
cover: pending messages of a user whose lifecycle does not run for longer than the retention
(ended by an operator after a crashed apply) and whose re-extraction words a memory exactly
as before.

The rule (`kept`): an id is kept `retention` after its (latest) deletion; of those, at most
`max_ids`, the most recently deleted (the ones a pending write is likeliest to name). It is
applied whenever an id is added, so the stored list never holds more than `max_ids`. Past the
retention a repeated DELETE of the id answers 404 (the memory is gone either way).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import AwareDatetime, MemoryId

# The shortest retention an operator may set: longer than the window with every activity retry
# (hours), so that no tuning file can reopen the race the list closes.
MIN_RETENTION = timedelta(days=1)


class DeletedMemoryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Project choice: a month, many times the longest window in which a write planned before
    # the delete can still commit (about two hours of activity retries, or a worker outage:
    # selfimprint/domain/deleted_memories.py).
    retention: timedelta = timedelta(days=30)
    # Project choice: a hard cap whatever the deletion rate (the profile is read by every
    # ingestion write); a person deletes far fewer in a month, an app that deletes in bulk
    # should forget a topic or erase the user instead.
    max_ids: Annotated[int, Field(ge=1, le=100_000)] = 5_000

    @model_validator(mode="after")
    def _longer_than_the_window(self) -> DeletedMemoryConfig:
        if self.retention < MIN_RETENTION:
            raise ValueError(f"retention must be at least {MIN_RETENTION} (the retry window)")
        return self


DEFAULT_DELETED_MEMORIES = DeletedMemoryConfig()


class DeletedMemory(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: MemoryId
    deleted_at: AwareDatetime


def kept(
    entries: Iterable[DeletedMemory],
    now: datetime,
    config: DeletedMemoryConfig = DEFAULT_DELETED_MEMORIES,
) -> tuple[DeletedMemory, ...]:
    """The remembered deletions after applying the rule at `now`, oldest first: one entry per
    id (its latest deletion), none deleted more than `retention` before `now`, at most
    `max_ids` (the newest)."""
    latest: dict[str, DeletedMemory] = {}
    for entry in entries:
        seen = latest.get(entry.id)
        if seen is None or entry.deleted_at > seen.deleted_at:
            latest[entry.id] = entry
    cutoff = now - config.retention
    fresh = sorted(
        (e for e in latest.values() if e.deleted_at > cutoff),
        key=lambda e: (e.deleted_at, e.id),
    )
    return tuple(fresh[-config.max_ids :])

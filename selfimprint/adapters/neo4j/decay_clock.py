"""The user's decay clock (spec §3.8.1) on their :UserProfile node.

Stored as integers (epoch microseconds): `decay_clock_last_us` (the last activity),
`decay_clock_pauses_us` (closed pauses, flattened as [start, end, start, end, ...]) and
`decay_clock_paused_us` (their total), so that a Cypher statement can compute the clock's
reading at `now` without a second round trip (`READING`): the read path filters expired
memories against the reading, not the wall clock (domain.decay, module docstring).

Only the user's lifecycle writes it, through the ingestion activity that applies a batch, so
writes are serialised per user; the read-modify-write below is still one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import epoch_parts, from_epoch_micros
from selfimprint.domain.decay import DEFAULT_DECAY, ActivityTimeline, DecayConfig, PausedInterval
from selfimprint.domain.users import UserScope

# Cypher, reusable at the start of a read statement: binds `clock` (the profile, or null) and
# `clock_now` (a DateTime: the decay clock's reading at $now_us). Needs $scope, $now_us and
# $grace_us. No profile or no activity yet: the reading is the wall clock.
READING = """
OPTIONAL MATCH (clock:UserProfile {scope: $scope})
WITH clock, coalesce(clock.decay_clock_last_us, $now_us) AS last_us,
     coalesce(clock.decay_clock_paused_us, 0) AS paused_us
WITH clock, $now_us - paused_us
     - CASE WHEN $now_us - last_us > $grace_us THEN $now_us - last_us - $grace_us ELSE 0 END
     AS reading_us
WITH clock, datetime({epochMillis: reading_us / 1000}) AS clock_now
"""

_READ = """
MATCH (p:UserProfile {scope: $scope})
RETURN p.decay_clock_last_us AS last_us, p.decay_clock_pauses_us AS pauses_us
"""

_WRITE = """
MATCH (p:UserProfile {scope: $scope})
SET p.decay_clock_last_us = $last_us, p.decay_clock_pauses_us = $pauses_us,
    p.decay_clock_paused_us = $paused_us
"""


def micros(value: datetime) -> int:
    seconds, nanos = epoch_parts(value)
    return seconds * 1_000_000 + nanos // 1_000


def reading_params(now: datetime, config: DecayConfig = DEFAULT_DECAY) -> dict[str, Any]:
    """The parameters `READING` needs besides $scope."""
    return {
        "now_us": micros(now),
        "grace_us": config.inactivity_pause_after // timedelta(microseconds=1),
    }


def timeline_from(last_us: int | None, pauses_us: Sequence[int] | None) -> ActivityTimeline:
    if last_us is None:
        return ActivityTimeline()
    flat = list(pauses_us or ())
    pauses = tuple(
        PausedInterval(start=from_epoch_micros(flat[i]), end=from_epoch_micros(flat[i + 1]))
        for i in range(0, len(flat) - 1, 2)
    )
    return ActivityTimeline(last_active_at=from_epoch_micros(last_us), pauses=pauses)


def _row(timeline: ActivityTimeline) -> dict[str, Any]:
    flat = [micros(t) for p in timeline.pauses for t in (p.start, p.end)]
    paused = sum(flat[i + 1] - flat[i] for i in range(0, len(flat), 2))
    last = timeline.last_active_at
    return {
        "last_us": micros(last) if last is not None else None,
        "pauses_us": flat,
        "paused_us": paused,
    }


async def read(tx: AsyncManagedTransaction, scope: UserScope) -> ActivityTimeline:
    record = await (await tx.run(_READ, scope=scope.key)).single()
    if record is None:
        return ActivityTimeline()
    return timeline_from(record["last_us"], record["pauses_us"])


async def record_activity(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    moments: Iterable[datetime],
    config: DecayConfig = DEFAULT_DECAY,
) -> ActivityTimeline:
    """Fold activity into the stored clock and return it. Idempotent: activity at or before
    the last recorded one changes nothing, so a retried batch writes the same clock."""
    before = await read(tx, scope)
    after = before
    for at in sorted(moments):
        after = after.record_activity(at, config)
    if after != before:
        await tx.run(_WRITE, scope=scope.key, **_row(after))
    return after

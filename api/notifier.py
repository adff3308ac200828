"""Telling users' lifecycle workflows about stored messages, after the answer.

The message log is the durable queue: a message is accepted once it is stored there, and the
lifecycle workflow is told about it right after the 202, off the request path (the outbox
pattern; the log is the outbox). Telling is a nudge, not the record: if this process dies before
the nudge lands, or gives up on it, the workflow still finds the messages in the log when it
reconciles (when it starts, when the user's next session starts, and every `reconcile_every`).

Nudges are coalesced per user: while one signal for a user is in flight, the next batches'
ids wait and go together in the following one, so a burst costs one signal (and one workflow
task) instead of one per request. A failing signal is retried with backoff for a while, then
dropped with a log line and a metric.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client import Counter, Gauge

from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger

log = get_logger(__name__)

NUDGES = Counter(
    "selfimprint_lifecycle_nudges_total",
    "Signals telling a lifecycle workflow about stored messages, by outcome",
    ["outcome"],
)
# Every outcome exists from start-up at 0: a counter's first increment after a restart is then a
# visible step to `increase()` (the LifecycleNudgesDropped alert would miss it otherwise).
for _outcome in ("sent", "retried", "dropped"):
    NUDGES.labels(_outcome)
UNTOLD_USERS = Gauge(
    "selfimprint_lifecycle_untold_users",
    "Users with stored messages their lifecycle workflow has not been told about yet",
)

Send = Callable[[UserScope, list[str], datetime], Awaitable[None]]


@dataclass
class _Untold:
    ids: dict[str, None] = field(default_factory=dict)  # an ordered set
    last_sent_at: datetime | None = None

    def add(self, ids: list[str], last_sent_at: datetime) -> None:
        self.ids.update(dict.fromkeys(ids))
        if self.last_sent_at is None or last_sent_at > self.last_sent_at:
            self.last_sent_at = last_sent_at


@dataclass(frozen=True)
class NotifierLimits:
    max_users: int = 10_000  # users waiting at once; beyond, nudges are left to the reconcile
    max_ids_per_user: int = 5_000
    ids_per_signal: int = 500  # keeps a signal's payload far below Temporal's blob limit
    first_retry_s: float = 0.2
    max_retry_s: float = 30.0
    give_up_after_s: float = 600.0
    send_timeout_s: float = 10.0


class LifecycleNotifier:
    def __init__(
        self,
        send: Send,
        limits: NotifierLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self._limits = limits or NotifierLimits()
        self._clock = clock
        self._untold: dict[UserScope, _Untold] = {}
        self._tasks: dict[UserScope, asyncio.Task[None]] = {}

    @property
    def untold_users(self) -> int:
        return len(self._untold)

    def notify(self, scope: UserScope, ids: list[str], last_sent_at: datetime) -> None:
        """Queue a nudge for these stored messages; returns at once."""
        untold = self._untold.get(scope)
        if untold is None:
            if len(self._untold) >= self._limits.max_users:
                self._drop(scope, len(ids), "too many users waiting")
                return
            untold = self._untold[scope] = _Untold()
        room = self._limits.max_ids_per_user - len(untold.ids)
        if room < len(ids):
            self._drop(scope, len(ids) - max(room, 0), "too many ids waiting for this user")
            ids = ids[: max(room, 0)]
        untold.add(ids, last_sent_at)
        UNTOLD_USERS.set(len(self._untold))
        if scope not in self._tasks:
            self._tasks[scope] = asyncio.create_task(self._tell(scope))

    async def settle(self, scope: UserScope) -> None:
        """Wait until this user's waiting nudges are sent (or dropped)."""
        task = self._tasks.get(scope)
        if task is not None:
            await asyncio.shield(task)

    async def close(self, timeout_s: float) -> int:
        """Give the waiting nudges `timeout_s` to land, then stop; returns how many users were
        left untold (their messages wait for the workflow's reconcile)."""
        tasks = list(self._tasks.values())
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout_s)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        left = len(self._untold)
        for scope, untold in list(self._untold.items()):
            self._drop(scope, len(untold.ids), "the API is shutting down")
        self._untold.clear()
        UNTOLD_USERS.set(0)
        return left

    async def _tell(self, scope: UserScope) -> None:
        delay = self._limits.first_retry_s
        failing_since: float | None = None
        try:
            while (untold := self._untold.get(scope)) is not None:
                batch = list(untold.ids)[: self._limits.ids_per_signal]
                assert untold.last_sent_at is not None
                try:
                    # A server that accepts connections but never answers must not hold
                    # this user's nudges for ever: it counts as a failure.
                    await asyncio.wait_for(
                        self._send(scope, batch, untold.last_sent_at), self._limits.send_timeout_s
                    )
                except Exception as exc:
                    if failing_since is None:
                        failing_since = self._clock()
                    if self._clock() - failing_since >= self._limits.give_up_after_s:
                        self._forget(scope)
                        self._drop(scope, len(untold.ids), f"signal failing: {exc}")
                        return
                    NUDGES.labels("retried").inc()
                    log.warning("lifecycle.nudge_failed", user_id=scope.user_id, error=str(exc))
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self._limits.max_retry_s)
                    continue
                NUDGES.labels("sent").inc()
                failing_since, delay = None, self._limits.first_retry_s
                for message_id in batch:
                    del untold.ids[message_id]  # ids added meanwhile stay for the next signal
                if not untold.ids:
                    self._forget(scope)
        finally:
            self._tasks.pop(scope, None)

    def _forget(self, scope: UserScope) -> None:
        self._untold.pop(scope, None)
        UNTOLD_USERS.set(len(self._untold))

    def _drop(self, scope: UserScope, count: int, reason: str) -> None:
        NUDGES.labels("dropped").inc()
        log.error(
            "lifecycle.nudge_dropped",
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            messages=count,
            reason=reason,
            note="the workflow's reconcile will find them in the message log",
        )

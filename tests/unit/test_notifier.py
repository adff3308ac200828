"""The API's nudges to lifecycle workflows: coalesced per user, retried, bounded, and given up
on (for the workflow's reconcile) rather than held for ever."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from api.notifier import LifecycleNotifier, NotifierLimits
from selfimprint.domain.users import UserScope

pytestmark = pytest.mark.unit

ANN = UserScope("t1", "ann")
BOB = UserScope("t1", "bob")
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
FAST = NotifierLimits(first_retry_s=0.001, max_retry_s=0.004)


class Workflows:
    """Records each signal; `gate` holds the next send until released."""

    def __init__(self) -> None:
        self.signals: list[tuple[UserScope, list[str], datetime]] = []
        self.failures = 0
        self.gate: asyncio.Event | None = None

    async def send(self, scope: UserScope, ids: list[str], last_sent_at: datetime) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            self.failures -= 1
            raise RuntimeError("temporal unavailable")
        self.signals.append((scope, ids, last_sent_at))


async def test_a_burst_for_one_user_costs_two_signals_not_one_per_batch() -> None:
    workflows = Workflows()
    workflows.gate = asyncio.Event()
    notifier = LifecycleNotifier(workflows.send, FAST)
    notifier.notify(ANN, ["m1"], T0)
    await asyncio.sleep(0)  # the first signal is in flight, held by the gate
    for i in range(2, 6):
        notifier.notify(ANN, [f"m{i}"], T0 + timedelta(minutes=i))
    workflows.gate.set()
    await notifier.settle(ANN)
    assert workflows.signals == [
        (ANN, ["m1"], T0),
        (ANN, ["m2", "m3", "m4", "m5"], T0 + timedelta(minutes=5)),
    ]
    assert notifier.untold_users == 0


async def test_users_are_told_separately() -> None:
    workflows = Workflows()
    notifier = LifecycleNotifier(workflows.send, FAST)
    notifier.notify(ANN, ["a1"], T0)
    notifier.notify(BOB, ["b1", "b2"], T0)
    await notifier.settle(ANN)
    await notifier.settle(BOB)
    assert sorted((s.user_id, ids) for s, ids, _ in workflows.signals) == [
        ("ann", ["a1"]),
        ("bob", ["b1", "b2"]),
    ]


async def test_a_failing_signal_is_retried_until_it_lands() -> None:
    workflows = Workflows()
    workflows.failures = 3
    notifier = LifecycleNotifier(workflows.send, FAST)
    notifier.notify(ANN, ["m1", "m2"], T0)
    await notifier.settle(ANN)
    assert workflows.signals == [(ANN, ["m1", "m2"], T0)]
    assert workflows.failures == 0


async def test_a_signal_failing_past_the_deadline_is_dropped_for_the_reconcile() -> None:
    now = [0.0]
    workflows = Workflows()
    workflows.failures = 1_000

    async def failing(scope: UserScope, ids: list[str], at: datetime) -> None:
        now[0] += 100.0  # each attempt takes 100 s of the fake clock
        await workflows.send(scope, ids, at)

    limits = NotifierLimits(first_retry_s=0.001, max_retry_s=0.001, give_up_after_s=300.0)
    notifier = LifecycleNotifier(failing, limits, clock=lambda: now[0])
    notifier.notify(ANN, ["m1"], T0)
    await notifier.settle(ANN)
    assert workflows.signals == []
    assert 1_000 - workflows.failures == 4  # failed at 100 s, 200 s, 300 s, given up at 400 s
    assert notifier.untold_users == 0


async def test_ids_go_in_chunks_no_bigger_than_the_signal_limit() -> None:
    workflows = Workflows()
    notifier = LifecycleNotifier(workflows.send, NotifierLimits(ids_per_signal=2))
    notifier.notify(ANN, ["m1", "m2", "m3", "m1"], T0)
    await notifier.settle(ANN)
    assert [ids for _, ids, _ in workflows.signals] == [["m1", "m2"], ["m3"]]


async def test_waiting_users_and_ids_are_bounded() -> None:
    workflows = Workflows()
    workflows.gate = asyncio.Event()
    notifier = LifecycleNotifier(workflows.send, NotifierLimits(max_users=1, max_ids_per_user=2))
    notifier.notify(ANN, ["m1"], T0)
    notifier.notify(BOB, ["b1"], T0)  # no room: left to the reconcile
    notifier.notify(ANN, ["m2", "m3"], T0)  # one of the two fits
    assert notifier.untold_users == 1
    workflows.gate.set()
    await notifier.settle(ANN)
    assert [(s.user_id, ids) for s, ids, _ in workflows.signals] == [("ann", ["m1", "m2"])]


async def test_close_waits_a_while_then_reports_who_was_left_untold() -> None:
    workflows = Workflows()
    workflows.gate = asyncio.Event()  # never released: Temporal hangs
    notifier = LifecycleNotifier(workflows.send, FAST)
    notifier.notify(ANN, ["m1"], T0)
    notifier.notify(BOB, ["b1"], T0)
    assert await notifier.close(timeout_s=0.01) == 2
    assert notifier.untold_users == 0
    assert workflows.signals == []


async def test_a_signal_that_never_answers_counts_as_a_failure() -> None:
    """A Temporal that accepts the connection and then says nothing must not hold a user's
    nudges for ever: each attempt times out, and the deadline drops them."""
    now = [0.0]
    attempts = []

    async def hangs(scope: UserScope, ids: list[str], at: datetime) -> None:
        attempts.append(ids)
        now[0] += 100.0
        await asyncio.Event().wait()

    limits = NotifierLimits(
        first_retry_s=0.001, max_retry_s=0.001, give_up_after_s=150.0, send_timeout_s=0.01
    )
    notifier = LifecycleNotifier(hangs, limits, clock=lambda: now[0])
    notifier.notify(ANN, ["m1"], T0)
    await asyncio.wait_for(notifier.settle(ANN), timeout=5)
    assert len(attempts) == 3 and notifier.untold_users == 0

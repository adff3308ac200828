"""Issue 35: a pass beginning closes the records other passes left running."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.sleep_writes import SleepRunRecord, SleepStatus, closed_orphan

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, tzinfo=UTC)
T1 = datetime(2026, 3, 3, tzinfo=UTC)


def run(run_id: str, status: SleepStatus, at: datetime = T0) -> SleepRunRecord:
    return SleepRunRecord(run_id=run_id, depth="full", status=status, started_at=at)


def test_a_beginning_pass_closes_another_running_record_as_failed() -> None:
    beginning = run("new", SleepStatus.RUNNING, T1)
    closed = closed_orphan(run("old", SleepStatus.RUNNING), beginning)
    assert closed is not None
    assert (closed.status, closed.finished_at) == (SleepStatus.FAILED, T1)
    assert closed.summary.startswith("Sleep failed: orphaned") and "new" in closed.summary


def test_only_other_running_records_are_orphans() -> None:
    beginning = run("new", SleepStatus.RUNNING, T1)
    assert closed_orphan(run("new", SleepStatus.RUNNING), beginning) is None  # its own record
    for status in (SleepStatus.COMPLETED, SleepStatus.FAILED, SleepStatus.SKIPPED):
        assert closed_orphan(run("old", status), beginning) is None
    # Closing a pass (completed, failed) closes nothing else.
    assert closed_orphan(run("old", SleepStatus.RUNNING), run("new", SleepStatus.COMPLETED)) is None

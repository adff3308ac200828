"""`selfimprint sleep retry|run --wait` waits for the requested pass's outcome, not its start."""

from __future__ import annotations

from typing import Any

import pytest

from selfimprint.cli.sleep import _pass_finished
from workflows.lifecycle_state import LifecycleState

pytestmark = pytest.mark.unit

FAILED = {
    "run_id": "sleep-t-u-20261202T021132-1",
    "status": "failed",
    "depth": "full",
    "summary": "Sleep failed: Activity task failed",
    "started_at": "2026-12-02T02:11:32Z",
    "finished_at": "2026-12-02T02:19:49Z",
}


def state(**fields: Any) -> LifecycleState:
    base = {"tenant_id": "t", "user_id": "u", "queues": {"cpu": "c", "gpu": "g"}}
    return LifecycleState.model_validate({**base, **fields})


def test_a_retry_is_not_done_while_its_pass_runs() -> None:
    before = state(sleep={"seq": 1, "last": FAILED})
    queued = state(sleep={"seq": 1, "last": FAILED, "requested": "full"})
    running = state(sleep={"seq": 2, "last": FAILED})  # seen on the dev stack: the old failure
    assert not _pass_finished(before, queued)
    assert not _pass_finished(before, running)
    retried = {**FAILED, "run_id": "sleep-t-u-20261202T022222-2", "status": "completed"}
    assert _pass_finished(before, state(sleep={"seq": 2, "last": retried}))


def test_the_first_pass_is_done_once_it_has_an_outcome() -> None:
    before = state()
    assert not _pass_finished(before, state(sleep={"seq": 1}))
    assert _pass_finished(before, state(sleep={"seq": 1, "last": FAILED}))

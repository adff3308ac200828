"""`selfimprint sleep status` shows what an operator must act on: queued, failed forget passes."""

from __future__ import annotations

from activities.forget import ForgetInput
from selfimprint.cli.sleep import _describe
from workflows.lifecycle_state import ForgetRecord, ForgetReplay, LifecycleState, TaskQueues


def state(**fields: object) -> LifecycleState:
    base = LifecycleState(tenant_id="t1", user_id="u1", queues=TaskQueues(cpu="c", gpu="g"))
    return base.model_copy(update=fields)


def test_no_forget_line_when_nothing_is_queued_or_failed() -> None:
    assert "forget:" not in _describe(state())


def test_queued_and_failed_forget_passes_are_shown() -> None:
    queued = ForgetInput(tenant_id="t1", user_id="u1", topic="Google", dry_run=False)
    replay = ForgetReplay(forget=queued)
    forgets = ForgetRecord(replays=[replay], last_replay_failed="boom")
    text = _describe(state(forgets=forgets))
    assert "second passes queued: 'Google'; last failed: boom" in text

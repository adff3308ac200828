"""`LifecycleState` is grouped now, and still reads the flat shape that running workflows carry:
their start and continue-as-new inputs, and an older worker's `state` answer."""

from __future__ import annotations

import json
from base64 import b64decode
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter

from selfimprint.domain.sleep_policy import ActivityLog, DailyMessages, Depth, Plan
from selfimprint.domain.sleep_writes import SleepStatus
from selfimprint.domain.users import Tier, UserProfile
from workflows.lifecycle_state import (
    IngestionStats,
    LifecycleInput,
    LifecycleState,
    SleepCounts,
    TaskQueues,
)

pytestmark = pytest.mark.unit

HISTORIES = Path(__file__).parents[1] / "workflows" / "histories"
T = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
FORGET = {"tenant_id": "t1", "user_id": "u1", "topic": "Google", "dry_run": False}
LAST = {
    "run_id": "sleep-t1-u1-20260302T093000-4",
    "status": "failed",
    "depth": "light",
    "summary": "Sleep failed: boom",
    "started_at": "2026-03-02T09:30:00Z",
    "finished_at": "2026-03-02T09:31:00Z",
}
# The previous release's flat state, every field away from its default.
FLAT: dict[str, Any] = {
    "tenant_id": "t1",
    "user_id": "u1",
    "queues": {"cpu": "c", "gpu": "g"},
    "profile": {"plan": "paid", "time_zone": "Europe/Moscow"},
    "pending_message_ids": ["m3", "m4"],
    "ingestion": {"messages_received": 7, "memories_ungrounded": 2, "last_message_at": T},
    "reconciled": True,
    "tier": "warm",
    "paused": True,
    "activity": {"days": [{"day": "2026-03-02", "messages": 7}], "last_message_at": T},
    "timeline": {"last_active_at": None, "pauses": []},  # dropped before this release
    "tracking_since": T,
    "last_active_at": T,
    "session_count": 3,
    "messages_since_sleep": 5,
    "last_sleep_at": T,
    "next_sleep": {"at": T, "depth": "full", "kind": None, "level": "daily", "reason": "why"},
    "last_sleep": LAST,
    "sleeps": {"full": 2, "failed": 1, "compactions": 1},
    "sleep_seq": 4,
    "sleep_requested": "full",
    "rehydrate_requested": True,
    "last_compaction_at": T,
    "last_entropy": 0.42,
    "soft_reset_requested": True,
    "feedback_signals": 2,
    "feedback_ids": ["f1", "f2"],
    "last_soft_reset": "2026-03-01 03:00: archived 3 memories, kept 2",
    "last_soft_reset_failed": True,
    "last_reconcile_at": T,
    "forget_replays": [{"forget": FORGET, "after_messages": ["m3"]}],
    "last_operation_ended_at": T,
    "last_forget_replay_failed": "2026-03-02 09:30: no archive",
    "publish_search_attributes": False,
}


def test_every_flat_field_lands_in_its_group() -> None:
    state = LifecycleState.model_validate(FLAT)
    assert (state.tier, state.paused, state.rehydrate_requested) == (Tier.WARM, True, True)
    assert state.profile.plan is Plan.PAID and not state.publish_search_attributes
    activity = state.activity
    assert activity.log.days == (DailyMessages(day=date(2026, 3, 2), messages=7),)
    assert activity.log.last_message_at == T
    assert (activity.tracking_since, activity.last_active_at, activity.session_count) == (T, T, 3)
    ingestion = state.ingestion
    assert ingestion.pending_message_ids == ["m3", "m4"]
    assert ingestion.stats == IngestionStats(
        messages_received=7, memories_ungrounded=2, last_message_at=T
    )
    assert (ingestion.reconciled, ingestion.last_reconcile_at) == (True, T)
    sleep = state.sleep
    assert (sleep.new_messages, sleep.last_at, sleep.seq, sleep.requested) == (5, T, 4, Depth.FULL)
    assert sleep.next is not None and sleep.next.reason == "why"
    assert sleep.last is not None and sleep.last.status is SleepStatus.FAILED
    assert sleep.counts == SleepCounts(full=2, failed=1, compactions=1)
    compaction = state.compaction
    assert (compaction.last_at, compaction.last_entropy) == (T, 0.42)
    assert compaction.soft_reset_requested and compaction.last_soft_reset_failed
    assert (compaction.feedback_signals, compaction.feedback_ids) == (2, ["f1", "f2"])
    assert compaction.last_soft_reset == FLAT["last_soft_reset"]
    forgets = state.forgets
    assert [r.forget.topic for r in forgets.replays] == ["Google"]
    assert forgets.replays[0].after_messages == ["m3"]
    assert forgets.last_operation_ended_at == T
    assert forgets.last_replay_failed == FLAT["last_forget_replay_failed"]


def test_the_grouped_shape_reads_back_as_written() -> None:
    state = LifecycleState.model_validate(FLAT)
    dumped = state.model_dump(mode="json")
    assert "pending_message_ids" not in dumped and "days" not in dumped["activity"]
    assert LifecycleState.model_validate(dumped) == state
    assert LifecycleState.model_validate_json(state.model_dump_json()) == state


def test_grouped_and_flat_cannot_both_set_one_field() -> None:
    with pytest.raises(ValueError, match="sleep"):
        LifecycleState.model_validate({**FLAT, "sleep": {"seq": 9}})


def test_model_instances_of_the_flat_shape_are_moved_too() -> None:
    log = ActivityLog().record(T, 2)
    state = LifecycleState(
        tenant_id="t1",
        user_id="u1",
        queues=TaskQueues(cpu="c", gpu="g"),
        activity=log,  # the flat shape's types, as older code built it
        ingestion=IngestionStats(messages_received=2),
    )
    assert state.activity.log == log
    assert state.ingestion.stats.messages_received == 2


def _start_payload(path: Path) -> Payload:
    started = json.loads(path.read_text())["events"][0]
    raw = started["workflowExecutionStartedEventAttributes"]["input"]["payloads"][0]
    return Payload(
        metadata={k: b64decode(v) for k, v in raw["metadata"].items()}, data=b64decode(raw["data"])
    )


# Histories recorded before the state was grouped (later ones start with the grouped shape).
FLAT_HISTORIES = [
    p
    for p in sorted(HISTORIES.glob("lifecycle_*.json"))
    if "pending_message_ids" in json.loads(_start_payload(p).data)["state"]
]


def test_flat_recorded_histories_are_still_kept() -> None:
    assert FLAT_HISTORIES  # the parametrized test below is not vacuous


@pytest.mark.parametrize("path", FLAT_HISTORIES, ids=lambda p: p.stem)
def test_a_recorded_history_input_decodes_to_the_same_values(path: Path) -> None:
    """The start input as the worker decodes it (the SDK's pydantic converter), from the flat
    JSON a workflow running today was started with."""
    payload = _start_payload(path)
    flat = json.loads(payload.data)["state"]
    (decoded,) = pydantic_data_converter.payload_converter.from_payloads(
        [payload], [LifecycleInput]
    )
    assert isinstance(decoded, LifecycleInput)
    state = decoded.state
    assert (state.tenant_id, state.user_id) == (flat["tenant_id"], flat["user_id"])
    assert state.queues == TaskQueues.model_validate(flat["queues"])
    assert state.profile == UserProfile.model_validate(flat["profile"])
    assert state.publish_search_attributes is flat["publish_search_attributes"]
    assert state.tier.value == flat["tier"]
    assert state.activity.log == ActivityLog.model_validate(flat["activity"])
    assert state.ingestion.stats == IngestionStats.model_validate(flat["ingestion"])
    assert state.ingestion.pending_message_ids == flat["pending_message_ids"]
    assert state.ingestion.reconciled is flat["reconciled"]
    assert state.activity.session_count == flat["session_count"]
    assert state.sleep.counts == SleepCounts.model_validate(flat["sleeps"])
    assert (state.sleep.seq, state.sleep.new_messages) == (
        flat["sleep_seq"],
        flat["messages_since_sleep"],
    )
    assert state.sleep.last_at == flat["last_sleep_at"]
    assert state.compaction.last_at == flat["last_compaction_at"]

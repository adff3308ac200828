"""What `UserLifecycleWorkflow` carries and answers: its state (whole across continue-as-new),
its input, and the messages of its signals, updates and queries. Clients (the API, the CLI)
import these without the workflow's code."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from activities.forget import ForgetInput
from selfimprint.domain.lifecycle_timings import LifecycleTimings
from selfimprint.domain.sleep_policy import ActivityLog, Depth, SleepKind
from selfimprint.domain.sleep_writes import SleepStatus
from selfimprint.domain.users import Tier, UserProfile


class TaskQueues(BaseModel):
    cpu: str
    gpu: str


class IngestionStats(BaseModel):
    messages_received: int = 0
    messages_extracted: int = 0
    messages_failed: int = 0
    memories_created: int = 0
    memories_reinforced: int = 0
    # Candidates the grounding guard dropped: the extractor said what the user did not.
    memories_ungrounded: int = 0
    last_message_at: datetime | None = None


class SleepCounts(BaseModel):
    full: int = 0
    light: int = 0
    skipped: int = 0
    cancelled: int = 0
    failed: int = 0
    llm_calls: int = 0
    compactions: int = 0


class NextSleepView(BaseModel):
    """The policy's answer, as shown by the `state` query: when, what, and why."""

    at: datetime | None
    depth: Depth | None
    kind: SleepKind | None
    level: str
    reason: str


class LastSleep(BaseModel):
    run_id: str
    status: SleepStatus
    depth: Depth
    summary: str
    started_at: datetime
    finished_at: datetime


class ForgetReplay(BaseModel):
    """A forget to run again, once the messages queued when it finished are extracted: they
    were sent before it and may mention the topic."""

    forget: ForgetInput
    after_messages: list[str] = Field(default_factory=list)


class LifecycleState(BaseModel):
    """Everything the workflow knows; carried whole across continue-as-new."""

    tenant_id: str
    user_id: str
    queues: TaskQueues
    profile: UserProfile = Field(default_factory=UserProfile)
    pending_message_ids: list[str] = Field(default_factory=list)
    ingestion: IngestionStats = Field(default_factory=IngestionStats)
    reconciled: bool = False
    # --- lifecycle ---
    tier: Tier = Tier.HOT
    paused: bool = False
    activity: ActivityLog = Field(default_factory=ActivityLog)  # sleep policy: messages per day
    # The decay clock lives with the graph (the user's profile in Neo4j), where the read path
    # needs it: activities.ingestion records each batch's sent_at times.
    tracking_since: datetime | None = None
    last_active_at: datetime | None = None  # last message or context request: the tier clock
    session_count: int = 0
    messages_since_sleep: int = 0
    last_sleep_at: datetime | None = None
    next_sleep: NextSleepView | None = None
    last_sleep: LastSleep | None = None
    sleeps: SleepCounts = Field(default_factory=SleepCounts)
    sleep_seq: int = 0
    sleep_requested: Depth | None = None
    rehydrate_requested: bool = False
    last_compaction_at: datetime | None = None
    last_entropy: float | None = None
    # Spec §3.9 soft reset: an operator's request, or entropy plus the user's feedback that the
    # assistant no longer understands them (counted since the last compaction).
    soft_reset_requested: bool = False
    feedback_signals: int = 0
    feedback_ids: list[str] = Field(default_factory=list)  # the latest, for idempotency
    last_soft_reset: str | None = None  # one line: when, what was archived, where
    last_soft_reset_failed: bool = False
    last_reconcile_at: datetime | None = None
    # Forgets to run again: each overlapped a graph operation (`topic_forgotten`).
    forget_replays: list[ForgetReplay] = Field(default_factory=list)
    last_operation_ended_at: datetime | None = None
    last_forget_replay_failed: str | None = None
    # Off only where the server has not registered the SelfImprint* attributes.
    publish_search_attributes: bool = True
    # Session gap, tier moves, compaction, reconcile: from Settings, refreshed by each signal.
    timings: LifecycleTimings = Field(default_factory=LifecycleTimings)


class LifecycleInput(BaseModel):
    state: LifecycleState
    # Tests: continue-as-new after this many loop iterations instead of waiting for the server.
    continue_as_new_after: int | None = Field(None, ge=1)


class MessagesReceived(BaseModel):
    message_ids: list[str] = Field(min_length=1, max_length=1000)
    last_sent_at: datetime
    timings: LifecycleTimings | None = None  # the API's current configuration
    # False: messages stored a while ago that the workflow may not have been told about (the
    # API re-tells them before a forget): queue them, but they are not new user activity.
    activity: bool = True


class ProfileChanged(BaseModel):
    profile: UserProfile
    timings: LifecycleTimings | None = None


class ContextRequested(BaseModel):
    """The API asked for this user's context; a graph outside Neo4j must come back."""

    requested_at: datetime | None = None


class FeedbackReceived(BaseModel):
    """The user told the assistant it no longer understands them (spec §3.9: one of the two
    conditions of a soft reset). `id` makes a client's retry count once."""

    id: str = Field(min_length=1, max_length=128)
    kind: Literal["not_understood"] = "not_understood"


class SoftResetRequest(BaseModel):
    reason: str = Field(min_length=1, max_length=200)


class SoftResetAck(BaseModel):
    accepted: bool
    message: str


class SleepRequest(BaseModel):
    depth: Depth = Depth.FULL
    reason: str = Field("", max_length=200)


class SleepRequestAck(BaseModel):
    """The request is queued; the pass runs as soon as no message is pending. Watch
    `state.last_sleep` (or the child workflow `sleep-...`) for its outcome."""

    accepted: bool
    depth: Depth
    message: str


class PauseRequest(BaseModel):
    paused: bool
    reason: str = Field("", max_length=200)


class PauseResult(BaseModel):
    paused: bool
    changed: bool

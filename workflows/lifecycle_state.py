"""What `UserLifecycleWorkflow` carries and answers: its state (whole across continue-as-new),
its input, and the messages of its signals, updates and queries. Clients (the API, the CLI)
import these without the workflow's code."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from activities.forget import ForgetInput
from activities.payload_stage import PayloadRef
from selfimprint.domain.lifecycle import EXTRACTION_BATCH
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


class UserActivity(BaseModel):
    """When and how much the user writes: the sleep policy's input, sessions and the tier clock."""

    log: ActivityLog = Field(default_factory=ActivityLog)  # sleep policy: messages per day
    # The decay clock lives with the graph (the user's profile in Neo4j), where the read path
    # needs it: activities.ingestion records each batch's sent_at times.
    tracking_since: datetime | None = None
    last_active_at: datetime | None = None  # last message or context request: the tier clock
    session_count: int = 0


class IngestionQueue(BaseModel):
    """Messages told to the workflow and not extracted yet, and what extraction has done."""

    pending_message_ids: list[str] = Field(default_factory=list)
    stats: IngestionStats = Field(default_factory=IngestionStats)
    # The message log is re-read for unsignalled messages at start and once a day while idle.
    reconciled: bool = False
    last_reconcile_at: datetime | None = None
    # How many messages the next extraction takes: what the extractor asked for with its last
    # answer (`ExtractedBatch.batch_size`); a run's state from an older release reads 4.
    batch_size: int = Field(default=EXTRACTION_BATCH, ge=1)


class RunningSleep(BaseModel):
    run_id: str
    depth: Depth
    started_at: datetime


class SleepRecord(BaseModel):
    """The sleep schedule's inputs and the passes' outcomes."""

    new_messages: int = 0  # since the last completed or skipped pass: the smart skip's input
    last_at: datetime | None = None  # start of the last pass not cancelled: the schedule's anchor
    next: NextSleepView | None = None
    last: LastSleep | None = None  # any outcome, cancelled included
    counts: SleepCounts = Field(default_factory=SleepCounts)
    seq: int = 0  # counts a pass when it starts; keeps child ids unique
    requested: Depth | None = None  # an operator's `request_sleep`, until it starts
    # The pass now running (its child workflow id = run id), for `sleep status`: which step,
    # which attempt and when the next retry is are read from that child's description.
    running: RunningSleep | None = None


class CompactionRecord(BaseModel):
    """The weekly compaction (spec §3.9) and its soft reset."""

    last_at: datetime | None = None
    last_entropy: float | None = None
    # Spec §3.9 soft reset: an operator's request, or entropy plus the user's feedback that the
    # assistant no longer understands them (counted since the last compaction).
    soft_reset_requested: bool = False
    feedback_signals: int = 0
    feedback_ids: list[str] = Field(default_factory=list)  # the latest, for idempotency
    last_soft_reset: str | None = None  # one line: when, what was archived, where
    last_soft_reset_failed: bool = False


class ForgetRecord(BaseModel):
    """Forgets to run again: each overlapped a graph operation (`topic_forgotten`)."""

    replays: list[ForgetReplay] = Field(default_factory=list)
    last_operation_ended_at: datetime | None = None
    last_replay_failed: str | None = None
    # Staged topics no replay needs any more, to drop at the loop's next turn (issue 37).
    unstage: list[PayloadRef] = Field(default_factory=list)


class ReviewRecord(BaseModel):
    """The session review (epistemic-memory article, component 8): the last session one was
    opened for, so each is opened once."""

    last_session: int = 0
    last_review_id: str | None = None  # None: that session had no belief to review
    last_failed: str | None = None


# Where each key of the flat state of earlier releases lives now. Histories of running
# workflows (their start and continue-as-new inputs) and older workers' `state` answers carry
# the flat shape. `activity` and `ingestion` were an ActivityLog and IngestionStats there.
_FLAT_KEYS: dict[str, tuple[str, str]] = {
    "tracking_since": ("activity", "tracking_since"),
    "last_active_at": ("activity", "last_active_at"),
    "session_count": ("activity", "session_count"),
    "pending_message_ids": ("ingestion", "pending_message_ids"),
    "reconciled": ("ingestion", "reconciled"),
    "last_reconcile_at": ("ingestion", "last_reconcile_at"),
    "messages_since_sleep": ("sleep", "new_messages"),
    "last_sleep_at": ("sleep", "last_at"),
    "next_sleep": ("sleep", "next"),
    "last_sleep": ("sleep", "last"),
    "sleeps": ("sleep", "counts"),
    "sleep_seq": ("sleep", "seq"),
    "sleep_requested": ("sleep", "requested"),
    "last_compaction_at": ("compaction", "last_at"),
    "last_entropy": ("compaction", "last_entropy"),
    "soft_reset_requested": ("compaction", "soft_reset_requested"),
    "feedback_signals": ("compaction", "feedback_signals"),
    "feedback_ids": ("compaction", "feedback_ids"),
    "last_soft_reset": ("compaction", "last_soft_reset"),
    "last_soft_reset_failed": ("compaction", "last_soft_reset_failed"),
    "forget_replays": ("forgets", "replays"),
    "last_operation_ended_at": ("forgets", "last_operation_ended_at"),
    "last_forget_replay_failed": ("forgets", "last_replay_failed"),
}
# A flat `activity` / `ingestion` value, told apart by its keys (no group field shares them).
_FLAT_GROUPS: dict[str, tuple[type[BaseModel], str]] = {
    "activity": (ActivityLog, "log"),
    "ingestion": (IngestionStats, "stats"),
}


def _is_flat(value: object, model: type[BaseModel]) -> bool:
    if isinstance(value, model):
        return True
    return isinstance(value, dict) and bool(value.keys() & model.model_fields.keys())


class LifecycleState(BaseModel):
    """Everything the workflow knows; carried whole across continue-as-new."""

    tenant_id: str
    user_id: str
    queues: TaskQueues
    profile: UserProfile = Field(default_factory=UserProfile)
    tier: Tier = Tier.HOT
    paused: bool = False
    rehydrate_requested: bool = False  # the graph must come back to hot (a context request)
    activity: UserActivity = Field(default_factory=UserActivity)
    ingestion: IngestionQueue = Field(default_factory=IngestionQueue)
    sleep: SleepRecord = Field(default_factory=SleepRecord)
    compaction: CompactionRecord = Field(default_factory=CompactionRecord)
    forgets: ForgetRecord = Field(default_factory=ForgetRecord)
    review: ReviewRecord = Field(default_factory=ReviewRecord)
    # Off only where the server has not registered the SelfImprint* attributes.
    publish_search_attributes: bool = True
    # Session gap, tier moves, compaction, reconcile: from Settings, refreshed by each signal.
    timings: LifecycleTimings = Field(default_factory=LifecycleTimings)
    # A model judges hypothesis evidence in sleep (Settings.model_stance; set at start and by
    # every signal that carries the API's configuration).
    model_stance: bool = False
    # The user's monthly summary schedule is known to exist (`workflows/lifecycle_summary.py`):
    # made sure of once per lifecycle, not once per run. States of earlier releases have no
    # such key: they load as False, and their lifecycle makes sure of it.
    summary_schedule_ensured: bool = False

    @model_validator(mode="before")
    @classmethod
    def _accept_flat(cls, data: Any) -> Any:
        """Move the keys of the flat shape into their groups; the grouped shape passes as is."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        moved: dict[str, dict[str, Any]] = {}
        for group, (model, name) in _FLAT_GROUPS.items():
            if _is_flat(data.get(group), model):
                moved.setdefault(group, {})[name] = data.pop(group)
        for key, (group, name) in _FLAT_KEYS.items():
            if key in data:
                moved.setdefault(group, {})[name] = data.pop(key)
        for group, fields in moved.items():
            current = data.get(group)
            if isinstance(current, BaseModel):
                current = current.model_dump()
            current = dict(current or {})
            both = current.keys() & fields.keys()
            if both:
                raise ValueError(f"{group}: {sorted(both)} given both flat and grouped")
            data[group] = {**current, **fields}
        return data


class LifecycleInput(BaseModel):
    state: LifecycleState
    # Tests: continue-as-new after this many loop iterations instead of waiting for the server.
    continue_as_new_after: int | None = Field(None, ge=1)


class MessagesReceived(BaseModel):
    message_ids: list[str] = Field(min_length=1, max_length=1000)
    last_sent_at: datetime
    timings: LifecycleTimings | None = None  # the API's current configuration
    # ... and whether a model judges hypothesis evidence (Settings.model_stance): a lifecycle
    # started before a model was configured follows the API's current setting.
    model_stance: bool | None = None
    # False: messages stored a while ago that the workflow may not have been told about (the
    # API re-tells them before a forget): queue them, but they are not new user activity.
    activity: bool = True


class ProfileChanged(BaseModel):
    profile: UserProfile
    timings: LifecycleTimings | None = None
    model_stance: bool | None = None


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
    `state.sleep.last` (or the child workflow `sleep-...`) for its outcome."""

    accepted: bool
    depth: Depth
    message: str


class PauseRequest(BaseModel):
    paused: bool
    reason: str = Field("", max_length=200)


class PauseResult(BaseModel):
    paused: bool
    changed: bool

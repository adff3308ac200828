"""Named activity option profiles: how long each kind of activity may take and how it retries.
One place, so that a workflow says what kind of work it starts (`**GRAPH_LONG`) rather than
copying numbers, and an operator reads every timeout on one page.

Timeouts and retries are not part of a workflow's determinism (replay compares commands, not
their options), so a profile may change under running workflows.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TypedDict

from temporalio.common import RetryPolicy


class ActivityOptions(TypedDict, total=False):
    start_to_close_timeout: timedelta
    heartbeat_timeout: timedelta
    retry_policy: RetryPolicy


def _profile(
    timeout: timedelta, retry: RetryPolicy, heartbeat: timedelta | None = None
) -> ActivityOptions:
    options = ActivityOptions(start_to_close_timeout=timeout, retry_policy=retry)
    if heartbeat is not None:
        options["heartbeat_timeout"] = heartbeat
    return options


# --- ingestion (the lifecycle) -------------------------------------------------------------------

# A graph step of ingestion (load, apply, mark failed, reconcile): short; a bad batch is final.
INGESTION_GRAPH = _profile(
    timedelta(seconds=60),
    RetryPolicy(
        initial_interval=timedelta(seconds=1),
        maximum_interval=timedelta(seconds=30),
        non_retryable_error_types=["BadBatchError"],
    ),
)
# Extraction retries without limit, backing off to one attempt a minute; for refine/llm modes
# the activity itself stops asking a model that failed a batch 3 times and extracts it without
# (activities.ingestion.MODEL_ATTEMPTS), so an LLM outage no longer holds the batch. An
# unusable answer is not an error: the activity keeps the user's own words instead.
INGESTION_MODEL = _profile(
    timedelta(seconds=180),
    RetryPolicy(
        initial_interval=timedelta(seconds=2),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=60),
        non_retryable_error_types=["BadBatchError"],
    ),
)

# --- sleep ---------------------------------------------------------------------------------------

_SLEEP_GRAPH_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    maximum_interval=timedelta(minutes=1),
    maximum_attempts=8,
    non_retryable_error_types=["BadSleepDataError"],
)
# A reasoning operation over the graph: heartbeats; bad sleep data is final.
SLEEP_GRAPH = _profile(timedelta(minutes=5), _SLEEP_GRAPH_RETRY, heartbeat=timedelta(seconds=60))
# Recording a pass's outcome: one short write, no heartbeat.
SLEEP_RECORD = _profile(timedelta(minutes=5), _SLEEP_GRAPH_RETRY)
# A sleep rides out a blip of the model server (a restart, one slow answer) but not an outage:
# 4 attempts 5, 10 and 20 s apart, so a server that is down fails the pass in about 35 s with
# "LLM unavailable at ..." (issue 35; it used to retry for ~21 minutes). The pass is recorded
# as failed and the next planned pass (or `selfimprint sleep retry`) tries again.
SLEEP_MODEL = _profile(
    timedelta(minutes=3),
    RetryPolicy(
        initial_interval=timedelta(seconds=5),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=30),
        maximum_attempts=4,
    ),
)

# --- compaction ----------------------------------------------------------------------------------

_COMPACTION_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2), maximum_interval=timedelta(minutes=1), maximum_attempts=8
)
# The weekly pass over the whole graph: heartbeats.
COMPACTION = _profile(timedelta(minutes=10), _COMPACTION_RETRY, heartbeat=timedelta(minutes=2))
# Planning a soft reset: a read and a decision, no heartbeat.
COMPACTION_PLAN = _profile(timedelta(minutes=10), _COMPACTION_RETRY)

# --- monthly summaries ---------------------------------------------------------------------------

# Making sure a user's summary schedule exists (a profile read, one Temporal call): a blip is
# retried for about five minutes. What still fails waits for the lifecycle's next run (or the
# user's next PUT); without a limit, a server that refuses schedules would hold up the
# lifecycle's continue-as-new for good.
SUMMARY_SCHEDULE = _profile(
    timedelta(seconds=60),
    RetryPolicy(
        initial_interval=timedelta(seconds=2),
        maximum_interval=timedelta(minutes=1),
        maximum_attempts=10,
        non_retryable_error_types=["SchedulesUnsupportedError"],
    ),
)

# --- storage: erasure, forget a topic ------------------------------------------------------------

# Erasure and forgetting must finish: retry without limit, backing off to a minute.
_MUST_FINISH = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=60)
)
STORAGE_SHORT = _profile(timedelta(seconds=60), _MUST_FINISH)
STORAGE_LONG = _profile(timedelta(minutes=30), _MUST_FINISH, heartbeat=timedelta(seconds=30))

# --- tiers ---------------------------------------------------------------------------------------

# Tier moves retry without limit too, backing off to 30 s; transfers of large graphs are bounded
# by heartbeats, not by a guess at the size.
_TIER_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30)
)
TIER_SHORT = _profile(timedelta(seconds=60), _TIER_RETRY)
TIER_TRANSFER = _profile(timedelta(minutes=30), _TIER_RETRY, heartbeat=timedelta(seconds=30))

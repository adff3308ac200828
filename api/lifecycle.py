"""How the API reaches a user's lifecycle workflow (selfimprint/service/lifecycle_signals.py),
with the process's shared clients."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from api.resources import Resources
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.service import lifecycle_signals
from workflows.lifecycle_state import (
    ContextRequested,
    FeedbackReceived,
    MessagesReceived,
    ProfileChanged,
)

log = get_logger(__name__)


async def _signal_with_start(
    resources: Resources, scope: UserScope, signal: str, argument: BaseModel
) -> None:
    client = await resources.temporal()
    await lifecycle_signals.signal_with_start(client, resources.settings, scope, signal, argument)


async def signal_messages(
    resources: Resources, scope: UserScope, message_ids: list[str], last_sent_at: datetime
) -> None:
    received = MessagesReceived(
        message_ids=message_ids,
        last_sent_at=last_sent_at,
        timings=resources.settings.lifecycle_timings(),
        model_stance=resources.settings.model_stance,
    )
    await _signal_with_start(resources, scope, "messages_received", received)


async def retell_pending(resources: Resources, scope: UserScope) -> None:
    """A forget sends this first: a message accepted before the forget is then queued when the
    forget ends, and the lifecycle forgets again after extracting it."""
    client = await resources.temporal()
    await lifecycle_signals.retell_pending(
        client, resources.settings, resources.messages(scope), scope
    )


async def signal_profile(resources: Resources, scope: UserScope, change: ProfileChanged) -> None:
    timed = change.model_copy(
        update={
            "timings": resources.settings.lifecycle_timings(),
            "model_stance": resources.settings.model_stance,
        }
    )
    await _signal_with_start(resources, scope, "profile_changed", timed)


async def signal_feedback(
    resources: Resources, scope: UserScope, feedback: FeedbackReceived
) -> None:
    await _signal_with_start(resources, scope, "feedback_received", feedback)


async def request_rehydration(resources: Resources, scope: UserScope) -> None:
    """Ask the lifecycle workflow to bring a warm or cold graph back (best effort: the caller
    answers a degraded context either way)."""
    try:
        requested = ContextRequested(requested_at=resources.clock())
        await _signal_with_start(resources, scope, "context_requested", requested)
    except Exception as exc:
        log.warning("lifecycle.rehydrate_signal_failed", user_id=scope.user_id, error=str(exc))

"""How long the lifecycle waits between things: sessions, tier moves, compaction, reconciling.

Spec defaults; operators change them through Settings (`SELFIMPRINT_SESSION_GAP_MINUTES` and
friends). The API sends the current values with every signal, so a running lifecycle follows a
configuration change at the user's next message, not only at its next start.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict, model_validator


class LifecycleTimings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Spec §3.5: a session ends after 30 minutes of silence.
    session_gap: timedelta = timedelta(minutes=30)
    # Spec §3.8.1: hot -> warm after 7 idle days, warm -> cold after 30.
    warm_after: timedelta = timedelta(days=7)
    cold_after: timedelta = timedelta(days=30)
    # Spec §3.9: compaction runs weekly, in the deep pass.
    compaction_every: timedelta = timedelta(days=7)
    # Project choice: a stored message whose nudge was lost waits at most this long (less if
    # the user writes again: each extraction also picks up what it was never told about).
    reconcile_every: timedelta = timedelta(days=1)

    @model_validator(mode="after")
    def _positive(self) -> LifecycleTimings:
        for name, value in self:
            if value <= timedelta(0):
                raise ValueError(f"{name} must be positive")
        if self.cold_after < self.warm_after:
            raise ValueError("cold_after must not be shorter than warm_after")
        return self

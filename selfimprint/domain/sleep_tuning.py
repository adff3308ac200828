"""The sleep phase's tunable numbers in one document: pattern detection, connection inference,
recalibration (`PatternConfig`) and scheduled triggers / open-loop questions (`TriggerConfig`).

Operators override any of them with a JSON file (`SELFIMPRINT_SLEEP_TUNING_FILE`), e.g.
`{"patterns": {"min_mentions": 4}, "triggers": {"lead": "P2D"}}`; unknown keys are refused, so a
typo fails at worker start instead of being ignored.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.patterns import PatternConfig
from selfimprint.domain.scheduled_triggers import TriggerConfig


class SleepTuning(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    patterns: PatternConfig = Field(default_factory=PatternConfig)
    triggers: TriggerConfig = Field(default_factory=TriggerConfig)

    @classmethod
    def load(cls, path: Path | None) -> SleepTuning:
        """The defaults, or the file's overrides of them."""
        if path is None:
            return cls()
        return cls.model_validate_json(path.read_text(encoding="utf-8"))

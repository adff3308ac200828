"""The slots whose claims exclude each other (spec §6 contradictions)."""

from __future__ import annotations

from enum import StrEnum


class Slot(StrEnum):
    JOB = "job"
    HOME = "home"
    RELATIONSHIP = "relationship"
    PLAN = "plan"

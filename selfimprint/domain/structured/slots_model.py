"""The slots whose claims exclude each other (spec §6 contradictions)."""

from __future__ import annotations

from enum import StrEnum


class Slot(StrEnum):
    JOB = "job"
    HOME = "home"
    RELATIONSHIP = "relationship"
    PLAN = "plan"
    HABIT = "habit"  # a habit or preference ("I don't drink", "I'm vegetarian"): cues.habits

"""What one sleep operation writes, as one value: the graph store commits it atomically, once per
(run, operation), so a retried activity never applies a read-modify-write (a boost, a hypothesis
reinforcement, a reality-anchor discount) twice."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.models import AwareDatetime, Edge, Hypothesis, MemoryId, Node
from selfimprint.domain.patterns import Pattern
from selfimprint.domain.scheduled_triggers import OpenLoopQuestion, ScheduledTrigger

MAX_SUMMARY_CHARS = 500


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WeightChange(_Frozen):
    node_id: MemoryId
    weight: Annotated[float, Field(ge=0.0, le=1.0)]
    weight_at: AwareDatetime
    expires_at: AwareDatetime | None
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] | None = None


class SleepWrites(_Frozen):
    patterns: tuple[Pattern, ...] = ()
    detected_at: AwareDatetime | None = None  # stamps `patterns`; older active ones fade
    edges: tuple[Edge, ...] = ()
    nodes: tuple[Node, ...] = ()  # new hypothesis nodes, hypotheses converted to facts
    hypotheses: tuple[Hypothesis, ...] = ()
    deleted_node_ids: tuple[MemoryId, ...] = ()  # refuted hypotheses (spec §3.5.2)
    weights: tuple[WeightChange, ...] = ()
    triggers: tuple[ScheduledTrigger, ...] = ()
    questions: tuple[OpenLoopQuestion, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not any(
            (
                self.patterns,
                self.edges,
                self.nodes,
                self.hypotheses,
                self.deleted_node_ids,
                self.weights,
                self.triggers,
                self.questions,
            )
        )


class SleepStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"
    FAILED = "failed"


class SleepRunRecord(_Frozen):
    """A sleep pass as kept in the graph: what ran and, for a skip, its one-sentence summary."""

    run_id: Annotated[str, Field(min_length=1, max_length=200)]
    depth: str
    status: SleepStatus
    summary: Annotated[str, Field(max_length=MAX_SUMMARY_CHARS)] = ""
    started_at: AwareDatetime
    finished_at: datetime | None = None
    operations: tuple[str, ...] = ()

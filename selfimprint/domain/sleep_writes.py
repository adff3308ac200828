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
    # Set by the open-loop preparation (operation 6): the write then also removes the user's
    # earlier questions that the context can no longer serve, so that they do not pile up one
    # pass after another: prepared before this instant (the pass's now minus
    # ContextConfig.prepared_question_max_age: the context serves only questions a sleep
    # prepared more recently), or whose memory is gone, or whose memory is neither an open loop
    # nor before the end of a trigger window (the context's other two conditions). The pass's
    # own `questions` stay. A later pass that prepares a removed question again writes it anew.
    questions_stale_before: AwareDatetime | None = None

    def memory_ids(self) -> set[str]:
        """Every memory id these writes name (what a concurrent deletion may have removed)."""
        ids = {n.id for n in self.nodes} | {w.node_id for w in self.weights}
        ids |= {i for e in self.edges for i in (e.source_id, e.target_id)}
        for h in self.hypotheses:
            ids |= {h.node_id, *h.supporting, *h.contradicting}
        for t in self.triggers:
            ids |= {t.node_id, *t.node_ids}
        ids |= {q.node_id for q in self.questions}
        ids |= {i for p in self.patterns for i in p.node_ids}
        return ids

    def without(self, deleted: set[str]) -> SleepWrites:
        """These writes minus what names a memory the user deleted while the operation ran
        (`DELETE /memories/{id}` comes from the API, outside the lifecycle): a sleep pass must
        not write it, its content or its id back. A hypothesis keeps its other evidence; a
        trigger its other neighbours."""
        if not deleted:
            return self

        def kept(ids: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(i for i in ids if i not in deleted)

        return self.model_copy(
            update={
                "nodes": tuple(n for n in self.nodes if n.id not in deleted),
                "weights": tuple(w for w in self.weights if w.node_id not in deleted),
                "edges": tuple(
                    e
                    for e in self.edges
                    if e.source_id not in deleted and e.target_id not in deleted
                ),
                "hypotheses": tuple(
                    h.model_copy(
                        update={
                            "supporting": kept(h.supporting),
                            "contradicting": kept(h.contradicting),
                            "model_supported": kept(h.model_supported),
                        }
                    )
                    for h in self.hypotheses
                    if h.node_id not in deleted
                ),
                "triggers": tuple(
                    t.model_copy(update={"node_ids": kept(t.node_ids)})
                    for t in self.triggers
                    if t.node_id not in deleted
                ),
                "questions": tuple(q for q in self.questions if q.node_id not in deleted),
                "patterns": tuple(p for p in self.patterns if not set(p.node_ids) & deleted),
            }
        )

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
                self.questions_stale_before,
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


def orphan_summary(beginning_run_id: str) -> str:
    """What an orphaned pass's record says once closed (`closed_orphan`)."""
    text = (
        "Sleep failed: orphaned: the pass ended without closing its record (its lifecycle was "
        "terminated or reset mid-pass, or it failed before failures were recorded); closed "
        f"when {beginning_run_id} began"
    )
    return text[:MAX_SUMMARY_CHARS]


def closed_orphan(run: SleepRunRecord, beginning: SleepRunRecord) -> SleepRunRecord | None:
    """Issue 35: one pass runs at a time per user, so when a pass begins, another record of the
    user still `running` belongs to a pass that ended without closing it. It is closed as
    failed, saying so; None when `run` is not such an orphan. The Neo4j store applies the same
    rule in Cypher (`adapters.neo4j.sleep_results.record_run`)."""
    if (
        beginning.status is not SleepStatus.RUNNING
        or run.status is not SleepStatus.RUNNING
        or run.run_id == beginning.run_id
    ):
        return None
    return run.model_copy(
        update={
            "status": SleepStatus.FAILED,
            "finished_at": beginning.started_at,
            "summary": orphan_summary(beginning.run_id),
        }
    )

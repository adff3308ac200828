"""CompactionWorkflow: the weekly graph compaction of spec §3.9, run by the user's lifecycle in
the 03:00 deep pass. Entropy metrics come back in the result (and so into the lifecycle's state
and the workflow history). Aggressive mode follows the entropy unless the input forces it; a soft
reset is only considered on an explicit request or when the documented threshold (entropy plus
user feedback, `domain.compaction.should_soft_reset`) is met, and then applied: the rest is
archived to S3 and leaves Neo4j (activities.compaction.apply_soft_reset).
"""

from __future__ import annotations

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.compaction import (
        ApplySoftResetInput,
        CompactInput,
        CompactionActivities,
        CompactOutput,
        SoftResetApplied,
        SoftResetInput,
        SoftResetOutput,
    )
    from workflows.options import COMPACTION, COMPACTION_PLAN


class CompactionInput(BaseModel):
    tenant_id: str
    user_id: str
    aggressive: bool | None = None
    soft_reset_requested: bool = False
    feedback_signals: int = 0


class CompactionResult(BaseModel):
    compaction: CompactOutput
    soft_reset: SoftResetOutput | None = None
    soft_reset_applied: SoftResetApplied | None = None


@workflow.defn
class CompactionWorkflow:
    @workflow.run
    async def run(self, data: CompactionInput) -> CompactionResult:
        compacted = await workflow.execute_activity_method(
            CompactionActivities.compact,
            CompactInput(
                tenant_id=data.tenant_id,
                user_id=data.user_id,
                now=workflow.now(),
                aggressive=data.aggressive,
            ),
            **COMPACTION,
        )
        reset = None
        if data.soft_reset_requested or data.feedback_signals > 0:
            reset = await workflow.execute_activity_method(
                CompactionActivities.plan_soft_reset,
                SoftResetInput(
                    tenant_id=data.tenant_id,
                    user_id=data.user_id,
                    now=workflow.now(),
                    requested=data.soft_reset_requested,
                    feedback_signals=data.feedback_signals,
                ),
                **COMPACTION_PLAN,
            )
        applied = None
        if reset is not None and reset.due:
            applied = await workflow.execute_activity_method(
                CompactionActivities.apply_soft_reset,
                ApplySoftResetInput(
                    tenant_id=data.tenant_id,
                    user_id=data.user_id,
                    now=workflow.now(),
                    reason=reset.reason,
                ),
                **COMPACTION,
            )
        workflow.logger.info(
            "compaction finished",
            extra={"entropy": compacted.entropy.score, "aggressive": compacted.aggressive},
        )
        return CompactionResult(compaction=compacted, soft_reset=reset, soft_reset_applied=applied)

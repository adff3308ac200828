"""StackProbeWorkflow: a trivial workflow that crosses both task queues (cpu runs the workflow,
gpu runs the embedding activity). `selfimprint dev smoke` uses it to prove the stack end to end."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.probe import EmbedProbeInput, EmbedProbeOutput, ProbeActivities


class StackProbeInput(BaseModel):
    text: str
    gpu_task_queue: str


@workflow.defn
class StackProbeWorkflow:
    @workflow.run
    async def run(self, data: StackProbeInput) -> EmbedProbeOutput:
        return await workflow.execute_activity_method(
            ProbeActivities.embed,
            EmbedProbeInput(text=data.text),
            task_queue=data.gpu_task_queue,
            start_to_close_timeout=timedelta(seconds=60),
        )

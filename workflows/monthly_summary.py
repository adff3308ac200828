"""MonthlySummaryWorkflow: the monthly summary of one user (spec §3.5, §4), started by that user's
Temporal Schedule `monthly-summary-{tenant}-{user}` (built in `selfimprint/service/summaries.py`;
created when the user is PUT and made sure of once per user lifecycle, `lifecycle_summary.py`;
deleted with the user). One activity reads, plans and writes; `workflow.now()` decides the month
it covers, so a retried activity writes the same summary.
"""

from __future__ import annotations

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.summaries import SummaryActivities, SummaryInput, SummaryOutput
    from workflows.options import SLEEP_GRAPH

__all__ = ["MonthlySummaryInput", "MonthlySummaryWorkflow", "SummaryOutput"]


class MonthlySummaryInput(BaseModel):
    tenant_id: str
    user_id: str


@workflow.defn
class MonthlySummaryWorkflow:
    @workflow.run
    async def run(self, data: MonthlySummaryInput) -> SummaryOutput:
        # A graph read and one write, like a sleep operation: the same timeouts and retries.
        return await workflow.execute_activity_method(
            SummaryActivities.produce_monthly,
            SummaryInput(tenant_id=data.tenant_id, user_id=data.user_id, now=workflow.now()),
            **SLEEP_GRAPH,
        )

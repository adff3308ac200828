"""SleepPhaseWorkflow: one sleep pass for one user (spec §3.5, §3.5.1, §3.5.2, §3.6 smart skip).

Order: smart-skip pre-check (deterministic features; the LLM only when they are ambiguous) ->
the operations of the pass's depth in spec order -> the hypothesis lifecycle check with the
reality anchor, which runs on every pass, skipped ones included (it is cheap, needs no LLM, and
deadlines are dates); on a full pass that ran, with a model configured, the model first
re-judges the bounded set of pairs the stance rule finds worth reading (issue 16). Graph
activities run on the workflow's queue (cpu), model calls on the gpu queue. The parent cancels
a running pass when the user writes: the pass records itself as cancelled and stops; what
earlier operations committed stays (each is complete on its own).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.sleep import (
        BeginInput,
        CheckInput,
        ConnectionsInput,
        ContextInput,
        FinishInput,
        JudgedStance,
        JudgeStancesInput,
        OpenLoopsInput,
        OperationInput,
        PrecheckInput,
        ProposeInput,
        RecalibrateInput,
        SleepActivities,
        SleepModelActivities,
        SleepScope,
        StanceCandidatesInput,
        StoreHypothesesInput,
    )
    from selfimprint.domain.patterns import Pattern
    from selfimprint.domain.scheduled_triggers import ScheduledTrigger
    from selfimprint.domain.sleep_policy import Depth, SleepOperation, operations_for
    from selfimprint.domain.sleep_writes import SleepStatus
    from selfimprint.domain.smart_skip import SkipVerdict, decide, decide_after_llm
    from workflows.options import SLEEP_GRAPH, SLEEP_MODEL, SLEEP_RECORD


class SleepInput(BaseModel):
    tenant_id: str
    user_id: str
    run_id: str
    depth: Depth
    gpu_task_queue: str
    time_zone: str = "UTC"
    medical_deployment: bool = False  # the user's profile flag (hypothesis formation's policy)
    since: datetime | None = None  # the last sleep; None before the first
    new_messages: int = Field(0, ge=0)
    skip_precheck: bool = False  # an operator's explicit request runs the pass
    # A model judges hypothesis evidence before the check (the lifecycle sets it from Settings).
    model_stance: bool = False


class SleepOutcome(BaseModel):
    run_id: str
    depth: Depth
    status: SleepStatus
    summary: str
    operations: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    counts: dict[str, int] = Field(default_factory=dict)


@workflow.defn
class SleepPhaseWorkflow:
    def __init__(self) -> None:
        # Texts and vectors travel by reference, staged in Neo4j (issue 35); a history recorded
        # before the patch replays with them in its payloads.
        self._staged = False

    @workflow.run
    async def run(self, data: SleepInput) -> SleepOutcome:
        started = workflow.now()
        self._staged = workflow.patched("sleep-stage")
        scope = SleepScope(
            tenant_id=data.tenant_id,
            user_id=data.user_id,
            run_id=data.run_id,
            now=started,
            time_zone=data.time_zone,
            medical_deployment=data.medical_deployment,
        )
        planned = [op.value for op in operations_for(data.depth)]
        outcome = SleepOutcome(
            run_id=data.run_id, depth=data.depth, status=SleepStatus.RUNNING, summary=""
        )
        # On cancellation the parent records the run as cancelled (a cancelled workflow cannot
        # reliably schedule its own cleanup activity).
        await self._pass(data, scope, planned, outcome)
        await self._finish(data, scope, started, outcome)
        workflow.logger.info(
            "sleep finished",
            extra={"run_id": data.run_id, "status": outcome.status.value, "counts": outcome.counts},
        )
        return outcome

    async def _pass(
        self, data: SleepInput, scope: SleepScope, planned: list[str], outcome: SleepOutcome
    ) -> None:
        begin = await workflow.execute_activity_method(
            SleepActivities.begin,
            BeginInput(
                scope=scope,
                depth=data.depth.value,
                operations=planned,
                since=data.since,
                new_messages=data.new_messages,
                stage=self._staged,
            ),
            **SLEEP_GRAPH,
        )
        if not data.skip_precheck:
            decision = decide(begin.features)
            if decision.verdict is SkipVerdict.ASK_LLM:
                answer = await workflow.execute_activity_method(
                    SleepModelActivities.precheck,
                    PrecheckInput(new_memories=begin.new_memories, staged=begin.staged),
                    task_queue=data.gpu_task_queue,
                    **SLEEP_MODEL,
                )
                outcome.llm_calls += 1
                decision = decide_after_llm(begin.features, answer.worth_reasoning, answer.summary)
            if decision.verdict is SkipVerdict.SKIP:
                outcome.status = SleepStatus.SKIPPED
                outcome.summary = decision.summary or decision.reason
                await self._check_hypotheses(data, scope, outcome, ran=False)
                return
        patterns: list[Pattern] = []
        touched: list[str] = []
        triggers: list[ScheduledTrigger] = []
        for op in operations_for(data.depth):
            if op is SleepOperation.PATTERN_DETECTION:
                found = await workflow.execute_activity_method(
                    SleepActivities.detect_patterns,
                    OperationInput(scope=scope),
                    **SLEEP_GRAPH,
                )
                patterns = found.patterns
                outcome.counts["patterns"] = len(patterns)
            elif op is SleepOperation.CONNECTION_INFERENCE:
                linked = await workflow.execute_activity_method(
                    SleepActivities.infer_connections,
                    ConnectionsInput(scope=scope, patterns=patterns),
                    **SLEEP_GRAPH,
                )
                touched = linked.touched
                outcome.counts["inferred_edges"] = linked.edges
            elif op is SleepOperation.HYPOTHESIS_FORMATION:
                await self._form_hypotheses(data, scope, patterns, outcome)
            elif op is SleepOperation.IMPORTANCE_RECALIBRATION:
                recal = await workflow.execute_activity_method(
                    SleepActivities.recalibrate,
                    RecalibrateInput(scope=scope, patterns=patterns, touched=touched),
                    **SLEEP_GRAPH,
                )
                outcome.counts["boosted"] = recal.boosted
                outcome.counts["drifted"] = recal.drifted
            elif op is SleepOperation.SCHEDULED_TRIGGERS:
                scheduled = await workflow.execute_activity_method(
                    SleepActivities.schedule_triggers,
                    OperationInput(scope=scope),
                    **SLEEP_GRAPH,
                )
                triggers = scheduled.triggers
                outcome.counts["triggers"] = len(triggers)
            elif op is SleepOperation.OPEN_LOOP_PREPARATION:
                prepared = await workflow.execute_activity_method(
                    SleepActivities.prepare_open_loops,
                    OpenLoopsInput(scope=scope, triggers=triggers),
                    **SLEEP_GRAPH,
                )
                outcome.counts["open_loop_questions"] = prepared.questions
            outcome.operations.append(op.value)
        await self._check_hypotheses(data, scope, outcome, ran=True)
        outcome.status = SleepStatus.COMPLETED
        outcome.summary = (
            f"{data.depth.value} pass: "
            + ", ".join(f"{k} {v}" for k, v in sorted(outcome.counts.items()))
        )[:500]

    async def _form_hypotheses(
        self, data: SleepInput, scope: SleepScope, patterns: list[Pattern], outcome: SleepOutcome
    ) -> None:
        context = await workflow.execute_activity_method(
            SleepActivities.hypothesis_context,
            ContextInput(scope=scope, patterns=patterns, stage=self._staged),
            **SLEEP_GRAPH,
        )
        proposed = await workflow.execute_activity_method(
            SleepModelActivities.propose_hypotheses,
            ProposeInput(context=context),
            task_queue=data.gpu_task_queue,
            **SLEEP_MODEL,
        )
        outcome.llm_calls += 1
        stored = await workflow.execute_activity_method(
            SleepActivities.store_hypotheses,
            StoreHypothesesInput(scope=scope, proposals=proposed.proposals, staged=context.staged),
            **SLEEP_GRAPH,
        )
        outcome.counts["hypotheses_formed"] = stored.formed
        outcome.counts["hypotheses_reinforced"] = stored.reinforced
        if stored.rejected_by_policy:
            outcome.counts["hypotheses_rejected_by_policy"] = stored.rejected_by_policy

    async def _check_hypotheses(
        self, data: SleepInput, scope: SleepScope, outcome: SleepOutcome, *, ran: bool
    ) -> None:
        verdicts: list[JudgedStance] = []
        # Full passes only, as hypothesis formation (the model's time goes to the deep pass).
        # The patch is evaluated last: histories recorded without a model never meet it.
        model = ran and data.depth is Depth.FULL and data.model_stance
        if model and workflow.patched("model-stance"):
            verdicts = await self._judge_stances(data, scope, outcome)
        checked = await workflow.execute_activity_method(
            SleepActivities.check_hypotheses,
            CheckInput(scope=scope, model_verdicts=verdicts),
            **SLEEP_GRAPH,
        )
        for status, n in checked.outcomes.items():
            outcome.counts[f"hypotheses_{status}"] = n

    async def _judge_stances(
        self, data: SleepInput, scope: SleepScope, outcome: SleepOutcome
    ) -> list[JudgedStance]:
        candidates = await workflow.execute_activity_method(
            SleepActivities.stance_candidates,
            StanceCandidatesInput(scope=scope, stage=self._staged),
            **SLEEP_GRAPH,
        )
        if not candidates.pairs and not (candidates.staged and candidates.count):
            return []
        try:
            judged = await workflow.execute_activity_method(
                SleepModelActivities.judge_stances,
                JudgeStancesInput(pairs=candidates.pairs, staged=candidates.staged),
                task_queue=data.gpu_task_queue,
                **SLEEP_MODEL,
            )
        except ActivityError:
            # The model was down past its retries: the rule's verdicts stand and the check (its
            # deadlines, the reality anchor) still runs. Patched: a history in which this
            # failure failed the pass replays as it ran.
            if not workflow.patched("model-stance-fallback"):
                raise
            workflow.logger.warning("sleep.stance_model_unavailable")
            outcome.counts["stances_judged"] = 0
            return []
        outcome.llm_calls += judged.llm_calls
        outcome.counts["stances_judged"] = len(judged.verdicts)
        return judged.verdicts

    async def _finish(
        self, data: SleepInput, scope: SleepScope, started: datetime, outcome: SleepOutcome
    ) -> None:
        await workflow.execute_activity_method(
            SleepActivities.finish,
            FinishInput(
                scope=scope.model_copy(update={"now": workflow.now()}),
                depth=data.depth.value,
                status=outcome.status,
                summary=outcome.summary,
                started_at=started,
                operations=outcome.operations,
            ),
            **SLEEP_RECORD,
        )

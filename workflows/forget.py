"""ForgetTopicWorkflow: "forget about X" (spec §4.3) wherever the user's graph is: Neo4j, the
warm object, the cold object (all that exist, so a graph caught mid-move is covered too). Run it
with dry_run=True to preview, then False to remove. Id: `forget-{tenant}-{user}-{request}` is a
good choice (the caller's request id), so a retried API call does not forget twice.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from activities.forget import (
        EmbedTopicInput,
        ForgetActivities,
        ForgetDerivedInput,
        ForgetEmbeddingActivities,
        ForgetInput,
        ForgetPlaceInput,
        ForgetTopicReport,
        TopicForgotten,
        TopicVector,
    )
    from activities.payload_stage import PayloadRef
    from activities.store_flush import FlushInput, StoreFlushActivities
    from activities.tiers import LocateInput, TierActivities
    from selfimprint.domain.users import Tier
    from selfimprint.ports import ForgottenMemory
    from workflows.ids import lifecycle_workflow_id
    from workflows.options import STORAGE_LONG, STORAGE_SHORT

__all__ = ["ForgetInput", "ForgetTopicReport", "ForgetTopicWorkflow"]


@workflow.defn
class ForgetTopicWorkflow:
    @workflow.run
    async def run(self, data: ForgetInput) -> ForgetTopicReport:
        vector: TopicVector | None = None
        if data.min_similarity is not None:
            # The vector waits in Neo4j for the places that use it, not in this history (issue
            # 35); a history recorded before the patch replays with it by value.
            stage = None
            if workflow.patched("forget-vector-staged"):
                stage = PayloadRef(
                    tenant_id=data.tenant_id,
                    user_id=data.user_id,
                    run_id=workflow.info().workflow_id,
                )
            vector = await workflow.execute_activity_method(
                ForgetEmbeddingActivities.embed_topic,
                EmbedTopicInput(text=data.topic, stage=stage, topic=data.topic_ref),
                task_queue=data.embed_task_queue or workflow.info().task_queue,
                **STORAGE_SHORT,
            )
        where = await workflow.execute_activity_method(
            TierActivities.locate,
            LocateInput(tenant_id=data.tenant_id, user_id=data.user_id),
            **STORAGE_SHORT,
        )
        places: list[tuple[Tier, str | None]] = [
            (tier, None)
            for tier, present in (
                (Tier.HOT, where.hot.nodes > 0),
                (Tier.WARM, where.warm is not None),
                (Tier.COLD, where.cold is not None),
            )
            if present
        ]
        # What a soft reset archived is the user's memory too (kept in the cold storage class).
        places += [(Tier.COLD, key) for key in where.resets]
        memories: dict[str, ForgottenMemory] = {}
        edges, derived, touched, sources = 0, 0, [], set()
        for tier, key in places:
            report = await workflow.execute_activity_method(
                ForgetActivities.forget_place,
                ForgetPlaceInput(
                    tenant_id=data.tenant_id,
                    user_id=data.user_id,
                    tier=tier,
                    archive_key=key,
                    text=data.topic,
                    vector=vector,
                    min_similarity=data.min_similarity,
                    dry_run=data.dry_run,
                    topic=data.topic_ref,
                ),
                **STORAGE_LONG,
            )
            derived += report.derived
            sources.update(report.sources)
            if report.memories:
                touched.append(report.place)
                edges += report.edges
                memories.update((m.id, m) for m in report.memories)
        # A dry run counts them all here; a real run removed those citing hot memories already.
        if workflow.patched("forget-derived-results"):
            derived += await workflow.execute_activity_method(
                ForgetActivities.forget_derived,
                ForgetDerivedInput(
                    tenant_id=data.tenant_id,
                    user_id=data.user_id,
                    memory_ids=sorted(memories),
                    text=data.topic,
                    dry_run=data.dry_run,
                    staged=vector.staged if vector is not None else None,
                    topic=data.topic_ref,
                    message_ids=sorted(sources),
                ),
                **STORAGE_SHORT,
            )
        outcome = ForgetTopicReport(
            dry_run=data.dry_run,
            memories=sorted(memories.values(), key=lambda m: m.id),
            edges=edges,
            places=touched,
            derived=derived,
        )
        told = False
        if not data.dry_run and data.notify_lifecycle and workflow.patched("forget-notifies"):
            told = await _tell_lifecycle(data)
        # The staged topic (issue 37) goes when no replay can need it: a lifecycle told of
        # this forget drops it (at once, or after the replay it queued); a replay leaves it to
        # the lifecycle that runs it.
        if data.topic_ref is not None and data.notify_lifecycle and not told:
            await workflow.execute_activity_method(
                ForgetActivities.drop_topic, data.topic_ref, **STORAGE_SHORT
            )
        if not data.dry_run and memories and workflow.patched("forget-store-flush"):
            # The forgotten words leave Neo4j's files too (issue 37, docs/tiers.md); a topic
            # the lifecycle drops later leaves them at the next flush.
            await workflow.execute_activity_method(
                StoreFlushActivities.flush_deleted,
                FlushInput(tenant_id=data.tenant_id, user_id=data.user_id),
                **STORAGE_LONG,
            )
        return outcome


async def _tell_lifecycle(data: ForgetInput) -> bool:
    """A tier move, soft reset, sleep or extraction that ran alongside this forget may have
    copied what it removed (an export taken before, an archive written after); the lifecycle
    knows what ran when and replays the forget after it (docs/decisions.md)."""
    handle = workflow.get_external_workflow_handle(
        lifecycle_workflow_id(data.tenant_id, data.user_id)
    )
    replay = data.model_copy(update={"notify_lifecycle": False})
    try:
        await handle.signal(
            "topic_forgotten", TopicForgotten(forget=replay, started_at=workflow.info().start_time)
        )
    except FailureError as err:
        # No running lifecycle (a user who never wrote, or one being erased): nothing moves
        # the graph, so nothing can have overlapped.
        workflow.logger.info("no lifecycle to tell", extra={"error": str(err)})
        return False
    return True

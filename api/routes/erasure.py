"""The user's rights over their memory: forget a topic, export everything, delete everything.

Forget and delete are Temporal workflows, so they finish even across crashes; deletion answers
202 with an operation id to poll."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from temporalio.client import WorkflowExecutionStatus
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from activities.forget import TOPIC_TEXT, TopicText, topic_run_id
from activities.payload_stage import PayloadRef
from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.lifecycle import retell_pending
from api.routes.common import UserId, known_user, resources_of, scope_of, unknown_user
from selfimprint.adapters.crypto import DataKeyNotFoundError
from selfimprint.adapters.word_meaning import word_meaning
from selfimprint.service.export import MemoryExport, UnknownUserError, export_user_memory
from selfimprint.service.forget_preview import named, preview_forget
from workflows.deletion import (
    DeletionInput,
    DeletionReport,
    DeletionWorkflow,
    deletion_workflow_id,
)
from workflows.forget import ForgetInput, ForgetTopicReport, ForgetTopicWorkflow

router = APIRouter(prefix="/v1", tags=["rights"])
UNKNOWN_OPERATION = (404, "unknown_operation")

FORGET_TIMEOUT = timedelta(minutes=2)


class ForgetRequest(BaseModel):
    topic: Annotated[str, Field(min_length=1, max_length=500)]
    dry_run: bool = True
    # Unset: SELFIMPRINT_FORGET_MIN_SIMILARITY. Check a new value with a dry run first.
    min_similarity: Annotated[float, Field(gt=0.0, le=1.0)] | None = None


class Operation(BaseModel):
    operation_id: str
    status: str
    result: dict[str, Any] | None = None


@router.post(
    "/users/{user_id}/forget",
    response_model=ForgetTopicReport,
    responses=documented(*EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER),
)
async def forget(
    user_id: UserId, body: ForgetRequest, who: Caller, request: Request
) -> ForgetTopicReport:
    """Remove every memory about a topic (its words in any form, its proper nouns spelled in
    the other script: "Казань" and "Kazan", embedding similarity, and a word of the same
    meaning in another language: "диета" and "diet"), wherever the graph lives. `dry_run` (the
    default) only lists what would go: the API answers it itself, starting no workflow, so a
    topic only looked at never enters the orchestrator's history.
    A real run answers with what it removed, each memory with its words (`content` null for one
    stored while the forget ran); its workflow holds ids only, never the topic or those words."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    min_similarity = body.min_similarity or resources.settings.forget_min_similarity
    # A dry run is answered by this look alone: a look at a topic starts no workflow. A real
    # run takes the words of what it removes from it: its workflow reports ids only (issue 37).
    look = await preview_forget(
        scope,
        body.topic,
        min_similarity,
        graph=resources.graph,
        archive=resources.archive(),
        embedder=resources.embedder,
        embed_threads=resources.settings.api_embed_threads,
        meaning=word_meaning(resources.settings),
    )
    if body.dry_run:
        return look
    await retell_pending(resources, scope)
    client = await resources.temporal()
    request_id = uuid.uuid4().hex[:12]
    workflow_id = f"forget-{scope.tenant_id}-{scope.user_id}-{request_id}"
    # The topic waits in Neo4j for the workflow's steps (and a replay's); its history holds
    # the reference only (issue 37). The workflow or the user's lifecycle drops it when done.
    topic = PayloadRef(
        tenant_id=scope.tenant_id, user_id=scope.user_id, run_id=topic_run_id(workflow_id)
    )
    staged = TopicText(text=body.topic).model_dump_json()
    if not await resources.graph.payload_stages().put(scope, topic.run_id, TOPIC_TEXT, staged):
        raise unknown_user(scope)
    report = await client.execute_workflow(
        ForgetTopicWorkflow.run,
        ForgetInput(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            topic_ref=topic,
            dry_run=body.dry_run,
            min_similarity=min_similarity,
            embed_task_queue=resources.settings.task_queue_gpu,
        ),
        id=workflow_id,
        task_queue=resources.settings.task_queue_cpu,
        execution_timeout=FORGET_TIMEOUT,
    )
    return named(report, look)


@router.get(
    "/users/{user_id}/export",
    responses={
        200: {"model": MemoryExport, "description": "The whole memory, as JSON."},
        **documented(*EVERY_ROUTE, UNKNOWN_USER),
    },
)
async def export(user_id: UserId, who: Caller, request: Request) -> Response:
    """The user's whole memory as one JSON document (memories with belief metadata and sources,
    edges, hypotheses, tensions, and the message log as it stands), from wherever it lives now.
    Embeddings are left out."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    try:
        document = await export_user_memory(
            scope.tenant_id,
            scope.user_id,
            graph=resources.graph,
            accounts=resources.accounts,
            archive=resources.archive(),
            messages=resources.messages(scope),
        )
    except (UnknownUserError, DataKeyNotFoundError) as exc:
        raise ApiError(404, "unknown_user", f"user {user_id!r} has no memory") from exc
    return Response(document.model_dump_json(), media_type="application/json")


@router.delete(
    "/users/{user_id}",
    status_code=202,
    response_model=Operation,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER),
)
async def delete_user(user_id: UserId, who: Caller, request: Request) -> Operation:
    """Erase the user: graph, archived copies (every version), raw messages, profile, workflows,
    and the user's data key (so copies made earlier cannot be decrypted). Idempotent."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    # Not `known_user`: a user already marked (an earlier call that got a 503 before its
    # workflow started) must be able to retry.
    if not await resources.accounts.mark_deleting(scope):
        raise unknown_user(scope)
    client = await resources.temporal()
    operation_id = deletion_workflow_id(scope.tenant_id, scope.user_id)
    await client.start_workflow(
        DeletionWorkflow.run,
        DeletionInput(tenant_id=scope.tenant_id, user_id=scope.user_id),
        id=operation_id,
        task_queue=resources.settings.task_queue_cpu,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
    return Operation(operation_id=operation_id, status="running")


OperationId = Annotated[str, Path(min_length=1, max_length=300, pattern=r"^[A-Za-z0-9_.:\-]+$")]


@router.get(
    "/operations/{operation_id}",
    response_model=Operation,
    responses=documented(*EVERY_ROUTE, UNKNOWN_OPERATION),
)
async def operation(operation_id: OperationId, who: Caller, request: Request) -> Operation:
    """Status of a deletion; its report once finished."""
    if not operation_id.startswith(f"delete-{who.tenant_id}-"):
        raise _unknown_operation(operation_id)
    client = await resources_of(request).temporal()
    handle = client.get_workflow_handle(operation_id, result_type=DeletionReport)
    try:
        described = await handle.describe()
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise  # unreachable Temporal is a 503 (api/errors.py)
        raise ApiError(
            404, "unknown_operation", f"operation {operation_id!r} does not exist"
        ) from exc
    if described.status == WorkflowExecutionStatus.COMPLETED:
        report = await handle.result()
        return Operation(
            operation_id=operation_id, status="completed", result=report.model_dump(mode="json")
        )
    status = described.status.name.lower() if described.status else "unknown"
    return Operation(operation_id=operation_id, status=status)


def _unknown_operation(operation_id: str) -> ApiError:
    # Another tenant's operation is as unknown as one that never existed.
    return ApiError(404, "unknown_operation", f"operation {operation_id!r} does not exist")

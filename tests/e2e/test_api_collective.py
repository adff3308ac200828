"""CollectiveImprint through the real API and Neo4j (spec §3.7): users mark contexts unhelpful,
a pattern graduates at k distinct users of the tenant, and only then does its fixed hint reach
another user's similar request; another tenant sees nothing, and nothing stored names anyone.

The API runs in process (ASGI) on the session's stack with k's floor lowered to 3 (the stack's
own API has the spec's 10): the same app, Neo4j and embedder, a smaller crowd.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from api.app import create_app
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.client import ApiError, SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.collective import pattern_pseudonym
from selfimprint.domain.users import UserProfile

pytestmark = pytest.mark.e2e
log = logging.getLogger(__name__)

K = 3
REQUESTS = [  # one pattern: English recall questions over an empty context
    "Do you remember what I told you about my trip to Lisbon?",
    "Do you remember the name of my cardiologist?",
    "Do you remember where Marguerite works?",
]
PROBE = "Do you remember my sister's wedding plans?"
SECRET_WORDS = {"lisbon", "cardiologist", "marguerite", "wedding", "sister"}


@pytest.fixture
async def app_transport(stack_settings: Settings) -> AsyncIterator[httpx.ASGITransport]:
    app = create_app(stack_settings.model_copy(update={"collective_k_floor": K}))
    async with app.router.lifespan_context(app):
        yield httpx.ASGITransport(app=app)


async def other_tenant_key(settings: Settings) -> str:
    driver = open_driver(settings)
    try:
        accounts = Neo4jAccounts(driver, settings.neo4j_database)
        return (await accounts.issue_key(f"t{uuid.uuid4().hex[:10]}", "other")).api_key
    finally:
        await driver.close()


async def stored_patterns(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    driver = open_driver(settings)
    try:
        records, _, _ = await driver.execute_query(
            "MATCH (p:CollectivePattern {tenant: $tenant}) RETURN properties(p) AS p",
            tenant=tenant,
            database_=settings.neo4j_database,
        )
        return [dict(r["p"]) for r in records]
    finally:
        await driver.close()


async def new_user(client: SelfImprintClient, prefix: str) -> str:
    user = f"{prefix}-{uuid.uuid4().hex[:8]}"
    await client.put_user(user, UserProfile())
    return user


async def test_a_pattern_graduates_at_k_users_and_only_its_fixed_hint_is_served(
    stack_settings: Settings, tenant_key: str, app_transport: httpx.ASGITransport
) -> None:
    tenant = tenant_key.split("_")[1]
    other_key = await other_tenant_key(stack_settings)
    async with (
        SelfImprintClient("http://app", tenant_key, transport=app_transport) as si,
        SelfImprintClient("http://app", other_key, transport=app_transport) as other,
    ):
        askers = [await new_user(si, "asker") for _ in range(K)]
        probe_user = await new_user(si, "probe")
        stranger = await new_user(other, "stranger")

        async def hints(client: SelfImprintClient, user: str) -> list[str]:
            context = await client.context(user, PROBE)
            assert context.memories == []  # a new user: the empty-context pattern applies
            return context.collective_hints

        # k-1 users, one of them three times (by two feedback ids): below k, no hint.
        for n, (user, message) in enumerate(zip(askers[:-1], REQUESTS, strict=False)):
            answer = await si.context_feedback(user, f"f{n}", message, memories_used=0)
            assert answer == {"id": f"f{n}", "recorded": True}
        await si.context_feedback(askers[0], "f0", REQUESTS[0], memories_used=0)  # a retry
        await si.context_feedback(askers[0], "f9", REQUESTS[2], memories_used=0)
        assert await hints(si, probe_user) == []
        # Other patterns do not add up: an advice request, a served context, a helpful one.
        await si.context_feedback(askers[-1], "f5", "Should I move to Lisbon?", memories_used=0)
        await si.context_feedback(askers[-1], "f6", REQUESTS[1], memories_used=4)
        helpful = await si.request(
            "POST",
            f"/v1/users/{askers[-1]}/context-feedback",
            json={"id": "f7", "message": REQUESTS[1], "helpful": True, "memories_used": 0},
        )
        assert helpful == {"id": "f7", "recorded": False}
        assert await hints(si, probe_user) == []

        # The k-th distinct user: the pattern graduates, and another user's similar request
        # gets its hint, in English, the fixed text and no word of anyone's request.
        await si.context_feedback(askers[-1], "f8", REQUESTS[2], memories_used=0)
        served = await hints(si, probe_user)
        assert len(served) == 1 and served[0].startswith("Users often find answers")
        assert not set(re.findall(r"\w+", served[0].casefold())) & SECRET_WORDS
        # The same request in Russian is another pattern, not yet graduated.
        russian = await si.context(probe_user, "Помнишь, что я рассказывал про сестру?")
        assert russian.collective_hints == []

        # Another tenant's user with the very same request sees nothing.
        assert await hints(other, stranger) == []

    # The lookup costs one indexed query on the context path (Server-Timing "collective").
    async with httpx.AsyncClient(
        transport=app_transport,
        base_url="http://app",
        headers={"authorization": f"Bearer {tenant_key}"},
    ) as raw:
        timed = await raw.post(f"/v1/users/{probe_user}/context", json={"message": PROBE})
    timing = re.search(r"collective;dur=([\d.]+)", timed.headers["server-timing"])
    assert timing is not None and timed.json()["collective_hints"] == served
    log.warning("collective lookup: %s ms", timing.group(1))

    # What Neo4j holds: keys of enumerated values, pseudonyms (dropped at graduation), counts.
    patterns = await stored_patterns(stack_settings, tenant)
    assert {p["key"] for p in patterns} == {
        "v1:en:question:recall:empty",
        "v1:en:question:advice:empty",
        "v1:en:question:recall:served",
    }
    graduated = [p for p in patterns if p.get("graduated_at") is not None]
    assert [(p["key"], p["contributor_count"], p["k"]) for p in graduated] == [
        ("v1:en:question:recall:empty", K, K)
    ]
    assert graduated[0]["contributors"] == []
    dumped = repr(patterns).casefold()
    assert not [w for w in SECRET_WORDS if w in dumped]
    assert not [u for u in (*askers, probe_user) if u in dumped]
    fields = {"tenant", "key", "contributors", "graduated_at", "k", "contributor_count"}
    assert all(set(p) <= fields for p in patterns)
    assert all(re.fullmatch(r"[0-9a-f]{64}", c) for p in patterns for c in p["contributors"])


async def test_bad_context_feedback_is_a_4xx_with_a_code_and_stores_nothing(
    stack_settings: Settings, tenant_key: str, app_transport: httpx.ASGITransport
) -> None:
    tenant = tenant_key.split("_")[1]
    before = await stored_patterns(stack_settings, tenant)
    async with SelfImprintClient("http://app", tenant_key, transport=app_transport) as si:
        user = await new_user(si, "bad")
        path = f"/v1/users/{user}/context-feedback"
        good = {"id": "b1", "message": "Do you remember?", "helpful": False, "memories_used": 0}
        cases: dict[str, tuple[str, dict[str, Any], int, str]] = {
            "no helpful": (path, {k: v for k, v in good.items() if k != "helpful"}, 422, ""),
            "empty message": (path, {**good, "message": "  "}, 422, ""),
            "negative count": (path, {**good, "memories_used": -1}, 422, ""),
            "hostile id": (path, {**good, "id": "x'}) DETACH DELETE n //"}, 422, ""),
            "extra field": (path, {**good, "user_text": "secret"}, 422, ""),
            "unknown user": (
                "/v1/users/nobody-here/context-feedback",
                good,
                404,
                "unknown_user",
            ),
        }
        for name, (where, body, status, code) in cases.items():
            with pytest.raises(ApiError) as err:
                await si.request("POST", where, json=body)
            assert err.value.status == status, name
            assert err.value.code == (code or "invalid_request"), name
    assert await stored_patterns(stack_settings, tenant) == before


async def test_erasing_a_user_withdraws_their_pseudonyms_from_patterns_below_k(
    stack_settings: Settings, app_transport: httpx.ASGITransport
) -> None:
    """A pseudonym is personal data to the key holder: DELETE /v1/users/{id} removes the user's
    from every pattern of the tenant still counting; a graduated pattern keeps its count."""
    key = await other_tenant_key(stack_settings)  # a tenant of its own: nothing graduated yet
    tenant = key.split("_")[1]
    recall, advice = "v1:en:question:recall:empty", "v1:en:question:advice:empty"
    planning = "v1:en:plan:planning:empty"
    async with SelfImprintClient("http://app", key, transport=app_transport) as si:
        leaving, staying = await new_user(si, "leaving"), await new_user(si, "staying")
        for n, user in enumerate((leaving, staying)):  # 2 < k: waits for a third
            await si.context_feedback(user, f"r{n}", REQUESTS[n], memories_used=0)
        await si.context_feedback(leaving, "a0", "Should I move to Lisbon?", memories_used=0)
        planners = [leaving, staying, await new_user(si, "planner")]  # k users: graduates
        for n, user in enumerate(planners):
            await si.context_feedback(user, f"p{n}", "Help me plan the move", memories_used=0)

        def pseudonym(user: str, pattern: str) -> str:
            return pattern_pseudonym(tenant, user, pattern, stack_settings.collective_secret())

        before = {p["key"]: p for p in await stored_patterns(stack_settings, tenant)}
        assert set(before) == {recall, advice, planning}
        assert sorted(before[recall]["contributors"]) == sorted(
            pseudonym(u, recall) for u in (leaving, staying)
        )
        assert before[advice]["contributors"] == [pseudonym(leaving, advice)]
        assert before[planning]["contributor_count"] == K

        operation = await si.delete_user(leaving)
        for _ in range(120):
            status = await si.request("GET", f"/v1/operations/{operation['operation_id']}")
            if status["status"] == "completed":
                break
            await asyncio.sleep(1)
        assert status["status"] == "completed", status
        assert status["result"]["collective_patterns_withdrawn"] == 2

    after = {p["key"]: p for p in await stored_patterns(stack_settings, tenant)}
    assert after[recall]["contributors"] == [pseudonym(staying, recall)]
    assert after[advice]["contributors"] == []
    # Graduated before the erasure: only a count was kept, and it stays.
    assert (after[planning]["contributors"], after[planning]["contributor_count"]) == ([], K)

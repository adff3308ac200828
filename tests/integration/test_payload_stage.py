"""Neo4jPayloadStages on the stack's Neo4j (issue 35): a run's steps are written, replaced and
read per user; nothing is staged for a user without a profile; a finished run's stages and an
erased user's are gone."""

from __future__ import annotations

import uuid

import pytest

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.domain.users import UserProfile, UserScope

pytestmark = pytest.mark.integration


async def test_stages_are_per_user_replaced_dropped_and_erased(
    graph_store: Neo4jGraphStore, accounts: Neo4jAccounts
) -> None:
    stages = graph_store.payload_stages()
    tenant = f"tstage{uuid.uuid4().hex[:6]}"
    alice, bob = UserScope(tenant, "alice"), UserScope(tenant, "bob")
    ghost = UserScope(tenant, "ghost")  # never wrote: no profile
    for scope in (alice, bob):
        await accounts.put_profile(scope, UserProfile())

    assert await stages.put(alice, "r1", "proposals", '{"n": 1}')
    assert await stages.put(alice, "r1", "proposals", '{"n": 2}')  # a retry replaces it
    assert await stages.put(alice, "r1", "new_memories", '{"texts": []}')
    assert await stages.put(bob, "r1", "proposals", '{"n": 9}')
    assert await stages.get(alice, "r1", "proposals") == '{"n": 2}'
    assert await stages.get(bob, "r1", "proposals") == '{"n": 9}'  # same run id, own stage
    assert await stages.get(alice, "r2", "proposals") is None

    assert not await stages.put(ghost, "r1", "proposals", '{"n": 1}')
    assert await stages.get(ghost, "r1", "proposals") is None

    await stages.drop_run(alice, "r1")
    assert await stages.get(alice, "r1", "proposals") is None
    assert await stages.get(alice, "r1", "new_memories") is None
    assert await stages.get(bob, "r1", "proposals") == '{"n": 9}'

    # Erasure drops them with the user's other sleep results.
    await graph_store.for_user(tenant, "bob").delete_sleep_results()
    assert await stages.get(bob, "r1", "proposals") is None

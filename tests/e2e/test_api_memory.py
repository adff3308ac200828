"""The whole stack through the API: remember a three-week conversation and answer what matters.

The local LLM is SmolLM2-135M: weak, so these tests assert what the pipeline guarantees with
any extractor (every memory can say which messages it came from; the context for a question
finds the memories of the relevant events), not the wording a strong model would produce.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.services import LlamaCppServer
from selfimprint.domain.decay import coefficient_for, expires_at
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Valence
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import scripted_conversation, wait_extracted

pytestmark = pytest.mark.e2e


@pytest.fixture
async def logs(stack_settings: Settings) -> AsyncIterator[MessageLogs]:
    driver = open_driver(stack_settings)
    yield MessageLogs(driver, stack_settings.neo4j_database)
    await driver.close()


def scope(tenant_key: str, user_id: str) -> UserScope:
    return UserScope(tenant_key.split("_")[1], user_id)


async def _tell_the_scripted_conversation(client: SelfImprintClient, user: str) -> list[Message]:
    """A new paid user in Berlin sends the scripted conversation, one request per week."""
    await client.put_user(user, UserProfile(plan="paid", time_zone="Europe/Berlin"))
    conversation = scripted_conversation()
    by_week: dict[str, list[Message]] = {}
    for message in conversation:
        by_week.setdefault(message.id[:2], []).append(message)
    for week in sorted(by_week):
        accepted = await client.post_messages(user, by_week[week])
        assert accepted.accepted == len(by_week[week]) and accepted.duplicates == 0
    return conversation


async def test_a_three_week_conversation_is_remembered_with_sources(
    client: SelfImprintClient, logs: MessageLogs, tenant_key: str
) -> None:
    user = f"alex-{uuid.uuid4().hex[:6]}"
    conversation = await _tell_the_scripted_conversation(client, user)

    states = await wait_extracted(logs, scope(tenant_key, user))
    assert states == {"pending": 0, "extracted": len(conversation), "failed": 0}

    memories = await client.memories(user, limit=500)
    ids = {m.id for m in conversation}
    assert memories, "nothing was remembered"
    for memory in memories:
        assert memory["sources"] and set(memory["sources"]) <= ids, memory

    answer = await client.context(user, "How did the Globex interview go?")
    assert answer.language == "en" and answer.tier == "hot"
    assert answer.context.startswith("Background on the user")
    assert answer.tokens <= 400
    used_sources = {s for m in answer.memories for s in m.sources}
    # The chain's evidence that lasts: the interview and the underpreparation. The frustration
    # after it is a negative emotional note (both messages, since "Злюсь на себя из-за..." is
    # typed as one): faded within days of activity (spec §3.3, coefficient 0.5), out of the
    # default context. A question about the interview singles it out, so it may come back,
    # recognised (`recalled`), never from the default pool; a vague question leaves it out
    # (issue 32: a faded negative note is not noise to a question that names it).
    frustration = {"w3-frustration", "w3-ru-frustration"}
    assert used_sources & {"w1-interview", "w3-interview-done"}, answer.memories
    for used in answer.memories:
        if frustration & set(used.sources):
            assert used.recalled, used
    vague = await client.context(user, "How are you doing today?")
    assert not frustration & {s for m in vague.memories for s in m.sources}, vague.memories
    assert used_sources & {"w2-underprep", "w2-ru-stress", "w1-busy"}, answer.memories
    assert [m.score for m in answer.memories] == sorted(
        (m.score for m in answer.memories), reverse=True
    )

    russian = await client.context(user, "Как прошло собеседование в Globex?")
    assert russian.language == "ru"
    # The instruction to the main model is in the language of the message.
    assert any("\u0400" <= ch <= "\u04ff" for ch in russian.context.splitlines()[0])

    # Every memory can say why it exists.
    detail = await client.memory(user, answer.memories[0].id)
    assert {m["id"] for m in detail["why"]} == set(answer.memories[0].sources)


async def test_the_scripted_conversation_becomes_a_typed_graph_on_the_default_stack(
    client: SelfImprintClient, logs: MessageLogs, tenant_key: str
) -> None:
    # What `selfimprint demo` shows (issue 17), on structured extraction (the CPU default):
    # typed memories in the user's words, the dated event, Marta as a colleague, the feeling,
    # the open loop, the causal and temporal links and the Initech tension.
    user = f"typed-{uuid.uuid4().hex[:6]}"
    conversation = await _tell_the_scripted_conversation(client, user)
    states = await wait_extracted(logs, scope(tenant_key, user))
    assert states["failed"] == 0 and states["pending"] == 0

    memories = await client.memories(user, limit=500)

    def one(source: str, type_: str) -> dict[str, Any]:
        found = [m for m in memories if source in m["sources"] and m["type"] == type_]
        assert found, (source, type_, [(m["type"], m["content"]) for m in memories])
        return found[0]

    assert {m["type"] for m in memories} >= {
        "fact",
        "event",
        "emotional_note",
        "person",
        "open_loop",
    }
    job = one("w1-job", "fact")
    interview = one("w1-interview", "event")
    assert "March 18" in interview["content"]
    one("w1-colleague", "person")
    # Named by her relation, Marta has a person memory of her own, however the offer was read.
    assert any(
        m["content"] == "My colleague Marta" and m["type"] == "person"
        for m in memories
        if "w1-colleague" in m["sources"]
    ), [(m["type"], m["content"]) for m in memories]
    frustration = one("w3-frustration", "emotional_note")
    assert frustration["valence"] == "negative"
    one("w3-open-loop", "open_loop")
    # Every memory is the user's own words: a span of the message it cites.
    texts = {m.id: m.text for m in conversation}
    for memory in memories:
        assert any(memory["content"] in texts[s] for s in memory["sources"]), memory

    # "frustrated with myself after the interview": after the interview that went badly.
    went_badly = one("w3-interview-done", "event")
    edges = (await client.memory(user, frustration["id"]))["edges"]
    assert any(
        e["type"] == "followed_by" and e["direction"] == "out" and e["other_id"] == went_badly["id"]
        for e in edges
    ), edges
    # "Злюсь на себя из-за провального собеседования": a cause, linked to what it names.
    angry = next(
        m for m in memories if m["sources"][0] == "w3-ru-frustration" and "Злюсь" in m["content"]
    )
    assert (angry["type"], angry["valence"]) == (
        "emotional_note",
        "negative",
    )  # a feeling, explained
    angry_edges = (await client.memory(user, angry["id"]))["edges"]
    assert any(e["type"] == "caused_by" and e["direction"] == "out" for e in angry_edges)

    # "I quit Initech": a contradiction of the job memory, kept as an unresolved tension, and
    # the older side loses weight.
    quit_ = next(m for m in memories if "w3-contradiction" in m["sources"])
    quit_edges = (await client.memory(user, quit_["id"]))["edges"]
    assert any(e["type"] == "contradicts" and e["other_id"] == job["id"] for e in quit_edges)
    portrait = await client.portrait(user)
    tensions = portrait.split("# Tensions", 1)[1]
    assert "status:unresolved" in tensions and "Initech" in tensions
    assert job["weight"] < interview["weight"]


async def test_a_causal_chain_in_the_graph_reaches_the_context_with_its_sources(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    """The read path of the chain the issue asks for: interview -> frustration ->
    underpreparation, stored in Neo4j as caused_by edges, comes back through retrieval and its
    one-hop expansion and reads as one line, each memory with its source messages. The graph is
    written to the store directly, as an extraction that found the edges would leave it: the
    local 135M model does not find them reliably (the test above checks what it does find)."""
    user = f"chain-{uuid.uuid4().hex[:6]}"
    tenant = tenant_key.split("_")[1]
    conversation = {m.id: m for m in scripted_conversation()}
    memories = {  # id: (type, content, source message)
        "frustration": (
            NodeType.EMOTIONAL_NOTE,
            "Is frustrated with themselves after the Globex interview.",
            "w3-frustration",
        ),
        "interview": (NodeType.EVENT, "The Globex interview went badly.", "w3-interview-done"),
        "underprep": (NodeType.FACT, "Was underprepared for the Globex interview.", "w2-underprep"),
    }
    now = datetime.now(UTC)
    embedder = build_embedder(stack_settings)
    vectors = embedder.embed_passages([c for _, c, _ in memories.values()])
    nodes = []
    for (node_id, (kind, content, source)), vector in zip(memories.items(), vectors, strict=True):
        valence = Valence.NEGATIVE if kind is NodeType.EMOTIONAL_NOTE else None
        coefficient = coefficient_for(kind, valence=valence)
        nodes.append(
            Node(
                id=node_id, user_id=user, type=kind, valence=valence, content=content,
                weight=1.0, weight_at=now, created_at=now, decay_coefficient=coefficient,
                expires_at=expires_at(1.0, now, coefficient), sources=(source,),
                belief=Belief(first_seen=now), embedding=tuple(vector),
                embedding_model=embedder.model_id,
            )
        )  # fmt: skip
    chain = [
        Edge(source_id=a, target_id=b, type=EdgeType.CAUSED_BY, created_at=now)
        for a, b in (("frustration", "interview"), ("interview", "underprep"))
    ]
    driver = open_driver(stack_settings)
    try:
        # The source messages are stored and already extracted (nothing for the lifecycle to
        # pick up), before the profile starts the user's lifecycle.
        log = MessageLogs(driver, stack_settings.neo4j_database).for_user(scope(tenant_key, user))
        await log.append([conversation[source] for _, _, source in memories.values()])
        await log.set_state(
            [source for _, _, source in memories.values()], ExtractionState.EXTRACTED
        )
        await client.put_user(user, UserProfile())
        graph = Neo4jGraphStore(driver, stack_settings.neo4j_database).for_user(tenant, user)
        await graph.upsert(nodes, chain)
    finally:
        await driver.close()

    answer = await client.context(user, "How did the Globex interview go?")
    assert (
        "- Is frustrated with themselves after the Globex interview. -> caused by The Globex "
        "interview went badly. -> caused by Was underprepared for the Globex interview."
    ) in answer.context, answer.context
    assert {m.id: m.sources for m in answer.memories} == {
        node_id: [source] for node_id, (_, _, source) in memories.items()
    }
    detail = await client.memory(user, "interview")
    assert [m["id"] for m in detail["why"]] == ["w3-interview-done"]


async def test_the_default_stack_extracts_while_the_llm_server_is_down_exactly_once(
    stack_settings: Settings, client: SelfImprintClient, logs: MessageLogs, tenant_key: str
) -> None:
    # Structured extraction (the CPU default) needs no model server: an outage of the local
    # llama.cpp server must not hold the user's messages back. (With extraction=llm the
    # activity fails and retries instead: tests/integration/test_ingestion_apply.py.)
    assert stack_settings.extraction == "structured"
    user = f"outage-{uuid.uuid4().hex[:6]}"
    await client.put_user(user, UserProfile())
    llm = LlamaCppServer()
    llm_process = stack.process_for(llm, stack_settings)
    assert llm_process.stop()
    try:
        sent = datetime.now(UTC) - timedelta(minutes=5)
        batch = [
            Message(id="o1", role=Role.USER, text="I adopted a dog named Pixel.", sent_at=sent),
            Message(id="o2", role=Role.USER, text="I run every morning at 6.", sent_at=sent),
        ]
        accepted = await client.post_messages(user, batch)
        assert accepted.accepted == 2
        states = await wait_extracted(logs, scope(tenant_key, user), timeout_s=300)
    finally:
        llm.start(stack_settings, llm_process)
        llm_process.wait_ready(lambda: llm.ready(stack_settings), 120)
    assert states["extracted"] == 2 and states["pending"] == 0
    memories = await client.memories(user, limit=100)
    # Exactly once: a retried extraction would have written a second copy of each memory.
    contents = [m["content"] for m in memories]
    assert sorted(contents) == ["I adopted a dog named Pixel.", "I run every morning at 6."]
    assert {s for m in memories for s in m["sources"]} == {"o1", "o2"}

"""Export a user's whole memory as JSON (data portability: what the system holds about them).

Reads from wherever the graph is, without moving it: Neo4j when it holds the user's memories,
otherwise the warm or cold SYNX object (decrypted in memory); plus what soft resets archived.
Not a workflow: it changes nothing, so the API can call it directly and answer synchronously.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from selfimprint.adapters.graph_archive import GraphArchive, merge_snapshots
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import LoggedMessage, Neo4jMessageLog
from selfimprint.domain.models import Node
from selfimprint.domain.monthly_summary import MonthlySummary
from selfimprint.domain.users import Tier, UserScope
from selfimprint.ports import GraphSnapshot, ObjectNotFoundError


class MemoryExport(BaseModel):
    """`graph` is the full snapshot: memories with every field (belief metadata, sources,
    weights and their clocks), edges, hypotheses with their evidence, tensions."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    user_id: str
    tier: Tier  # where it was read from
    exported_at: datetime
    embeddings_included: bool
    graph: GraphSnapshot
    # What soft resets took out of the active memory (spec §3.9), still held encrypted in S3.
    soft_reset_archives: tuple[GraphSnapshot, ...] = ()
    # What the user was shown each month (spec §4), newest first; they quote memories.
    monthly_summaries: tuple[MonthlySummary, ...] = ()
    # The raw message log as it stands, oldest first (issue 37): a message whose memories were
    # forgotten or deleted is listed without its text, with when it was redacted.
    messages: tuple[LoggedMessage, ...] = ()


MAX_EXPORTED_SUMMARIES = 1_200  # a century of months: all of them


class UnknownUserError(LookupError):
    """No profile and no graph for this user."""


async def export_user_memory(
    tenant_id: str,
    user_id: str,
    *,
    graph: Neo4jGraphStore,
    accounts: Neo4jAccounts,
    archive: GraphArchive,
    include_embeddings: bool = False,
    now: datetime | None = None,
    messages: Neo4jMessageLog | None = None,
) -> MemoryExport:
    """The user's memory; `MemoryExport.model_dump_json()` is the JSON document. Embeddings are
    left out by default (numbers meaningless to a person, ~85% of the size). Raises
    UnknownUserError, or the archive's errors (DataKeyNotFoundError after erasure, SynxError).
    `messages`: the user's message log, listed as it stands (the API always passes it)."""
    now = now or datetime.now(UTC)
    store = graph.for_user(tenant_id, user_id)
    recorded = await accounts.get_tier(UserScope(tenant_id, user_id))
    hot_nodes = (await store.counts()).nodes
    archived: Tier | None = None
    for candidate in (recorded, Tier.WARM, Tier.COLD):
        if candidate not in (Tier.WARM, Tier.COLD):
            continue
        head = await asyncio.to_thread(archive.head, tenant_id, user_id, candidate)
        if head is not None:
            archived = candidate
            break
    # Neo4j holds the graph when the tier says hot and it is not empty (an object left by an
    # interrupted move is a stale copy); otherwise the object does, plus any memories written
    # to Neo4j while archived (the tier move folds those in the same way).
    if archived is None or (recorded is Tier.HOT and hot_nodes > 0):
        if recorded is None and hot_nodes == 0:
            raise UnknownUserError(f"{tenant_id}/{user_id}")
        snapshot, tier = await store.export_graph(now), Tier.HOT
    else:
        read = await asyncio.to_thread(archive.read, tenant_id, user_id, archived)
        snapshot, tier = read.snapshot, archived
        if hot_nodes > 0:
            snapshot = merge_snapshots(snapshot, await store.export_graph(now))
    resets = []
    for key in await asyncio.to_thread(archive.reset_archives, tenant_id, user_id):
        try:
            read = await asyncio.to_thread(archive.read_key, tenant_id, user_id, key)
        except ObjectNotFoundError:
            continue  # deleted between the listing and the read (erasure, an operator)
        resets.append(read.snapshot)
    if not include_embeddings:
        snapshot, resets = _without_embeddings(snapshot), [_without_embeddings(r) for r in resets]
    return MemoryExport(
        tenant_id=tenant_id,
        user_id=user_id,
        tier=tier,
        exported_at=now,
        embeddings_included=include_embeddings,
        graph=snapshot,
        soft_reset_archives=tuple(resets),
        monthly_summaries=tuple(
            s.summary for s in await store.recent_summaries(MAX_EXPORTED_SUMMARIES)
        ),
        messages=tuple(await messages.logged()) if messages is not None else (),
    )


def _without_embeddings(snapshot: GraphSnapshot) -> GraphSnapshot:
    return snapshot.model_copy(update={"nodes": tuple(_bare(n) for n in snapshot.nodes)})


def _bare(node: Node) -> Node:
    return node.model_copy(
        update={"embedding": None, "embedding_model": None, "context_embedding": None}
    )

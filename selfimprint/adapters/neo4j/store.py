"""The graph store: a factory that hands out stores bound to one (tenant, user) scope.

Tenancy by construction: `Neo4jGraphStore.for_user` is the only way to a `Neo4jUserGraph`, the
scope is fixed when it is made, and every query takes it as the `$scope` parameter. Each call is
one managed transaction (execute_read/execute_write), which the driver retries on transient
errors; the writes are idempotent, so those retries are safe.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction

from selfimprint.adapters.neo4j import (
    browsing,
    compaction,
    decay_clock,
    forgetting,
    lookups,
    paths,
    retrieval,
    reviews,
    sleep_results,
    snapshot,
    summaries,
    tensions,
    writes,
)
from selfimprint.adapters.neo4j.migrations import MigrationReport, migrate
from selfimprint.adapters.neo4j.payload_stage import Neo4jPayloadStages
from selfimprint.adapters.neo4j.store_flush import StoreFlush, flush_deleted
from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.compaction.plan import CompactionPlan
from selfimprint.domain.decay import ActivityTimeline, ReinforcementTally
from selfimprint.domain.deleted_memories import DEFAULT_DELETED_MEMORIES, DeletedMemoryConfig
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.models import Edge, HypothesisStatus, Node, NodeType, Tension, TensionStatus
from selfimprint.domain.monthly_summary import MonthlySummary
from selfimprint.domain.session_review import BeliefReview, ReviewVerdict
from selfimprint.domain.sleep_writes import SleepRunRecord, SleepWrites
from selfimprint.domain.tensions import TensionRecord, TensionResolution
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import (
    CauseStep,
    CompactionOutcome,
    ContextPrompts,
    Contradiction,
    Downweight,
    ForgetReport,
    GraphSnapshot,
    HypothesisRecord,
    Reinforcement,
    RetrievalQuery,
    RetrievalResult,
    StoredReview,
    StoredSummary,
    TopicSelector,
)
from selfimprint.telemetry import tracing

log = get_logger(__name__)
T = TypeVar("T")


def user_database_name(scope: UserScope) -> str:
    """Database-per-user mode: a valid Neo4j database name (lowercase, <= 63 chars) that is the
    same for the same scope and never shared by two scopes."""
    return "u-" + hashlib.sha256(scope.key.encode()).hexdigest()[:40]


@tracing.traced_calls("neo4j", tracing.NEO4J, skip=("for_user",))
class Neo4jGraphStore:
    """Implements `ports.GraphStore`.

    database_per_user (Neo4j Enterprise only): each user's graph lives in its own database,
    created on first use by `prepare_user`; the scope property is still written and filtered
    on, so a misrouted query would still see nothing.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str = "neo4j",
        *,
        database_per_user: bool = False,
        search: retrieval.VectorSearchConfig | None = None,
        deletions: DeletedMemoryConfig = DEFAULT_DELETED_MEMORIES,
    ) -> None:
        self._driver = driver
        self._database = database
        self._per_user = database_per_user
        self._search = search or retrieval.VectorSearchConfig()
        self._sizes = retrieval.GraphSizes(self._search)
        self._deletions = deletions  # how long deleted memories' ids are remembered

    def for_user(self, tenant_id: str, user_id: str) -> Neo4jUserGraph:
        scope = UserScope(tenant_id, user_id)
        database = user_database_name(scope) if self._per_user else self._database
        return Neo4jUserGraph(
            self._driver, database, scope, self._sizes, self._search, self._deletions
        )

    async def migrate(self) -> MigrationReport:
        return await migrate(self._driver, self._database)

    def payload_stages(self) -> Neo4jPayloadStages:
        """Where workflows stage their texts and vectors (issue 35): the main database,
        beside the users' profiles, whichever database holds a user's graph."""
        return Neo4jPayloadStages(self._driver, self._database)

    async def flush_deleted(self, tenant_id: str, user_id: str) -> StoreFlush | None:
        """Overwrite what deletions left in the user's database's files (`store_flush`);
        None where Neo4j has no flush procedure."""
        scope = UserScope(tenant_id, user_id)
        database = user_database_name(scope) if self._per_user else self._database
        return await flush_deleted(self._driver, database)

    async def prepare_user(self, tenant_id: str, user_id: str) -> None:
        """Database-per-user mode: create the user's database and its schema (idempotent)."""
        if not self._per_user:
            return
        name = user_database_name(UserScope(tenant_id, user_id))
        async with self._driver.session(database="system") as session:
            await (
                await session.run("CREATE DATABASE $name IF NOT EXISTS WAIT", name=name)
            ).consume()
        await migrate(self._driver, name)


@tracing.traced_calls("neo4j", tracing.NEO4J, skip=("for_user",))
class Neo4jUserGraph:
    """Implements `ports.UserGraphStore` for one scope; made by `Neo4jGraphStore.for_user`."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        scope: UserScope,
        sizes: retrieval.GraphSizes,
        search: retrieval.VectorSearchConfig,
        deletions: DeletedMemoryConfig = DEFAULT_DELETED_MEMORIES,
    ) -> None:
        self._driver = driver
        self._database = database
        self._scope = scope
        self._sizes = sizes
        self._search = search
        self._deletions = deletions
        self._log = log.bind(tenant_id=scope.tenant_id, user_id=scope.user_id)

    @property
    def user_id(self) -> str:
        return self._scope.user_id

    async def _read(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        async with self._driver.session(database=self._database) as session:
            return await session.execute_read(work)

    async def _write(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        async with self._driver.session(database=self._database) as session:
            return await session.execute_write(work)

    # --- writes -----------------------------------------------------------------------------

    async def _size(self) -> retrieval.GraphSize:
        cached = self._sizes.cached(self._scope)
        if cached is not None:
            return cached
        return await self._read(lambda tx: self._sizes.get(tx, self._scope))

    async def _indexed_after(self, new_nodes: int) -> tuple[bool, retrieval.GraphSize]:
        """Whether this write's nodes go into the vector index (the user is, or is about to
        be, too big for the exact scan), and the size it was decided on."""
        size = await self._size()
        return self._search.wants_index(size.mine + new_nodes), size

    async def _after_write(self, nodes: int, indexed: bool, size: retrieval.GraphSize) -> None:
        self._sizes.grew(self._scope, nodes, indexed=indexed)
        if indexed:
            await self._complete_index(size)

    async def _complete_index(self, size: retrieval.GraphSize) -> None:
        """Move the user's older nodes into the vector index (this write's are in already):
        once when they outgrow the exact scan, and after a rehydrate (imports stay out of the
        index so that they stay quick)."""
        if size.mine_indexed >= size.mine:
            return
        moved = 0
        while batch := await self._write(lambda tx: writes.index_user_batch(tx, self._scope)):
            moved += batch
        self._sizes.forget(self._scope)
        if moved:
            self._log.info("graph.vector_indexed", nodes=moved)

    async def upsert(self, nodes: Sequence[Node], edges: Sequence[Edge] = ()) -> None:
        """Nodes and edges in one transaction; sources accumulate as a set."""
        writes.check_scope(self._scope, nodes)
        indexed, size = await self._indexed_after(len(nodes))

        async def work(tx: AsyncManagedTransaction) -> None:
            kept_nodes, kept_edges = await _without_deleted(tx, self._scope, nodes, edges)
            await writes.upsert_nodes(tx, self._scope, kept_nodes, indexed=indexed)
            await writes.upsert_edges(tx, self._scope, kept_edges)

        await self._write(work)
        self._log.debug("graph.upserted", nodes=len(nodes), edges=len(edges))
        await self._after_write(len(nodes), indexed, size)

    async def reinforce(self, reinforcement: Reinforcement) -> bool:
        return await self._write(lambda tx: writes.reinforce(tx, self._scope, reinforcement))

    async def downweight(self, change: Downweight) -> bool:
        return await self._write(lambda tx: writes.downweight(tx, self._scope, change))

    async def mark_recalled(self, node_ids: Sequence[str], at: datetime) -> None:
        if node_ids:
            await self._write(lambda tx: browsing.mark_recalled(tx, self._scope, node_ids, at))

    async def set_status(self, node_id: str, status: HypothesisStatus) -> bool:
        """A user's correction ("this is wrong" -> refuted) or a lifecycle outcome."""
        return await self._write(lambda tx: browsing.set_status(tx, self._scope, node_id, status))

    async def record_contradiction(self, contradiction: Contradiction) -> None:
        async def work(tx: AsyncManagedTransaction) -> None:
            sides = (contradiction.tension.node_a, contradiction.tension.node_b)
            if await forgetting.deleted_among(tx, self._scope, sides):
                return  # a retried extraction naming a memory the user deleted
            await writes.upsert_edges(tx, self._scope, [contradiction.edge])
            await writes.upsert_tensions(tx, self._scope, [contradiction.tension])

        await self._write(work)

    async def set_tensions(self, tensions: Sequence[Tension]) -> None:
        """Store tensions as given (e.g. one marked resolved)."""
        await self._write(lambda tx: writes.upsert_tensions(tx, self._scope, tensions))

    async def upsert_hypotheses(self, records: Sequence[HypothesisRecord]) -> None:
        nodes = [r.node for r in records]
        writes.check_scope(self._scope, nodes)
        indexed, size = await self._indexed_after(len(nodes))

        async def work(tx: AsyncManagedTransaction) -> None:
            await writes.upsert_nodes(tx, self._scope, nodes, indexed=indexed)
            await writes.set_hypotheses(tx, self._scope, [r.hypothesis for r in records])

        await self._write(work)
        await self._after_write(len(nodes), indexed, size)

    # --- reads ------------------------------------------------------------------------------

    async def get_nodes(self, node_ids: Sequence[str]) -> list[Node]:
        return await self._read(lambda tx: lookups.get_nodes(tx, self._scope, node_ids))

    async def recent(self, limit: int) -> list[Node]:
        """The most recently created or reinforced active memories (hypotheses left out)."""
        return await self._read(lambda tx: browsing.recent(tx, self._scope, limit))

    async def sharing_terms(self, terms: Sequence[str], limit: int) -> list[Node]:
        """Active memories (hypotheses left out) that hold the most of these search terms."""
        if not terms:
            return []
        return await self._read(lambda tx: browsing.sharing_terms(tx, self._scope, terms, limit))

    async def list_memories(
        self,
        *,
        type_: NodeType | None = None,
        status: HypothesisStatus | None = None,
        archived: bool | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> list[tuple[Node, HypothesisStatus]]:
        return await self._read(
            lambda tx: browsing.list_memories(
                tx,
                self._scope,
                type_=type_,
                status=status,
                archived=archived,
                offset=offset,
                limit=limit,
            )
        )

    async def edges_of(self, node_id: str) -> list[Edge]:
        return await self._read(lambda tx: browsing.edges_of(tx, self._scope, node_id))

    async def status_of(self, node_id: str) -> HypothesisStatus | None:
        return await self._read(lambda tx: browsing.status_of(tx, self._scope, [node_id]))

    async def tensions(self, status: TensionStatus | None = None) -> list[Tension]:
        return await self._read(lambda tx: lookups.tensions(tx, self._scope, status))

    async def tension_records(self, status: TensionStatus | None = None) -> list[TensionRecord]:
        """Tensions with how each was resolved through the API (oldest first)."""
        return await self._read(lambda tx: tensions.list_tensions(tx, self._scope, status))

    async def resolve_tension(
        self,
        tension_id: str,
        resolution: TensionResolution,
        now: datetime,
        beliefs: BeliefConfig = DEFAULT_BELIEF,
    ) -> TensionRecord | None:
        """Resolve one tension (domain.tensions); None when this user has no such tension."""
        record = await self._write(
            lambda tx: tensions.resolve_tension(
                tx, self._scope, tension_id, resolution, now, beliefs
            )
        )
        if record is not None:
            self._log.info("graph.tension_resolved", tension_id=tension_id)
        return record

    async def hypotheses(self, statuses: Sequence[HypothesisStatus] = ()) -> list[HypothesisRecord]:
        return await self._read(lambda tx: lookups.hypotheses(tx, self._scope, statuses))

    async def retrieve(self, query: RetrievalQuery) -> RetrievalResult:
        return await self._read(
            lambda tx: retrieval.retrieve(tx, self._scope, query, self._sizes, self._search)
        )

    async def causal_chains(
        self, min_length: int = 3, max_length: int = 10, limit: int = 100
    ) -> list[list[Node]]:
        return await self._read(
            lambda tx: paths.causal_chains(tx, self._scope, min_length, max_length, limit)
        )

    async def causes_of(self, node_id: str, max_depth: int = 3) -> list[CauseStep]:
        return await self._read(lambda tx: paths.causes_of(tx, self._scope, node_id, max_depth))

    async def followed_within(
        self, node_id: str, window: timedelta, max_depth: int = 5
    ) -> list[Node]:
        return await self._read(
            lambda tx: paths.followed_within(tx, self._scope, node_id, window, max_depth)
        )

    # --- forgetting and compaction ------------------------------------------------------------

    # --- the decay clock ---------------------------------------------------------------------

    async def decay_clock(self) -> ActivityTimeline:
        return await self._read(lambda tx: decay_clock.read(tx, self._scope))

    async def record_activity(self, moments: Sequence[datetime]) -> ActivityTimeline:
        """Fold the user's activity (their messages' sent_at) into the decay clock."""
        return await self._write(lambda tx: decay_clock.record_activity(tx, self._scope, moments))

    async def reinforcement_tallies(
        self, node_ids: Sequence[str], day: date
    ) -> dict[str, ReinforcementTally]:
        """Today's reinforcement counts (spec §6 rate limit) of these memories."""
        return await self._read(
            lambda tx: lookups.reinforcement_tallies(tx, self._scope, node_ids, day)
        )

    async def flagged(self, node_ids: Sequence[str]) -> set[str]:
        """Those of `node_ids` flagged by the reinforcement rate limit (spec §6)."""
        return await self._read(lambda tx: lookups.flagged(tx, self._scope, node_ids))

    async def prune_expired(self, now: datetime, fading: FadingConfig) -> list[str]:
        """Delete, in bounded batches, the unpinned memories that expired on the user's decay
        clock by `now` (its reading, not the wall clock: an absence keeps memories alive) and
        that `domain.fading` does not keep: the noise types, and the longest faded past the
        per-user bound. The other faded memories stay."""
        clock = (await self.decay_clock()).reading(now)
        pruned: list[str] = []
        while True:
            batch = await self._write(
                lambda tx: forgetting.prune_expired_batch(tx, self._scope, clock, fading)
            )
            pruned += batch
            if len(batch) < forgetting.DELETE_BATCH:
                break
        self._log.info("graph.pruned", nodes=len(pruned))
        return pruned

    async def prune_cost(self, now: datetime) -> int:
        """Diagnostics: database hits that selecting this user's expired memories costs."""
        return await self._read(lambda tx: forgetting.expired_scan_db_hits(tx, self._scope, now))

    async def apply_compaction(self, plan: CompactionPlan) -> CompactionOutcome:
        outcome = await self._write(lambda tx: compaction.apply_plan(tx, self._scope, plan))
        self._log.info("graph.compacted", **outcome.model_dump())
        return outcome

    async def forget_topic(self, topic: TopicSelector, *, dry_run: bool) -> ForgetReport:
        def work(tx: AsyncManagedTransaction) -> Awaitable[ForgetReport]:
            return forgetting.forget_topic(tx, self._scope, topic, dry_run=dry_run)

        report = await (self._read(work) if dry_run else self._write(work))
        self._log.info("graph.topic_forgotten", dry_run=dry_run, memories=len(report.memories))
        return report

    async def forget_derived(
        self,
        memory_ids: Sequence[str],
        text: str | None,
        *,
        dry_run: bool,
        message_ids: Sequence[str] = (),
    ) -> int:
        """Remove (or count) the sleep results that cite these memories or name `text`;
        `message_ids`: messages of memories forgotten outside Neo4j, redacted too."""

        def work(tx: AsyncManagedTransaction) -> Awaitable[int]:
            return forgetting.forget_derived(
                tx, self._scope, memory_ids, text, dry_run=dry_run, message_ids=message_ids
            )

        return await (self._read(work) if dry_run else self._write(work))

    async def delete_memory(self, memory_id: str, now: datetime | None = None) -> bool:
        """Delete one memory and what names it (`forgetting.delete_memory`); its id stays
        deleted for the retention of `domain.deleted_memories` from `now` (default: the wall
        clock). False when there was no such memory."""
        at = now or datetime.now(UTC)

        def work(tx: AsyncManagedTransaction) -> Awaitable[bool]:
            return forgetting.delete_memory(tx, self._scope, memory_id, at, self._deletions)

        deleted = await self._write(work)
        if deleted:
            self._sizes.forget(self._scope)
            self._log.info("graph.memory_deleted", memory_id=memory_id)
        return deleted

    async def was_deleted(self, memory_id: str) -> bool:
        """Whether the user deleted this memory (`delete_memory`) within the retention."""
        found = await self._read(lambda tx: forgetting.deleted_among(tx, self._scope, [memory_id]))
        return memory_id in found

    async def delete_graph(self) -> int:
        """Delete every memory and tension of this user, in bounded batches; returns how many
        memories went. Safe to repeat after a crash."""
        deleted = 0
        while True:
            memories, tensions = await self._write(
                lambda tx: forgetting.delete_graph_batch(tx, self._scope)
            )
            deleted += memories
            if memories == 0 and tensions == 0:
                break
        self._sizes.forget(self._scope)
        self._log.info("graph.deleted", memories=deleted)
        return deleted

    # --- tiers --------------------------------------------------------------------------------

    async def export_graph(self, now: datetime) -> GraphSnapshot:
        return await self._read(lambda tx: snapshot.export_graph(tx, self._scope, now))

    async def import_graph(self, graph: GraphSnapshot) -> None:
        await self._write(lambda tx: snapshot.import_graph(tx, self._scope, graph))
        self._sizes.forget(self._scope)
        self._log.info("graph.imported", nodes=len(graph.nodes), edges=len(graph.edges))

    async def counts(self) -> snapshot.GraphCounts:
        """Memories, edges, hypotheses and tensions of this user (cheap: no properties read)."""
        return await self._read(lambda tx: snapshot.count_graph(tx, self._scope))

    # --- sleep phase (issue 6) ----------------------------------------------------------------

    async def apply_sleep_writes(self, run_id: str, operation: str, data: SleepWrites) -> bool:
        """Commit one sleep operation's writes exactly once; False when already applied."""
        indexed, size = await self._indexed_after(len(data.nodes))
        applied = await self._write(
            lambda tx: sleep_results.apply_writes(
                tx, self._scope, run_id, operation, data, indexed=indexed
            )
        )
        await self._after_write(len(data.nodes), indexed, size)
        self._log.info("graph.sleep_written", run_id=run_id, operation=operation, applied=applied)
        return applied

    async def record_sleep_run(self, run: SleepRunRecord) -> None:
        await self._write(lambda tx: sleep_results.record_run(tx, self._scope, run))

    async def sleep_run(self, run_id: str) -> SleepRunRecord | None:
        return await self._read(lambda tx: sleep_results.get_run(tx, self._scope, run_id))

    async def active_pattern_node_ids(self) -> list[str]:
        return await self._read(lambda tx: sleep_results.active_pattern_node_ids(tx, self._scope))

    async def sleep_items(self, label: str) -> list[dict[str, Any]]:
        """Stored sleep results of one label (see `sleep_results.LABELS`)."""
        return await self._read(lambda tx: sleep_results.items(tx, self._scope, label))

    async def delete_sleep_results(self) -> int:
        """Delete this user's sleep runs, patterns, triggers and questions (user deletion)."""
        deleted = 0
        while True:
            batch = await self._write(
                lambda tx: sleep_results.delete_all_batch(tx, self._scope, 1_000)
            )
            deleted += batch
            if batch == 0:
                return deleted

    # --- session reviews (issue 16) -----------------------------------------------------------

    async def review_candidates(self, types: Sequence[NodeType]) -> list[Node]:
        """Live, unpinned memories of these types: what a session review may ask about."""
        return await self._read(lambda tx: reviews.candidates(tx, self._scope, types))

    async def open_review(self, review: BeliefReview) -> bool:
        """Store a session review (superseding an older open one); False when it exists."""
        return await self._write(lambda tx: reviews.open_review(tx, self._scope, review))

    async def review(self, review_id: str) -> StoredReview | None:
        return await self._read(lambda tx: reviews.get_review(tx, self._scope, review_id))

    async def record_review_answers(
        self, review_id: str, answers: Mapping[str, ReviewVerdict], at: datetime
    ) -> bool:
        return await self._write(
            lambda tx: reviews.record_answers(tx, self._scope, review_id, answers, at)
        )

    async def context_prompts(
        self,
        now: datetime,
        questions_since: datetime,
        question_limit: int,
        review_since: datetime,
    ) -> ContextPrompts:
        """The open review opened since `review_since` and the prepared open-loop questions due
        now, in one query."""
        return await self._read(
            lambda tx: reviews.context_prompts(
                tx, self._scope, now, questions_since, question_limit, review_since
            )
        )

    # --- monthly summaries (issue 16) ---------------------------------------------------------

    async def put_summary(self, summary: MonthlySummary) -> None:
        """Write the month's summary, replacing an earlier one of the same month."""
        await self._write(lambda tx: summaries.upsert(tx, self._scope, summary))

    async def summary(self, month: str) -> StoredSummary | None:
        return await self._read(lambda tx: summaries.get(tx, self._scope, month))

    async def recent_summaries(self, limit: int) -> list[StoredSummary]:
        """Newest month first."""
        return await self._read(lambda tx: summaries.newest(tx, self._scope, limit))

    async def summarised_total(self, before_month: str) -> int | None:
        """Memories held at the end of the latest summarised month before `before_month`."""
        return await self._read(lambda tx: summaries.previous_total(tx, self._scope, before_month))

    async def mark_summaries_seen(self, months: Sequence[str], at: datetime) -> int:
        return await self._write(lambda tx: summaries.mark_seen(tx, self._scope, list(months), at))

    async def delete_summaries(self) -> int:
        """Delete this user's monthly summaries (user deletion), in bounded batches."""
        deleted = 0
        while True:
            batch = await self._write(lambda tx: summaries.delete_batch(tx, self._scope, 1_000))
            deleted += batch
            if batch == 0:
                return deleted


async def _without_deleted(
    tx: AsyncManagedTransaction, scope: UserScope, nodes: Sequence[Node], edges: Sequence[Edge]
) -> tuple[Sequence[Node], Sequence[Edge]]:
    """The nodes and edges minus any that is, or touches, a memory the user deleted: a retried
    extraction of its messages derives the same id and must not bring it back."""
    ids = [n.id for n in nodes] + [i for e in edges for i in (e.source_id, e.target_id)]
    gone = await forgetting.deleted_among(tx, scope, ids)
    if not gone:
        return nodes, edges
    return (
        [n for n in nodes if n.id not in gone],
        [e for e in edges if e.source_id not in gone and e.target_id not in gone],
    )

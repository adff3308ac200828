"""The raw message log: every accepted message, stored before the API answers 202.

Idempotent on the client's message id: the same id with the same content is a no-op, the same id
with different content is a conflict, and a batch with any conflict writes nothing (one
transaction). Each message records its extraction state, so the lifecycle workflow can tell what
it still owes after any crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from neo4j import AsyncDriver, Record
from neo4j.exceptions import ConstraintError, DriverError, Neo4jError
from pydantic import BaseModel, ConfigDict

from selfimprint.adapters.neo4j.ingestion_stage import IngestionStage
from selfimprint.adapters.neo4j.records import Rows, epoch_parts
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.pending_messages import ExtractionBacklog, PendingMessage
from selfimprint.domain.users import UserScope
from selfimprint.ports import PendingRead
from selfimprint.telemetry import tracing


class ExtractionState(StrEnum):
    PENDING = "pending"
    EXTRACTED = "extracted"
    FAILED = "failed"


class UnknownUserError(LookupError):
    """No profile for this user (never created, or erased): nothing was written."""


class MessageConflictError(ValueError):
    """Message ids already stored with different content; nothing of the batch was written."""

    def __init__(self, ids: Sequence[str]) -> None:
        super().__init__(f"message ids already used with different content: {', '.join(ids)}")
        self.ids = list(ids)


class LoggedMessage(BaseModel):
    """A message as the log holds it: `text` None once redacted (a forget or a delete removed
    the memories it gave, issue 37), with when."""

    model_config = ConfigDict(frozen=True)

    id: str
    role: Role
    text: str | None
    sent_at: datetime
    extraction_state: ExtractionState
    redacted_at: datetime | None = None


@dataclass(frozen=True)
class Backlog:
    pending: int
    oldest_received_at: datetime | None


@dataclass(frozen=True)
class AppendOutcome:
    new_ids: list[str]
    duplicate_ids: list[str]
    # The user's extraction backlog right after the write (read your writes, issue 36).
    backlog: ExtractionBacklog = ExtractionBacklog()


# One user's extraction backlog, a subquery shared by the statements that report it: a seek on
# (scope, extraction_state) (migration 0010) that counts the pending messages and takes the
# oldest sent_at. Pending only: a failed message is kept but not awaited.
_USER_BACKLOG = """
CALL () {
  MATCH (b:RawMessage {scope: $scope, extraction_state: 'pending'})
  RETURN count(b) AS pending, min(b.sent_at) AS oldest_pending
}
"""

# One statement, so acceptance costs one round trip before the commit: the profile check (the
# API answers 404 for an unknown user, and a user being erased, or erased meanwhile, cannot get
# messages back, nor a new lifecycle through the signal that follows),
# the stored hashes of these ids, and the write, which happens only when neither refuses.
_APPEND = (
    """
OPTIONAL MATCH (p:UserProfile {scope: $scope})
WITH p IS NOT NULL AND p.deleting_since IS NULL AS known
CALL () {
  UNWIND $rows AS row
  OPTIONAL MATCH (m:RawMessage {scope: $scope, id: row.id})
  WITH row, m WHERE m IS NOT NULL
  RETURN collect(row.id) AS stored, collect(
    CASE WHEN m.hash IS NULL OR m.hash <> row.hash THEN row.id END) AS clash
}
CALL (known, stored, clash) {
  WITH known, stored, clash WHERE (known OR NOT $require_profile) AND size(clash) = 0
  UNWIND $rows AS row
  WITH row, stored WHERE NOT row.id IN stored
  CREATE (m:RawMessage {scope: $scope, id: row.id, role: row.role, text: row.text,
                        sent_at: datetime({epochSeconds: row.sent_at[0],
                                           nanosecond: row.sent_at[1]}),
                        hash: row.hash, received_at: datetime(), extraction_state: 'pending'})
}
"""
    # The backlog after the write, in the same round trip: the 202 says what is still owed.
    + _USER_BACKLOG
    + """
RETURN known, stored, clash, pending, oldest_pending
"""
)

_ACTIVE = """
OPTIONAL MATCH (p:UserProfile {scope: $scope})
RETURN p IS NOT NULL AND p.deleting_since IS NULL AS active
"""

# The append runs as an auto-commit transaction: one round trip where a managed transaction
# takes two (BEGIN+RUN+PULL, then COMMIT), which is a third of acceptance latency here. It is
# one idempotent statement, so a transient failure is simply run again. CREATE, not MERGE:
# if another request stored one of these ids between this statement's check and its write,
# the uniqueness constraint fails the whole statement (a MERGE would quietly match the other
# request's content and report it as ours), and the re-run sees a duplicate or a conflict.
APPEND_ATTEMPTS = 3
APPEND_RETRY_S = 0.05

_USERS_WITH_PENDING = """
MATCH (m:RawMessage {extraction_state: 'pending'})
WHERE m.received_at < datetime({epochSeconds: $before[0], nanosecond: $before[1]})
RETURN DISTINCT m.scope AS scope ORDER BY scope LIMIT $limit
"""

# Every user's backlog in one index seek (raw_message_state_received): the metrics gauges. The
# hint pins the seek: on a small log's statistics the planner picks a scan of every message.
_BACKLOG = """
MATCH (m:RawMessage)
USING INDEX m:RawMessage(extraction_state, received_at)
WHERE m.extraction_state = 'pending' AND m.received_at IS NOT NULL
RETURN count(m) AS pending, min(m.received_at) AS oldest
"""

# A redacted message (its memories forgotten or deleted, issue 37: forgetting.redact_messages)
# has no text: there is nothing to extract, show or reply to.
_GET = """
UNWIND $ids AS id
MATCH (m:RawMessage {scope: $scope, id: id})
WHERE m.text IS NOT NULL
RETURN m.id AS id, m.role AS role, m.text AS text, m.sent_at AS sent_at
ORDER BY m.sent_at, m.id
"""

# The message right before one (any role, any state): what it replied to. A seek on
# (scope, sent_at) (migration 0046) reads the user's messages backwards from it.
_PRECEDING = """
WITH datetime({epochSeconds: $sent_at[0], nanosecond: $sent_at[1]}) AS at
MATCH (m:RawMessage {scope: $scope})
WHERE m.sent_at <= at AND NOT (m.sent_at = at AND m.id >= $id)
RETURN m.id AS id, m.role AS role, m.text AS text, m.sent_at AS sent_at
ORDER BY m.sent_at DESC, m.id DESC LIMIT 1
"""

_SET_STATE = """
UNWIND $ids AS id
MATCH (m:RawMessage {scope: $scope, id: id})
SET m.extraction_state = $state
"""

_PENDING = """
MATCH (m:RawMessage {scope: $scope, extraction_state: 'pending'})
RETURN m.id AS id ORDER BY m.sent_at, m.id LIMIT $limit
"""

_BACKLOG_OF_USER = _USER_BACKLOG + "RETURN pending, oldest_pending"

# Read your writes: whether the named message is the user's (a seek on the (scope, id)
# constraint; another user's id is simply not found), the backlog, and the newest pending user
# messages with their texts cut at what any budget could show. Three seeks, one round trip.
_PENDING_READ = (
    """
OPTIONAL MATCH (named:RawMessage {scope: $scope, id: $named})
WITH named IS NOT NULL AS named_found
"""
    + _USER_BACKLOG
    + """
CALL () {
  MATCH (m:RawMessage {scope: $scope, extraction_state: 'pending'})
  WHERE m.role = 'user' AND m.text IS NOT NULL
  WITH m ORDER BY m.sent_at DESC, m.id DESC LIMIT $newest
  RETURN collect({id: m.id, sent_at: m.sent_at, text: left(m.text, $max_chars),
                  clipped: size(m.text) > $max_chars}) AS newest
}
RETURN named_found, pending, oldest_pending, newest
"""
)

# The whole log as it stands, for the user's export (issue 37): redacted messages without text.
_ALL = """
MATCH (m:RawMessage {scope: $scope})
RETURN m.id AS id, m.role AS role, m.text AS text, m.sent_at AS sent_at,
       m.extraction_state AS extraction_state, m.redacted_at AS redacted_at
ORDER BY m.sent_at, m.id
"""

_COUNT = "MATCH (m:RawMessage {scope: $scope}) RETURN count(m) AS n"

_COUNT_STATE = """
MATCH (m:RawMessage {scope: $scope, extraction_state: $state}) RETURN count(m) AS n
"""

_DELETE_ALL = """
MATCH (m:RawMessage {scope: $scope})
WITH m LIMIT 10000
DETACH DELETE m
RETURN count(*) AS n
"""


@tracing.traced_calls("neo4j", tracing.NEO4J, skip=("for_user",))
class Neo4jMessageLog:
    """One user's raw messages; bound to its scope when made."""

    def __init__(self, driver: AsyncDriver, database: str, scope: UserScope) -> None:
        self._driver = driver
        self._database = database
        self._scope = scope

    async def append(
        self, messages: Sequence[Message], *, require_profile: bool = False
    ) -> AppendOutcome:
        """Store the batch in one transaction. `require_profile`: refuse (UnknownUserError)
        unless the user's profile exists, checked in the same transaction."""
        by_id: dict[str, Message] = {}
        clashing = set()
        for message in messages:
            seen = by_id.setdefault(message.id, message)
            if seen.content_hash() != message.content_hash():
                clashing.add(message.id)  # one batch, one id, two contents
        if clashing:
            raise MessageConflictError(sorted(clashing))

        rows = Rows(_row(m) for m in by_id.values())
        for attempt in range(1, APPEND_ATTEMPTS + 1):
            try:
                async with self._driver.session(database=self._database) as session:
                    result = await session.run(
                        _APPEND, scope=self._scope.key, rows=rows, require_profile=require_profile
                    )
                    record = await result.single(strict=True)
                    await result.consume()  # the end of the stream is the commit
                break
            except (Neo4jError, DriverError) as exc:
                raced = isinstance(exc, ConstraintError)
                if attempt == APPEND_ATTEMPTS or not (raced or exc.is_retryable()):
                    raise
                await asyncio.sleep(APPEND_RETRY_S * attempt)
        # Either refusal means the statement wrote nothing (its write is conditional).
        if require_profile and not record["known"]:
            raise UnknownUserError(self._scope.user_id)
        if record["clash"]:
            raise MessageConflictError(sorted(record["clash"]))
        stored = set(record["stored"])
        return AppendOutcome(
            [i for i in by_id if i not in stored], sorted(stored), _backlog(record)
        )

    async def user_active(self) -> bool:
        """Whether the user's profile exists and no erasure has begun."""
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_ACTIVE, scope=self._scope.key)).single()
            return bool(record and record["active"])

    async def get(self, ids: Sequence[str]) -> list[Message]:
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_GET, scope=self._scope.key, ids=list(ids))
            return [
                Message(
                    id=r["id"],
                    role=Role(r["role"]),
                    text=r["text"],
                    sent_at=r["sent_at"].to_native(),
                )
                async for r in result
            ]

    async def logged(self) -> list[LoggedMessage]:
        """Every message of the user, oldest first, redacted ones without their text."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_ALL, scope=self._scope.key)
            return [
                LoggedMessage(
                    id=r["id"],
                    role=Role(r["role"]),
                    text=r["text"],
                    sent_at=r["sent_at"].to_native(),
                    extraction_state=ExtractionState(r["extraction_state"]),
                    redacted_at=r["redacted_at"].to_native() if r["redacted_at"] else None,
                )
                async for r in result
            ]

    async def preceding(self, message: Message) -> Message | None:
        """The message logged right before `message` in the conversation (by sent_at, then id),
        whatever its role or extraction state; None for the first."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(
                _PRECEDING,
                scope=self._scope.key,
                sent_at=epoch_parts(message.sent_at),
                id=message.id,
            )
            r = await result.single()
            if r is None or r["text"] is None:  # the first message, or a redacted one
                return None
            return Message(
                id=r["id"], role=Role(r["role"]), text=r["text"], sent_at=r["sent_at"].to_native()
            )

    async def set_state(self, ids: Sequence[str], state: ExtractionState) -> None:
        async with self._driver.session(database=self._database) as session:
            await (
                await session.run(_SET_STATE, scope=self._scope.key, ids=list(ids), state=state)
            ).consume()

    async def pending(self, limit: int = 1000) -> list[str]:
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_PENDING, scope=self._scope.key, limit=limit)
            return [r["id"] async for r in result]

    async def backlog(self) -> ExtractionBacklog:
        """How many of the user's messages wait for extraction, and the oldest one's sent_at."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_BACKLOG_OF_USER, scope=self._scope.key)
            return _backlog(await result.single(strict=True))

    async def pending_read(
        self, *, named: str | None = None, newest: int = 0, max_chars: int = 0
    ) -> PendingRead:
        """The backlog, the `newest` pending user messages (newest first, texts cut at
        `max_chars`) and whether `named` is one of the user's message ids, in one statement."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(
                _PENDING_READ,
                scope=self._scope.key,
                named=named,
                newest=max(newest, 0),
                max_chars=max(max_chars, 0),
            )
            record = await result.single(strict=True)
        return PendingRead(
            backlog=_backlog(record),
            newest=tuple(
                PendingMessage(
                    id=row["id"],
                    sent_at=row["sent_at"].to_native(),
                    text=row["text"],
                    clipped=row["clipped"],
                )
                for row in record["newest"]
            ),
            named_found=None if named is None else bool(record["named_found"]),
        )

    async def count(self) -> int:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_COUNT, scope=self._scope.key)).single()
            return int(record["n"]) if record else 0

    async def count_in_state(self, state: ExtractionState) -> int:
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(_COUNT_STATE, scope=self._scope.key, state=state.value)
            ).single()
            return int(record["n"]) if record else 0

    async def delete_all(self) -> int:
        """Erase the user's raw messages and the batches staged from them for extraction, in
        bounded transactions. Returns how many messages were erased."""
        await IngestionStage(self._driver, self._database, self._scope).delete_all()
        total = 0
        async with self._driver.session(database=self._database) as session:
            while True:
                record = await (await session.run(_DELETE_ALL, scope=self._scope.key)).single()
                removed = int(record["n"]) if record else 0
                total += removed
                if removed == 0:
                    return total


def _backlog(record: Record) -> ExtractionBacklog:
    oldest = record["oldest_pending"]
    return ExtractionBacklog(
        pending=int(record["pending"]),
        oldest_pending_sent_at=None if oldest is None else oldest.to_native(),
    )


def _row(message: Message) -> dict[str, object]:
    return {
        "id": message.id,
        "role": message.role.value,
        "text": message.text,
        "sent_at": epoch_parts(message.sent_at),
        "hash": message.content_hash(),
    }


@tracing.traced_calls("neo4j", tracing.NEO4J, skip=("for_user", "stage"))
class MessageLogs:
    """Hands out message logs bound to one user, like the graph store hands out graphs."""

    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database

    def for_user(self, scope: UserScope) -> Neo4jMessageLog:
        return Neo4jMessageLog(self._driver, self._database, scope)

    def stage(self, scope: UserScope) -> IngestionStage:
        """Where the user's batch in extraction waits between activities."""
        return IngestionStage(self._driver, self._database, scope)

    async def users_with_pending(self, received_before: datetime, limit: int) -> list[UserScope]:
        """Users with a message still pending that was stored before `received_before`: across
        tenants, for the operator's `selfimprint messages retell` after an outage. A scan of
        the message label (the index leads with the user's scope): an occasional command."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(
                _USERS_WITH_PENDING, before=epoch_parts(received_before), limit=limit
            )
            keys = [r["scope"] async for r in result]
        return [UserScope(*key.split("/", 1)) for key in keys]

    async def backlog(self) -> Backlog:
        """Messages accepted and not yet extracted, across tenants, and when the oldest of
        them was stored."""
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_BACKLOG)).single(strict=True)
        oldest = record["oldest"]
        return Backlog(int(record["pending"]), None if oldest is None else oldest.to_native())

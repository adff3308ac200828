"""CollectiveImprint in Neo4j (spec §3.7): one `:CollectivePattern {tenant, key}` per pattern.

A pattern holds its key (enumerated features only, `domain.collective_patterns`) and, until it
graduates, the keyed pseudonyms of its distinct contributors; at graduation the pseudonyms are
dropped and only their count and the k it met are kept. No user id, text or time of a
contribution is stored, but a pseudonym is still personal data to whoever holds the key: erasing
a user withdraws theirs from every pattern not yet graduated (`withdraw`, from DeletionWorkflow).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime

from neo4j import AsyncDriver

from selfimprint.adapters.neo4j.decay_clock import micros
from selfimprint.ports import PatternTally
from selfimprint.telemetry import tracing

# The first SET takes the pattern's write lock, so two concurrent contributions cannot both read
# the list before either adds to it (each would drop the other's pseudonym).
_CONTRIBUTE = """
MERGE (p:CollectivePattern {tenant: $tenant, key: $key})
  ON CREATE SET p.contributors = []
SET p.locked = true
WITH p
SET p.contributors = CASE
      WHEN p.graduated_at IS NOT NULL OR $pseudonym IN p.contributors THEN p.contributors
      ELSE p.contributors + $pseudonym END
REMOVE p.locked
RETURN p.contributors AS contributors, p.graduated_at IS NOT NULL AS graduated
"""

_GRADUATE = """
MATCH (p:CollectivePattern {tenant: $tenant, key: $key})
WHERE p.graduated_at IS NULL
SET p.graduated_at = datetime(), p.k = $k, p.contributor_count = size(p.contributors),
    p.contributors = []
"""

# The tenant's patterns still counting (`key IS NOT NULL`: a seek on the (tenant, key) index).
_PENDING = """
MATCH (p:CollectivePattern {tenant: $tenant})
WHERE p.key IS NOT NULL AND p.graduated_at IS NULL
RETURN collect(p.key) AS keys
"""

# Erasure: one pseudonym per pattern key. Locked first like _CONTRIBUTE, so a concurrent
# contribution cannot write back a list read before the removal.
_WITHDRAW = """
UNWIND $withdrawals AS w
MATCH (p:CollectivePattern {tenant: $tenant, key: w.key})
WHERE p.graduated_at IS NULL
SET p.locked = true
WITH p, w
WITH p, w, w.pseudonym IN p.contributors AS present
SET p.contributors = CASE
      WHEN present THEN [c IN p.contributors WHERE c <> w.pseudonym]
      ELSE p.contributors END
REMOVE p.locked
RETURN count(CASE WHEN present THEN p END) AS n
"""

_GRADUATED = """
MATCH (p:CollectivePattern {tenant: $tenant})
WHERE p.key IN $keys AND p.graduated_at IS NOT NULL
RETURN collect(p.key) AS keys
"""

# UserProfile.scope is "<tenant>/<user>" and unique (an index): a prefix seek on it; activity is
# the decay clock's last activity (adapters.neo4j.decay_clock), set when messages are applied.
_ACTIVE_CACHE_TENANTS = 10_000
_ACTIVE_USERS = """
MATCH (p:UserProfile)
WHERE p.scope STARTS WITH $prefix AND p.deleting_since IS NULL
  AND p.decay_clock_last_us >= $since_us
RETURN count(p) AS n
"""


@tracing.traced_calls("neo4j", tracing.NEO4J)
class Neo4jCollective:
    """One per process (api.resources): it remembers each tenant's active-user count for
    `active_ttl_s`, since counting reads every profile of the tenant and k moves slowly."""

    def __init__(self, driver: AsyncDriver, database: str, active_ttl_s: float = 300.0) -> None:
        self._driver = driver
        self._database = database
        self._active_ttl_s = active_ttl_s
        self._active: dict[str, tuple[float, int]] = {}

    async def contribute(self, tenant: str, pattern_key: str, pseudonym: str) -> PatternTally:
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(_CONTRIBUTE, tenant=tenant, key=pattern_key, pseudonym=pseudonym)
            ).single(strict=True)
        return PatternTally(tuple(record["contributors"]), bool(record["graduated"]))

    async def graduate(self, tenant: str, pattern_key: str, k: int) -> None:
        async with self._driver.session(database=self._database) as session:
            await (await session.run(_GRADUATE, tenant=tenant, key=pattern_key, k=k)).consume()

    async def graduated(self, tenant: str, pattern_keys: Sequence[str]) -> frozenset[str]:
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(_GRADUATED, tenant=tenant, keys=list(pattern_keys))
            ).single(strict=True)
        return frozenset(record["keys"])

    async def pending(self, tenant: str) -> frozenset[str]:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_PENDING, tenant=tenant)).single(strict=True)
        return frozenset(record["keys"])

    async def withdraw(self, tenant: str, pseudonyms: Mapping[str, str]) -> int:
        withdrawals = [{"key": k, "pseudonym": p} for k, p in sorted(pseudonyms.items())]
        if not withdrawals:
            return 0
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(_WITHDRAW, tenant=tenant, withdrawals=withdrawals)
            ).single(strict=True)
        return int(record["n"])

    async def active_users(self, tenant: str, since: datetime) -> int:
        hit = self._active.get(tenant)
        if hit is not None and time.monotonic() - hit[0] < self._active_ttl_s:
            return hit[1]
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(_ACTIVE_USERS, prefix=f"{tenant}/", since_us=micros(since))
            ).single(strict=True)
        count = int(record["n"])
        if len(self._active) >= _ACTIVE_CACHE_TENANTS:
            self._active.clear()  # bounded; a miss costs one count
        self._active[tenant] = (time.monotonic(), count)
        return count

"""Tenants, their API keys and user profiles.

API keys look like `si_<tenant>_<secret>`; only SHA-256 of the whole key is stored. A key has
~190 bits of randomness, so a fast hash is enough (slow hashes protect low-entropy passwords).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from neo4j import AsyncDriver

from selfimprint.domain.sleep_policy import Plan
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.telemetry import tracing


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant, and whether the key may use operator endpoints."""

    tenant_id: str
    admin: bool
    key_id: str


@dataclass(frozen=True)
class TenantPause:
    """Whether an operator paused the sleeps of a whole tenant, and why."""

    paused: bool
    reason: str


@dataclass(frozen=True)
class IssuedKey:
    tenant_id: str
    key_id: str
    api_key: str  # shown once, never stored


# No '-': workflow ids are `user-{tenant}-{user}`, and the first '-' must separate the two.
TENANT_ID = re.compile(r"[a-z0-9_]{1,40}")


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


_CREATE_TENANT = """
MERGE (t:Tenant {id: $tenant_id})
  ON CREATE SET t.name = $name, t.created_at = datetime()
WITH t
CREATE (k:ApiKey {hash: $hash, key_id: $key_id, admin: $admin, created_at: datetime()})
CREATE (t)-[:HAS_KEY]->(k)
"""

_RESOLVE = """
MATCH (t:Tenant)-[:HAS_KEY]->(k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN t.id AS tenant_id, k.admin AS admin, k.key_id AS key_id
"""

_REVOKE = "MATCH (k:ApiKey {key_id: $key_id}) SET k.revoked_at = datetime() RETURN count(k) AS n"

_PUT_PROFILE = """
MERGE (p:UserProfile {scope: $scope})
  ON CREATE SET p.created_at = datetime()
SET p.plan = $plan, p.time_zone = $time_zone, p.language = $language,
    p.medical_deployment = $medical, p.updated_at = datetime()
"""

_GET_PROFILE = """
MATCH (p:UserProfile {scope: $scope})
WHERE p.deleting_since IS NULL
RETURN p.plan AS plan, p.time_zone AS time_zone, p.language AS language,
       p.medical_deployment AS medical
"""

_SET_TIER = """
MATCH (p:UserProfile {scope: $scope})
SET p.tier = $tier, p.tier_changed_at = datetime()
RETURN count(p) AS n
"""

_GET_TIER = """
MATCH (p:UserProfile {scope: $scope})
WHERE p.deleting_since IS NULL
RETURN coalesce(p.tier, 'hot') AS tier
"""

# From the moment erasure is requested the user no longer exists for the API; the deletion
# workflow removes the profile itself last.
_MARK_DELETING = """
MATCH (p:UserProfile {scope: $scope})
SET p.deleting_since = coalesce(p.deleting_since, datetime())
RETURN count(p) AS n
"""

_DELETE_PROFILE = "MATCH (p:UserProfile {scope: $scope}) DELETE p RETURN count(p) AS n"

# A tenant's sleep pause (`selfimprint sleep pause --all`): kept on the tenant, so lifecycles
# that start after it read it too (the workflow reads it at start and at each reconcile).
_SET_SLEEP_PAUSE = """
MATCH (t:Tenant {id: $tenant_id})
SET t.sleep_paused = $paused, t.sleep_pause_reason = $reason, t.sleep_pause_changed_at = datetime()
RETURN count(t) AS n
"""

_GET_SLEEP_PAUSE = """
MATCH (t:Tenant {id: $tenant_id})
RETURN coalesce(t.sleep_paused, false) AS paused, coalesce(t.sleep_pause_reason, '') AS reason
"""


@tracing.traced_calls("neo4j", tracing.NEO4J, skip=("for_user",))
class Neo4jAccounts:
    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database

    async def issue_key(self, tenant_id: str, name: str, *, admin: bool = False) -> IssuedKey:
        """Create the tenant if needed and issue a new key for it."""
        if not TENANT_ID.fullmatch(tenant_id):
            raise ValueError("tenant ids are 1-40 of: lowercase letters, digits, _")
        key_id = secrets.token_hex(6)
        api_key = f"si_{tenant_id}_{secrets.token_urlsafe(24)}"
        async with self._driver.session(database=self._database) as session:
            await (
                await session.run(
                    _CREATE_TENANT,
                    tenant_id=tenant_id,
                    name=name,
                    hash=hash_key(api_key),
                    key_id=key_id,
                    admin=admin,
                )
            ).consume()
        return IssuedKey(tenant_id, key_id, api_key)

    async def resolve(self, api_key: str) -> Principal | None:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_RESOLVE, hash=hash_key(api_key))).single()
        if record is None:
            return None
        return Principal(record["tenant_id"], bool(record["admin"]), record["key_id"])

    async def revoke(self, key_id: str) -> bool:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_REVOKE, key_id=key_id)).single()
        return bool(record and record["n"])

    async def set_sleep_pause(self, tenant_id: str, paused: bool, reason: str) -> bool:
        """Pause (or resume) the sleeps of a whole tenant, for lifecycles running now and those
        that start later; False for an unknown tenant."""
        async with self._driver.session(database=self._database) as session:
            record = await (
                await session.run(
                    _SET_SLEEP_PAUSE, tenant_id=tenant_id, paused=paused, reason=reason
                )
            ).single()
        return bool(record and record["n"])

    async def sleep_pause(self, tenant_id: str) -> TenantPause:
        """The tenant's sleep pause; an unknown tenant is not paused."""
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_GET_SLEEP_PAUSE, tenant_id=tenant_id)).single()
        if record is None:
            return TenantPause(paused=False, reason="")
        return TenantPause(paused=bool(record["paused"]), reason=str(record["reason"]))

    async def put_profile(self, scope: UserScope, profile: UserProfile) -> None:
        async with self._driver.session(database=self._database) as session:
            await (
                await session.run(
                    _PUT_PROFILE,
                    scope=scope.key,
                    plan=profile.plan.value,
                    time_zone=profile.time_zone,
                    language=profile.language,
                    medical=profile.medical_deployment,
                )
            ).consume()

    async def get_profile(self, scope: UserScope) -> UserProfile | None:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_GET_PROFILE, scope=scope.key)).single()
        if record is None:
            return None
        return UserProfile(
            plan=Plan(record["plan"]),
            time_zone=record["time_zone"],
            language=record["language"],
            medical_deployment=bool(record["medical"]),
        )

    async def set_tier(self, scope: UserScope, tier: Tier) -> bool:
        """Record where the user's graph lives; the read path checks it before retrieval."""
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_SET_TIER, scope=scope.key, tier=tier.value)).single()
        return bool(record and record["n"])

    async def get_tier(self, scope: UserScope) -> Tier | None:
        """None for an unknown user; users start hot."""
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_GET_TIER, scope=scope.key)).single()
        return None if record is None else Tier(record["tier"])

    async def mark_deleting(self, scope: UserScope) -> bool:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_MARK_DELETING, scope=scope.key)).single()
        return bool(record and record["n"])

    async def delete_profile(self, scope: UserScope) -> bool:
        async with self._driver.session(database=self._database) as session:
            record = await (await session.run(_DELETE_PROFILE, scope=scope.key)).single()
        return bool(record and record["n"])

"""The CollectiveImprint privacy gate (spec §3.7): adaptive k-anonymity for shared patterns.

A candidate observation ("requests of pattern X often end in a correction") becomes an active
CollectiveImprint node only once k distinct users have produced it, with
k = max(10, 0.1% of active users). Users are counted by pseudonym, never by id, so the shared
layer cannot name anyone; `pseudonymize` gives a stable keyed pseudonym per (tenant, user).

The gate is evaluated at the moment of graduation with the active-user count of that moment.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Pseudonym = Annotated[str, Field(min_length=1, max_length=128)]
PatternKey = Annotated[str, Field(min_length=1, max_length=256)]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CollectiveConfig(_Frozen):
    # §3.7: k = max(10, 0.1% of active users). The share is a Decimal so k is exact for any
    # configured share: in floats 7% of 100 users is 7.000000000000001, which rounds up to 8.
    k_floor: Annotated[int, Field(ge=1)] = 10
    active_user_share: Annotated[Decimal, Field(gt=0, le=1)] = Decimal("0.001")


class GateDecision(_Frozen):
    pattern_key: PatternKey
    distinct_contributors: Annotated[int, Field(ge=0)]
    k: Annotated[int, Field(ge=1)]
    graduated: bool

    @property
    def missing(self) -> int:
        """How many more distinct users the pattern needs."""
        return max(0, self.k - self.distinct_contributors)


def anonymity_threshold(active_users: int, config: CollectiveConfig | None = None) -> int:
    """k for a deployment of this size. Rounded up: the spec's floor must never be undercut."""
    if active_users < 0:
        raise ValueError("active_users cannot be negative")
    config = config or CollectiveConfig()
    return max(config.k_floor, math.ceil(config.active_user_share * active_users))


def gate(
    pattern_key: str,
    pseudonyms: Iterable[str],
    active_users: int,
    config: CollectiveConfig | None = None,
) -> GateDecision:
    """Whether one pattern may graduate. Repeat contributions by one pseudonym count once."""
    k = anonymity_threshold(active_users, config)
    distinct = len(set(pseudonyms))
    return GateDecision(
        pattern_key=pattern_key, distinct_contributors=distinct, k=k, graduated=distinct >= k
    )


def below_every_k(pseudonyms: Iterable[str], config: CollectiveConfig | None = None) -> bool:
    """Fewer distinct contributors than the floor: no deployment size lets the pattern graduate,
    so the active users need not be counted for it (that count reads every profile of the
    tenant)."""
    return len(set(pseudonyms)) < (config or CollectiveConfig()).k_floor


def pseudonymize(tenant: str, user_id: str, key: bytes) -> str:
    """A stable pseudonym: HMAC-SHA256 over (tenant, user) under a secret the caller holds.

    Keyed, so the shared layer cannot recompute it from a known user id; stable, so the gate
    counts a user once however many episodes they contribute. Rotating the key restarts the
    count for every pattern still waiting to graduate.
    """
    if len(key) < 32:
        raise ValueError("the pseudonym key needs at least 32 bytes")
    # Length-prefixed so ("a:b", "c") and ("a", "b:c") cannot collide.
    message = b"".join(
        len(part).to_bytes(4, "big") + part for part in (tenant.encode(), user_id.encode())
    )
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def pattern_pseudonym(tenant: str, user_id: str, pattern_key: str, secret: bytes) -> str:
    """The pseudonym a user contributes to one pattern: `pseudonymize` under a key derived per
    pattern, so the shared layer cannot link one user's contributions across patterns (a set
    of patterns per pseudonym would be a profile of its own)."""
    derived = hmac.new(secret, b"collective-pattern:" + pattern_key.encode(), hashlib.sha256)
    return pseudonymize(tenant, user_id, derived.digest())


def withdrawal_pseudonyms(
    tenant: str, user_id: str, pattern_keys: Iterable[str], secret: bytes
) -> dict[str, str]:
    """What erasing a user withdraws from CollectiveImprint: per pattern still counting
    contributors, the pseudonym this user would have contributed to it (whether they did or not:
    the store removes it where it is). A pseudonym is still personal data to the key holder."""
    return {key: pattern_pseudonym(tenant, user_id, key, secret) for key in pattern_keys}

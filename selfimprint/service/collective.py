"""CollectiveImprint (spec §3.7): unhelpful contexts in, graduated operational hints out.

Both directions reduce the request to `RequestFeatures` (enumerated values only) at once; the
message and the user id never leave this module: the store sees a pattern key and a keyed
pseudonym. A pattern's hint is served once k = max(floor, 0.1% of active users) distinct users
have produced it (`domain.collective.gate`), evaluated with the tenant's active-user count at
each contribution until it graduates. Erasing a user withdraws their pseudonyms from the patterns
still counting (`activities.deletion.DeletionActivities.withdraw_collective`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from selfimprint.config import Settings
from selfimprint.domain.collective import (
    CollectiveConfig,
    below_every_k,
    gate,
    pattern_pseudonym,
)
from selfimprint.domain.collective_patterns import hint_for, request_features
from selfimprint.domain.language import detect_language
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import CollectiveStore

log = get_logger(__name__)


class CollectiveResources(Protocol):
    """What CollectiveImprint uses of a process's resources (the API's `Resources`)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def collective_key(self) -> bytes: ...  # Settings.collective_secret(), resolved at start-up
    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def tuning(self) -> DomainTuning: ...  # its `collective` section: the active-user window
    def collective(self) -> CollectiveStore: ...


def gate_config(settings: Settings) -> CollectiveConfig:
    return CollectiveConfig(k_floor=settings.collective_k_floor)


async def record_unhelpful_context(
    resources: CollectiveResources, scope: UserScope, message: str, memories_served: int
) -> bool:
    """Count the user once for the pattern of this request; graduate it when k is met. Returns
    whether the pattern is graduated (for logs and tests: the API does not tell the caller, so
    no client learns how many others produced a pattern).

    Idempotent: a repeat (the same call, or another episode of the same pattern by the same
    user) adds nothing; a retry after a failed graduation write graduates it then.
    """
    features = request_features(message, detect_language(message), memories_served)
    key = features.key
    pseudonym = pattern_pseudonym(scope.tenant_id, scope.user_id, key, resources.collective_key)
    store = resources.collective()
    tally = await store.contribute(scope.tenant_id, key, pseudonym)
    if tally.graduated:
        return True
    config = gate_config(resources.settings)
    if below_every_k(tally.contributors, config):
        return False
    window = resources.tuning.collective.active_window
    active = await store.active_users(scope.tenant_id, resources.clock() - window)
    decision = gate(key, tally.contributors, active, config)
    if decision.graduated:
        await store.graduate(scope.tenant_id, key, decision.k)
        # Only graduations are logged: a line per contribution, beside the request log that
        # names the user, would link users to patterns below k.
        log.info("collective.graduated", tenant=scope.tenant_id, pattern=key, k=decision.k)
    return decision.graduated


async def collective_hints(
    resources: CollectiveResources, scope: UserScope, message: str, language: str
) -> Callable[[int], list[str]]:
    """The hints of the tenant's graduated patterns this request matches, by how many memories
    the context served: one lookup for both states, so it runs beside retrieval (spec §3.4:
    CollectiveImprint is asked in parallel with the user's graph) and the caller picks once the
    context is assembled."""
    empty, served = (request_features(message, language, n) for n in (0, 1))
    graduated = await resources.collective().graduated(scope.tenant_id, (empty.key, served.key))

    def hints(memories_served: int) -> list[str]:
        features = empty if memories_served == 0 else served
        return [hint_for(features)] if features.key in graduated else []

    return hints

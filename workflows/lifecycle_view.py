"""What a user's lifecycle shows operators (DESIGN §5): the next sleep as the policy plans it,
search attributes (tier, plan, next sleep, last sleep status) and a one-line memo, published
only when they change so the history stays small. A base of `UserLifecycleWorkflow`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

with workflow.unsafe.imports_passed_through():
    from selfimprint.domain.sleep_policy import ScheduleState, next_sleep_at
    from workflows.lifecycle_state import LifecycleState, NextSleepView

# Registered on the local dev server by selfimprint/devstack/services.py (SEARCH_ATTRIBUTES).
TIER_KEY = SearchAttributeKey.for_keyword("SelfImprintTier")
PLAN_KEY = SearchAttributeKey.for_keyword("SelfImprintPlan")
NEXT_SLEEP_KEY = SearchAttributeKey.for_datetime("SelfImprintNextSleepAt")
LAST_SLEEP_KEY = SearchAttributeKey.for_keyword("SelfImprintLastSleepStatus")
PAUSED_KEY = SearchAttributeKey.for_keyword("SelfImprintPaused")


class LifecycleView:
    """The lifecycle's state and how operators see it."""

    _state: LifecycleState
    _published: tuple[object, ...] | None

    def _plan(self, now: datetime) -> datetime | None:
        """Recompute the next sleep (kept in state for the query) and return when it is due."""
        state = self._state
        activity = state.activity
        if activity.tracking_since is None:
            state.sleep.next = NextSleepView(
                at=None, depth=None, kind=None, level="inactive", reason="off: no message yet"
            )
            return None
        planned = next_sleep_at(
            ScheduleState(
                plan=state.profile.plan,
                activity=activity.log,
                last_sleep_at=state.sleep.last_at,
                tracking_since=activity.tracking_since,
            ),
            now,
            state.profile.zone,
        )
        reason = planned.reason + ("; paused by an operator" if state.paused else "")
        state.sleep.next = NextSleepView(
            at=planned.at,
            depth=planned.depth,
            kind=planned.kind,
            level=planned.level.value,
            reason=reason,
        )
        return planned.at

    def _summary(self) -> str:
        s = self._state
        nxt, last_sleep, counts = s.sleep.next, s.sleep.last, s.sleep.counts
        when = f"{nxt.at:%Y-%m-%d %H:%M}Z" if nxt is not None and nxt.at is not None else "off"
        last = last_sleep.status.value if last_sleep is not None else "none"
        return (
            f"{s.profile.plan.value}/{s.tier.value}"
            f"{' PAUSED' if s.paused else ''}: next sleep {when}, last {last}; "
            f"{s.ingestion.stats.messages_received} msgs, {s.activity.session_count} sessions, "
            f"sleeps {counts.full} full/{counts.light} light/{counts.skipped} skipped"
        )

    def _publish(self) -> None:
        """Upsert search attributes and memo when they changed (history stays small)."""
        state = self._state
        nxt = state.sleep.next.at if state.sleep.next is not None else None
        last = state.sleep.last.status.value if state.sleep.last is not None else "none"
        summary = self._summary()
        current: tuple[object, ...] = (state.tier, state.profile.plan, nxt, last, summary)
        # The memo carries the current profile (issue 35: the UI showed the start input's).
        # Patched: histories from before published only on the five above.
        # The memo is not encrypted (docs/operations.md): the medical flag stays out of it.
        profile = state.profile.model_dump(mode="json", exclude={"medical_deployment"})
        with_profile = workflow.patched("profile-memo")
        if with_profile:
            current = (*current, tuple(sorted(profile.items())))
        if current == self._published:
            return
        self._published = current
        if state.publish_search_attributes:
            updates: list[SearchAttributeUpdate[Any]] = [
                TIER_KEY.value_set(state.tier.value),
                PLAN_KEY.value_set(state.profile.plan.value),
                NEXT_SLEEP_KEY.value_set(nxt) if nxt is not None else NEXT_SLEEP_KEY.value_unset(),
                LAST_SLEEP_KEY.value_set(last),
            ]
            # The summary names a pause, so a pause already changed `current`; the attribute
            # rides on that upsert. Patched: histories from before replay the four.
            if workflow.patched("paused-search-attribute"):
                updates.append(PAUSED_KEY.value_set("true" if state.paused else "false"))
            workflow.upsert_search_attributes(updates)
        workflow.upsert_memo({"summary": summary, **({"profile": profile} if with_profile else {})})

"""Every workflow the product starts for one user resolves to that user (issue 37: its payloads
are then encrypted under the user's key); the erasure's own workflows and probes to none."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.monthly_summary import summary_schedule_id
from selfimprint.domain.workflow_owner import WorkflowOwner, workflow_owner
from workflows.deletion import deletion_workflow_id
from workflows.ids import lifecycle_workflow_id
from workflows.tiers import tier_workflow_id

AT = datetime(2026, 12, 5, 3, 0, 7, 123456, tzinfo=UTC)
# User ids may hold '-', and may even end like a suffix of another kind.
USERS = ("u1", "anna-maria", "x-20261205T030007", "a.b:c_d-e")


@pytest.mark.parametrize("user", USERS)
def test_every_user_workflow_id_resolves_to_its_user(user: str) -> None:
    # The shapes the workflows and the API build (workflows/lifecycle_sleep.py,
    # user_lifecycle.py, api/routes/erasure.py; Temporal names a scheduled run after the
    # schedule plus its time).
    ids = [
        lifecycle_workflow_id("t1", user),
        tier_workflow_id("t1", user),
        f"sleep-t1-{user}-{AT:%Y%m%dT%H%M%S}-12",
        f"compaction-t1-{user}-{AT:%Y%m%dT%H%M%S}",
        f"soft-reset-t1-{user}-{AT:%Y%m%dT%H%M%S}",
        f"forget-replay-t1-{user}-{AT:%Y%m%dT%H%M%S%f}",
        f"forget-t1-{user}-0123456789ab",
        summary_schedule_id("t1", user),
        f"{summary_schedule_id('t1', user)}-2026-12-01T00:00:00Z",
    ]
    for workflow_id in ids:
        assert workflow_owner(workflow_id) == WorkflowOwner("t1", user), workflow_id


def test_the_erasure_and_probes_belong_to_no_user() -> None:
    for workflow_id in (
        deletion_workflow_id("t1", "u1"),
        "delete-sweep-t1-u1-3f6b7288",
        "stack-probe-5f0c",
        "user-t1",  # no user part
        "sleep-t1-u1",  # a sleep id without its time: not one the product makes
        "forget-t1-u1-not-hex-12345",
    ):
        assert workflow_owner(workflow_id) is None, workflow_id

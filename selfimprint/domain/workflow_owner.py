"""Which user a Temporal workflow id belongs to (issue 37: a user's workflow payloads are
encrypted under that user's data key, so erasing the user shreds their histories too).

Every workflow that carries a user's words is named `<kind>-<tenant>-<user>[<suffix>]`. Tenant ids
contain no '-' (`workflows/ids.py`) but user ids may, so each kind names the exact shape of its
suffix and the user is what lies between the tenant and that suffix. A kind missing from this
table falls back to the deployment's payload key: a new user workflow belongs here, and
`tests/unit/test_workflow_owner.py` builds every id the product starts and checks it resolves.

The erasure's own workflows (`delete-...`, its delayed sweep) are deliberately absent: they carry
ids and counts only, and must still run and be read after the user's key is destroyed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TIMESTAMP = r"\d{8}T\d{6}"

# (kind, suffix after the user id). Longer kinds first: "forget-replay" before "forget".
_KINDS: tuple[tuple[str, str], ...] = (
    ("user", ""),  # the lifecycle
    ("tier", ""),  # a tier move
    ("sleep", rf"-{_TIMESTAMP}-\d+"),  # a sleep pass: start time and sequence number
    ("compaction", rf"-{_TIMESTAMP}"),
    ("soft-reset", rf"-{_TIMESTAMP}"),
    ("forget-replay", rf"-{_TIMESTAMP}\d{{6}}"),  # microseconds
    ("forget", r"-[0-9a-f]{12}"),  # the API's request id
    # The monthly summary's schedule; Temporal names each run after it plus the scheduled time
    # (a schedule's own context may give the bare prefix).
    ("monthly-summary", r"(?:-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)?"),
)
_PATTERNS = tuple(
    re.compile(rf"^{re.escape(kind)}-(?P<tenant>[^-]+)-(?P<user>.+?){suffix}$")
    for kind, suffix in _KINDS
)


@dataclass(frozen=True)
class WorkflowOwner:
    tenant_id: str
    user_id: str


def workflow_owner(workflow_id: str) -> WorkflowOwner | None:
    """The user whose workflow this is, or None for a workflow of no single user."""
    for pattern in _PATTERNS:
        found = pattern.match(workflow_id)
        if found is not None:
            return WorkflowOwner(found["tenant"], found["user"])
    return None

"""Workflow ids that workflows outside the lifecycle module need too (the forget workflow signals
the lifecycle; the lifecycle runs forgets as children), kept here so neither imports the other."""

from __future__ import annotations


def lifecycle_workflow_id(tenant_id: str, user_id: str) -> str:
    """Tenant ids contain no '-', so the first '-' after the prefix separates the two."""
    return f"user-{tenant_id}-{user_id}"

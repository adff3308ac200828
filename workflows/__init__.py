"""Temporal workflow definitions: deterministic orchestration only, no I/O."""

"""What the labelled-pair evaluations share (scripts/eval_sameness.py, scripts/eval_stance.py):
reading a JSON-lines file of pairs, and the split. Even-numbered ids are held out, odd ones tune."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def read_pairs(path: Path, make: Callable[..., T]) -> list[T]:
    rows: list[dict[str, Any]] = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line
    ]
    return [make(**row) for row in rows]


def held_out(pair_id: str) -> bool:
    """`<prefix>-<n>`: held out when n is even."""
    return int(pair_id.rsplit("-", 1)[1]) % 2 == 0
